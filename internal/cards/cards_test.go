package cards

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

func TestDecorate(t *testing.T) {
	for _, tc := range []struct{ name, list, want string }{
		{"a tool with _meta", `[{"name":"fetch","_meta":{"calls":["GET /x"]}}]`,
			`[{"name":"fetch","_meta":{"ui":{"resourceUri":"ui://memos-mcp-edge/card"},"calls":["GET /x"]}}]`},
		{"a tool without", `[{"name":"memo_get_memo","title":"Get"}]`,
			`[{"name":"memo_get_memo","title":"Get","_meta":{"ui":{"resourceUri":"ui://memos-mcp-edge/card"}}}]`},
		{"a ui of its own is replaced", `[{"name":"memo_search","_meta":{"ui":{"resourceUri":"ui://x"},"calls":[]}}]`,
			`[{"name":"memo_search","_meta":{"ui":{"resourceUri":"ui://memos-mcp-edge/card"},"calls":[]}}]`},
		{"others as they are", `[{"name":"search", "_meta" : {}},{"name":"memo_edit"}]`, `[{"name":"search", "_meta" : {}},{"name":"memo_edit"}]`},
		{"none", `[]`, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Cards{}).Decorate([]byte(tc.list))
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !rawjson.ValidBytes(got) {
				t.Error("not JSON")
			}
		})
	}
}

func TestDeclared(t *testing.T) {
	for caps, want := range map[string]bool{
		`{}`: false,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`:                 true,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list","text/html;profile=mcp-app"]}}}`: true,
		`{"extensions":{"io.modelcontextprotocol/ui":{}}}`:                                                          false,
		`{"extensions":{"io.modelcontextprotocol/ui":true}}`:                                                        false,
		`{"experimental":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`:               false,
	} {
		if got := (&Cards{}).Declared(rawjson.Parse(caps)); got != want {
			t.Errorf("%s: %v, want %v", caps, got, want)
		}
	}
}

// doerFunc adapts a function to web.Doer.
type doerFunc func(*web.Request) (*web.Response, error)

func (f doerFunc) Do(_ context.Context, r *web.Request) (*web.Response, error) { return f(r) }

// In the Worker the card comes from the entry module once; the web app's
// address goes into it escaped.
func TestReadThroughTheRuntime(t *testing.T) {
	saved := builtin
	defer func() { builtin = saved }()
	builtin = nil
	asked := 0
	c := New(doerFunc(func(r *web.Request) (*web.Response, error) {
		asked++
		if r.URL != Binding {
			t.Errorf("asked for %s", r.URL)
		}
		return &web.Response{Status: 200, Body: []byte(`<html data-memos="">`)}, nil
	}), `https://m.example/"><script>`)
	for range 2 {
		got, err := c.Read(t.Context(), URI)
		if err != nil || !strings.Contains(rawjson.ParseBytes(got).Get("contents").Array()[0].Get("text").Str, `data-memos="https://m.example/&quot;&gt;&lt;script&gt;"`) {
			t.Fatalf("%s %v", got, err)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times", asked)
	}
	c = New(doerFunc(func(*web.Request) (*web.Response, error) { return &web.Response{Status: 500}, nil }), "")
	if _, err := c.Read(t.Context(), URI); err == nil {
		t.Error("no error without the card")
	}
}
