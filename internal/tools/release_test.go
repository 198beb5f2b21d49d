package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// A 404 from an instance of another release than the registry's says so,
// names both releases and points to the rebuild; other answers, and a 404
// from an instance of the same release, do not.
func TestReleaseMismatchOn404(t *testing.T) {
	const notFound = `{"code":5,"message":"Not Found"}`
	pinned := registry.MemosVersion() // v0.30.0
	for _, tc := range []struct {
		name     string
		instance string // the version the instance's profile reports
		status   int
		want     string // "" = no mention of releases
	}{
		{"other release, 404", "0.31.0", 404, "404 Not Found: Not Found (the instance runs Memos v0.31.0, but these tools were built for Memos " + pinned + ", whose routes may differ: rebuild the Worker for v0.31.0 as the README's \"Another Memos release\" shows)"},
		{"other release with v, 404", "v0.31.1", 404, "rebuild the Worker for v0.31.1"},
		{"same release, 404", strings.TrimPrefix(pinned, "v"), 404, ""},
		{"source build, 404", "dev", 404, ""},
		{"other release, 401", "0.31.0", 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{probes: true, answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
				h := web.Header{"content-type": "application/json"}
				if strings.HasSuffix(req.URL, profilePath) {
					return &web.Response{Status: 200, Header: h, Body: []byte(`{"version":"` + tc.instance + `"}`)}, nil
				}
				return &web.Response{Status: tc.status, Header: h, Body: []byte(notFound)}, nil
			}}
			res, ok, _, _ := run(newTable(testConfig(), doer), context.Background(), "shortcut_list_shortcuts", rawjson.Parse(`{"user":"alice"}`), "Bearer t")
			r := gjson.ParseBytes(res)
			text := r.Get("content.0.text").Str
			if !ok || !r.Get("isError").Bool() {
				t.Fatalf("want a tool error, got %s", res)
			}
			mentions := strings.Contains(text, "the instance runs Memos")
			if tc.want == "" && mentions || tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("error %q, want %q", text, tc.want)
			}
		})
	}
}

// A deployment's selection hides the other tools: absent from the list,
// and a call to one is refused as unknown, before any request.
func TestServeSelection(t *testing.T) {
	sel, err := registry.Select(true, []string{"memo_"})
	if err != nil {
		t.Fatal(err)
	}
	doer := &fakeDoer{}
	c := newTable(testConfig(), doer).Within(sel.Full())
	if got, want := string(c.ListJSON()), string(sel.Full().ListJSON()); got != want {
		t.Errorf("ListJSON is not the selection's list")
	}
	for _, tc := range []struct {
		tool, args string
		known      bool
	}{
		{"memo_get_memo", `{"memo":"a"}`, true},
		{"memo_delete_memo", `{"memo":"a"}`, false},
		{"auth_get_current_user", `{}`, false},
		{"no_such_tool", `{}`, false},
	} {
		if _, ok, _, _ := run(c, context.Background(), tc.tool, rawjson.Parse(tc.args), "Bearer t"); ok != tc.known {
			t.Errorf("%s: known=%t, want %t", tc.tool, ok, tc.known)
		}
	}
	if n := len(doer.requests()); n != 1 {
		t.Errorf("%d requests reached Memos, want only the served tool's", n)
	}
}
