package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/cards"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos/memostest"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// appsHandler is featureHandler with the memo card served (off: without).
func appsHandler(off bool) *Handler {
	h := featureHandler(&memostest.Memos{})
	if !off {
		h.opts.Apps = cards.New(nil, "https://memos.example.com")
	}
	return h
}

// Client capabilities in a 2026-07-28 request's _meta.
const (
	withUI    = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	withoutUI = `{}`
	// otherUI declares the extension for another type of view only.
	otherUI = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list"]}}}`
)

// postModern sends one 2026-07-28 request of method, with params (an
// object's members, or "") and the client capabilities caps.
func postModern(h *Handler, method, name, params, caps string) *web.Response {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{`
	if params != "" {
		body += params + ","
	}
	body += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	header := web.Header{"content-type": "application/json", "authorization": memostest.Token,
		"mcp-protocol-version": "2026-07-28", "mcp-method": method}
	if name != "" {
		header["mcp-name"] = name
	}
	return h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body), Header: header})
}

// A client that declares MCP Apps in 2026-07-28 gets the card named in
// the _meta of the tools it shows, listed first among the resources and
// the extension among the capabilities; every other client of 2026-07-28
// (one without the extension, one declaring another type of view) gets
// tools/list, resources/list and server/discover byte for byte as with the
// cards off. A legacy client, whose later requests cannot say what it
// declared, finds the card named in tools/list and not listed among the
// resources; initialize names the extension to one that declares it
// there, and to no other. The cards off give no ui:// to anybody.
func TestAppsOnlyForClientsThatDeclareThem(t *testing.T) {
	on, off := appsHandler(false), appsHandler(true)
	for _, caps := range []string{withoutUI, otherUI} {
		for _, m := range []string{"tools/list", "resources/list", "server/discover"} {
			got, want := postModern(on, m, "", "", caps), postModern(off, m, "", "", caps)
			if string(got.Body) != string(want.Body) {
				t.Errorf("%s with capabilities %s: %s, want as with the cards off: %s", m, caps, got.Body, want.Body)
			}
		}
	}
	initialize := func(caps string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"c","version":"1"}}}`
	}
	for _, body := range []string{listResources, initialize(withoutUI), initialize(otherUI)} {
		if got, want := post(on, memostest.Token, body), post(off, memostest.Token, body); string(got.Body) != string(want.Body) {
			t.Errorf("legacy %s: %s, want as with the cards off: %s", body, got.Body, want.Body)
		}
	}
	legacy := rawjson.ParseBytes(post(on, memostest.Token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).Body).Get("result").Get("tools")
	if got := legacy.Array()[0]; got.Get("name").Str != "memo_get_memo" || got.Get("_meta").Get("ui").Get("resourceUri").Str != cards.URI {
		t.Errorf("legacy tools/list: %s, want the card named", legacy.Raw)
	}
	if caps := rawjson.ParseBytes(post(on, memostest.Token, initialize(withUI)).Body).Get("result").Get("capabilities"); !caps.Get("extensions").Get(cards.Extension).IsObject() {
		t.Errorf("initialize declaring the extension: capabilities %s", caps.Raw)
	}
	if got := post(off, memostest.Token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).Body; strings.Contains(string(got), "ui://") {
		t.Errorf("legacy tools/list with the cards off: %s", got)
	}

	tools := rawjson.ParseBytes(postModern(on, "tools/list", "", "", withUI).Body).Get("result").Get("tools")
	tools.ForEach(func(_, tool rawjson.Value) bool {
		uri := tool.Get("_meta").Get("ui").Get("resourceUri").Str
		if want := map[string]string{"memo_get_memo": cards.URI}[tool.Get("name").Str]; uri != want {
			t.Errorf("%s: _meta.ui.resourceUri %q, want %q", tool.Get("name").Str, uri, want)
		}
		return true
	})
	list := rawjson.ParseBytes(postModern(on, "resources/list", "", "", withUI).Body).Get("result")
	if first := list.Get("resources").Array(); len(first) == 0 || first[0].Get("uri").Str != cards.URI || first[0].Get("mimeType").Str != cards.MIMEType {
		t.Errorf("resources/list: %s, want the card first", list.Raw)
	}
	if got := postModern(off, "resources/list", "", "", withUI).Body; strings.Contains(string(got), "ui://") {
		t.Errorf("resources/list with the cards off: %s", got)
	}
	if got := postModern(off, "tools/list", "", "", withUI).Body; strings.Contains(string(got), "ui://") {
		t.Errorf("tools/list with the cards off: %s", got)
	}
	caps := rawjson.ParseBytes(postModern(on, "server/discover", "", "", withUI).Body).Get("result").Get("capabilities")
	if !caps.Get("extensions").Get(cards.Extension).IsObject() || !caps.Get("tools").IsObject() {
		t.Errorf("server/discover's capabilities: %s", caps.Raw)
	}
}

// The card reads alike in both eras, as the one document of its type,
// with the web app's address and a CSP of no outside origin; another
// ui:// URI, or the card with the cards off, is not found.
func TestAppsRead(t *testing.T) {
	read := `"uri":"` + cards.URI + `"`
	for _, r := range []*web.Response{
		postModern(appsHandler(false), "resources/read", cards.URI, read, withoutUI),
		post(appsHandler(false), memostest.Token, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{`+read+`}}`),
	} {
		c := rawjson.ParseBytes(r.Body).Get("result").Get("contents").Array()
		if len(c) != 1 || c[0].Get("mimeType").Str != cards.MIMEType || !strings.Contains(c[0].Get("text").Str, `data-memos="https://memos.example.com"`) {
			t.Fatalf("resources/read: %s", r.Body)
		}
		csp := c[0].Get("_meta").Get("ui").Get("csp")
		for _, k := range []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"} {
			if v := csp.Get(k); !v.IsArray() || len(v.Array()) != 0 {
				t.Errorf("csp.%s: %s, want []", k, v.Raw)
			}
		}
	}
	for _, tc := range []struct {
		name string
		h    *Handler
		uri  string
	}{
		{"another ui:// URI", appsHandler(false), "ui://memos-mcp-edge/other"},
		{"the cards off", appsHandler(true), cards.URI},
	} {
		r := postModern(tc.h, "resources/read", tc.uri, `"uri":"`+tc.uri+`"`, withUI)
		if e := rawjson.ParseBytes(r.Body).Get("error"); e.Get("code").Int() != -32602 || r.Status != 400 {
			t.Errorf("%s: %d %s, want resource not found", tc.name, r.Status, r.Body)
		}
	}
}

// noCardTools serves tools none of which the card shows.
type noCardTools struct{ memosTools }

func (noCardTools) ListJSON(int) []byte {
	return []byte(`[{"name":"memo_list_memos","description":"List.","inputSchema":{"type":"object"}}]`)
}

// A deployment that serves none of the tools the card shows (TOOLS,
// READ_ONLY) lists no card.
func TestAppsFollowTheTools(t *testing.T) {
	h := appsHandler(false)
	h.opts.Tools, h.opts.ReadOnlyTools = noCardTools{}, noCardTools{}
	if got := postModern(h, "resources/list", "", "", withUI).Body; strings.Contains(string(got), "ui://") {
		t.Errorf("resources/list: %s, want no card", got)
	}
}
