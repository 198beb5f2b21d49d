package main

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/caller"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/mcp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/server"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/tools"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// canned answers every upstream request at once, so that only the
// gateway's own work is measured: the check of the caller's token with the
// memo's creator (the caller reads their own memo, as in row 4), anything
// else with body.
type canned struct{ body string }

func (c canned) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	body := c.body
	if strings.HasSuffix(req.URL, "/api/v1/auth/me") {
		body = `{"user":{"name":"users/admin"}}`
	}
	return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}, nil
}

// benchMemoJSON is a memo as Memos v0.30.0 answers GET /api/v1/memos/{id}.
const benchMemoJSON = `{"name":"memos/WzA94DYwBMfY2W8sCS2YBn","state":"NORMAL","creator":"users/admin",` +
	`"createTime":"2026-11-29T12:08:50Z","updateTime":"2026-11-29T12:08:50Z","content":"hello #bench",` +
	`"visibility":"PRIVATE","tags":["bench"],"pinned":false,"attachments":[],"relations":[],"reactions":[],` +
	`"property":{"hasLink":false,"hasTaskList":false,"hasCode":false,"hasIncompleteTasks":false,"title":""},"snippet":"hello #bench"}`

// newHandler wires the gateway as main.go does without OAuth, with Memos
// replaced by doer and the access log discarded.
func newHandler(tb testing.TB, doer web.Doer) web.Handler {
	env := map[string]string{"MEMOS_URL": "http://127.0.0.1:5230"}
	cfg, err := config.Load(func(k string) string { return env[k] }, func(string) bool { return false })
	if err != nil {
		tb.Fatal(err)
	}
	instance := memos.New(memos.Options{URL: cfg.MemosURL.String(), Timeout: cfg.Timeout, MaxResponseBytes: cfg.MaxRespBytes, Releases: tools.Releases(), Differs: registry.Differs}, doer)
	every, _ := registry.Select(false, nil) // cannot fail
	table := tools.New(instance, finder.Finder{})
	callers := caller.New(instance.CurrentUser, caller.Options{})
	instance.KnowCallers(callers.Verify)
	return server.New(server.Options{
		Config: cfg,
		MCP: mcp.NewHandler(mcp.Options{
			Name: "memos-mcp-edge", Version: "bench", Tools: table.Within(every, false), AllowedOrigins: cfg.AllowedOrigins,
			MaxBodyBytes: cfg.MaxBodyBytes, MaxResponseBytes: cfg.MaxRespBytes,
			Authorize: callers.Authorize, Revoked: callers.Revoked,
		}),
		MemosVersion: registry.MemosVersion(),
		ToolCount:    func(string) int { return len(registry.All()) },
		Probe:        instance.Health,
		AccessLog:    io.Discard, // formatted as in the Worker, written nowhere
	})
}

// benchRequests are the requests of `make bench` row 6, in the legacy era
// that SDK clients speak today. The Node driver (wasmcpu.mjs) sends the same.
var benchRequests = []struct{ name, body string }{
	{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`},
	{"tools_list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
	{"tools_call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":"memos/WzA94DYwBMfY2W8sCS2YBn"}}}`},
}

// BenchmarkHandler is the native side of row 6: the whole request path
// (routing, MCP, argument validation, request building, result shaping) per
// request, natively, with no time spent waiting for Memos.
func BenchmarkHandler(b *testing.B) {
	for _, bc := range benchRequests {
		b.Run(bc.name, func(b *testing.B) {
			serveRepeatedly(b, newHandler(b, canned{benchMemoJSON}), bc.body)
		})
	}
}

// BenchmarkBigList is memo_list_memos of a page of 1,000 memos of about 1 KB,
// as in row 8 (1.44 MB from Memos), natively.
func BenchmarkBigList(b *testing.B) {
	serveRepeatedly(b, newHandler(b, canned{bigListJSON(1000)}),
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{"pageSize":1000}}}`)
}

// serveRepeatedly serves the JSON-RPC request body with h until the
// benchmark ends, after one request whose answer must be a result that is
// not a tool error.
func serveRepeatedly(b *testing.B, h web.Handler, body string) {
	req := &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body), Header: web.Header{
		"content-type": "application/json", "accept": "application/json, text/event-stream",
		"mcp-protocol-version": "2025-06-18", "authorization": "Bearer memos_pat_bench",
	}}
	resp := h.Serve(context.Background(), req)
	if resp.Status != 200 || gjson.GetBytes(resp.Body, "error").Exists() || gjson.GetBytes(resp.Body, "result.isError").Bool() {
		b.Fatalf("%d %.300s", resp.Status, resp.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.Serve(context.Background(), req)
	}
}

// bigListJSON is a page of n memos as Memos v0.30.0 lists them, each like
// the memos row 8 seeds (run.go's seedBigList).
func bigListJSON(n int) string {
	filler := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 17)
	var b strings.Builder
	b.WriteString(`{"memos":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		content := "List memo " + strconv.Itoa(i) + ` #list\n\n` + filler
		b.WriteString(`{"name":"memos/` + strconv.Itoa(100000+i) + `list","state":"NORMAL","creator":"users/admin",` +
			`"createTime":"2026-12-02T01:26:46Z","updateTime":"2026-12-02T01:26:46Z","content":"` + content + `",` +
			`"visibility":"PRIVATE","tags":["list"],"pinned":false,"attachments":[],"relations":[],"reactions":[],` +
			`"property":{"hasLink":false,"hasTaskList":false,"hasCode":false,"hasIncompleteTasks":false,"title":""},` +
			`"snippet":"List memo ` + strconv.Itoa(i) + ` #list Lorem ipsum dolor sit amet, consectetur ..."}`)
	}
	b.WriteString(`],"nextPageToken":"COgHEOgH"}`)
	return b.String()
}
