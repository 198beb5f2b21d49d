//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seeded is a memo of this run with a text and a binary attachment.
type seeded struct {
	memo, tag, content string
	text, binary       string // attachment ids
	png                []byte
}

// seedResources creates, through the gateway's tools, a memo with a tag of
// its own and two attachments.
func seedResources(t *testing.T) seeded {
	t.Helper()
	c := newTools(t, memos.Token)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	s := seeded{tag: "e2eres/" + run, png: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}
	s.content = "# Resource test " + run + "\nThe boiler was serviced. #e2eres/" + run + "\n- [ ] pay the invoice"
	s.memo = c.createMemo(s.content, "PRIVATE")
	attach := func(filename, mimeType string, data []byte) string {
		a := c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{
			"filename": filename, "type": mimeType, "content": base64.StdEncoding.EncodeToString(data)}})
		return str(a, "name")
	}
	textName, binaryName := attach("notes.txt", "text/plain", []byte("hello from the resource tests")), attach("tiny.png", "image/png", s.png)
	c.ok("memo_set_memo_attachments", map[string]any{"memo": s.memo, "body": map[string]any{"attachments": []any{
		map[string]any{"name": textName}, map[string]any{"name": binaryName}}}})
	s.text, s.binary = strings.TrimPrefix(textName, "attachments/"), strings.TrimPrefix(binaryName, "attachments/")
	return s
}

// Through the go-sdk client, in 2026-07-28 and through initialize: the
// templates, the caller's memos as a list, a memo read as Markdown with its
// front matter, both attachments as their bytes, the prompts, and the
// caller's tags as completions, all against the real Memos.
func TestResourcesAndPrompts(t *testing.T) {
	s := seedResources(t)
	id := strings.TrimPrefix(s.memo, "memos/")
	for _, version := range []string{"", "2025-11-25", "2024-11-05"} {
		t.Run("version "+cmpOr(version, "2026-07-28"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, version)
			caps := cs.InitializeResult().Capabilities
			if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
				t.Errorf("capabilities %+v lack resources, prompts or completions", caps)
			}

			templates, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, tpl := range templates.ResourceTemplates {
				uris = append(uris, tpl.URITemplate)
			}
			if !slices.Equal(uris, []string{"memo://memos/{id}", "memo://attachments/{id}"}) {
				t.Errorf("templates %v", uris)
			}

			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == "memo://memos/"+id })
			if i < 0 || list.Resources[i].Title != "Resource test "+s.tag[len("e2eres/"):] || list.Resources[i].MIMEType != "text/markdown" {
				t.Errorf("the new memo is not the list's first page as it should be: %d resources", len(list.Resources))
			}
			for _, r := range list.Resources {
				if r.Name == "" || !strings.HasPrefix(r.URI, "memo://memos/") {
					t.Errorf("resource %+v", r)
				}
			}

			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://memos/" + id})
			if err != nil {
				t.Fatal(err)
			}
			text := read.Contents[0].Text
			for _, want := range []string{"---\nname: " + s.memo + "\n", "\ncreator: users/" + memos.Username + "\n",
				"\ntags: [\"" + s.tag + "\"]\n", "\n  - {uri: \"memo://attachments/" + s.text + "\", filename: \"notes.txt\", type: \"text/plain\", size: 29}\n",
				"\n---\n\n" + s.content} {
				if !strings.Contains(text, want) {
					t.Errorf("the memo lacks %q:\n%s", want, text)
				}
			}

			att, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://attachments/" + s.text})
			if err != nil || att.Contents[0].Text != "hello from the resource tests" || att.Contents[0].MIMEType != "text/plain" {
				t.Errorf("text attachment: %v %+v", err, att)
			}
			bin, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://attachments/" + s.binary})
			if err != nil || !bytes.Equal(bin.Contents[0].Blob, s.png) || bin.Contents[0].MIMEType != "image/png" {
				t.Errorf("binary attachment: %v %+v", err, bin)
			}

			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://memos/doesnotexist"})
			var rpcErr *jsonrpc.Error
			wantCode := int64(-32002)
			if version == "" {
				wantCode = -32602
			}
			if !errors.As(err, &rpcErr) || rpcErr.Code != wantCode || !strings.Contains(string(rpcErr.Data), "memo://memos/doesnotexist") {
				t.Errorf("unknown memo: %v, want code %d with data.uri", err, wantCode)
			}

			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range prompts.Prompts {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, []string{"capture", "daily_review", "on_this_day", "find"}) {
				t.Errorf("prompts %v", names)
			}
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "find", Arguments: map[string]string{"what": "the boiler service"}})
			if err != nil || len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "the boiler service") {
				t.Errorf("find: %v %+v", err, got)
			}
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "capture"}); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
				t.Errorf("capture without content: %v, want -32602", err)
			}

			done, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "capture"},
				Argument: mcp.CompleteParamsArgument{Name: "tags", Value: "#" + s.tag[:len(s.tag)-2]}})
			if err != nil || !slices.Contains(done.Completion.Values, "#"+s.tag) {
				t.Errorf("tag completion: %v %+v", err, done)
			}
		})
	}
}

// Every hostile URI is resource-not-found, and what reaches Memos of all
// of them, and of a memo and an attachment read, is exactly the intended
// paths: one request a memo, two an attachment, two a page of the list,
// two a tag completion.
func TestResourcesCost(t *testing.T) {
	s := seedResources(t)
	id := strings.TrimPrefix(s.memo, "memos/")
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	send := func(method, params string) (int, string) {
		resp, body := rpcPost(t, gw.URL, "Bearer "+memos.Token, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
		return resp.StatusCode, body
	}
	// measured sends one request and returns the paths it asked Memos for.
	// A tools/list first does the caller check (Memos is asked again once
	// its answer is 5 seconds old) and the version probe, which are not
	// the request's.
	measured := func(method, params string) (int, string, []string) {
		send("tools/list", "{}")
		proxy.mu.Lock()
		before := len(proxy.paths)
		proxy.mu.Unlock()
		status, body := send(method, params)
		proxy.mu.Lock()
		defer proxy.mu.Unlock()
		return status, body, append([]string(nil), proxy.paths[before:]...)
	}
	for _, uri := range []string{"memo://memos/../../api/v1/users", "memo://memos/%2e%2e%2fusers", "memo://memos/a?filter=x", "memo://memos/a#b",
		"memo://attachments/" + s.text + "/../../memos", "memo://memos/" + strings.Repeat("a", 200), "file:///etc/passwd", "http://169.254.169.254/"} {
		status, body, paths := measured("resources/read", `{"uri":"`+uri+`"}`)
		if status != 200 || !strings.Contains(body, `"code":-32002`) {
			t.Errorf("%s: %d %s", uri, status, body)
		}
		if len(paths) != 0 {
			t.Errorf("hostile URI %s made requests to Memos: %v", uri, paths)
		}
	}
	cases := []struct {
		method, params string
		paths          []string
	}{
		{"resources/read", `{"uri":"memo://memos/` + id + `"}`, []string{"/api/v1/memos/" + id}},
		{"resources/read", `{"uri":"memo://attachments/` + s.binary + `"}`, []string{"/api/v1/attachments/" + s.binary, "/file/attachments/" + s.binary + "/tiny.png"}},
		{"resources/list", `{}`, []string{"/api/v1/memos"}}, // the caller from the caller check
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"capture"},"argument":{"name":"tags","value":"e2e"}}`,
			[]string{"/api/v1/users/" + memos.Username + ":getStats"}},
		{"prompts/get", `{"name":"daily_review","arguments":{"days":"7"}}`, nil},
		{"prompts/list", `{}`, nil},
		{"resources/templates/list", `{}`, nil},
	}
	var got [][]string
	for _, tc := range cases {
		status, body, paths := measured(tc.method, tc.params)
		if status != 200 || !strings.Contains(body, `"result"`) {
			t.Errorf("%s: %d %.300s", tc.method, status, body)
		}
		got = append(got, paths)
	}
	for i, tc := range cases {
		if !slices.Equal(got[i], tc.paths) {
			t.Errorf("%s %s asked Memos %v, want %v", tc.method, tc.params, got[i], tc.paths)
		}
		t.Logf("%s: %d requests to Memos", tc.method, len(got[i]))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
