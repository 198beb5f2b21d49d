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

// instanceOf answers as a Memos instance reporting version whose routes
// are those of the release next names (true: v0.31, whose views route
// answers 401 without a token), and every other request with status.
func instanceOf(version string, next bool, status int) *fakeDoer {
	marker := registry.Releases()[1].Marker()
	return &fakeDoer{probes: true, answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		h := web.Header{"content-type": "application/json"}
		switch {
		case strings.HasSuffix(req.URL, profilePath):
			return &web.Response{Status: 200, Header: h, Body: []byte(`{"version":"` + version + `"}`)}, nil
		case strings.HasSuffix(req.URL, marker) && req.Header["authorization"] == "":
			if next {
				return &web.Response{Status: 401, Header: h, Body: []byte(`{"code":16}`)}, nil
			}
			return &web.Response{Status: 404, Header: h, Body: []byte(`{"code":5}`)}, nil
		}
		return &web.Response{Status: status, Header: h, Body: []byte(`{"code":5,"message":"Not Found"}`)}, nil
	}}
}

// Each instance is served the tools of its own release: the views tool by
// the name and route of that release, the other release's name unknown. A
// source build is placed by the route only one release has.
func TestServesInstanceRelease(t *testing.T) {
	const views = "ShortcutService_ListShortcuts"
	pinned, next := registry.Releases()[0], registry.Releases()[1]
	for _, tc := range []struct {
		name, version string
		next          bool
		served        *registry.Release
	}{
		{"v0.30.0", "0.30.0", false, pinned},
		{"v0.31.0", "0.31.0", true, next},
		{"a patch of v0.31", "v0.31.1", true, next},
		{"a source build of v0.30", "dev", false, pinned},
		{"a source build of v0.31", "dev", true, next},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := instanceOf(tc.version, tc.next, 200)
			tb := newTable(testConfig(), doer)
			if got := registry.Releases()[tb.Release(context.Background())]; got != tc.served {
				t.Fatalf("served %s, want %s", got.Version, tc.served.Version)
			}
			other := pinned
			if tc.served == pinned {
				other = next
			}
			want, gone := tc.served.Curated(views), other.Curated(views)
			if _, ok, _, _ := run(tb, context.Background(), gone.Name, rawjson.Parse(`{"user":"alice"}`), "Bearer t"); ok {
				t.Errorf("%s is served to a %s instance", gone.Name, tc.version)
			}
			res, ok, _, _ := run(tb, context.Background(), want.Name, rawjson.Parse(`{"user":"alice"}`), "Bearer t")
			if !ok || gjson.GetBytes(res, "isError").Bool() {
				t.Fatalf("%s: %s", want.Name, res)
			}
			reqs := doer.requests()
			if last := reqs[len(reqs)-1]; !strings.HasSuffix(last.URL, strings.Replace(want.Path, "{user}", "alice", 1)) {
				t.Errorf("%s asked %s", want.Name, last.URL)
			}
		})
	}
}

// A 404 says the releases differ only from an instance of a release the
// build lacks, and only on a route that differs between the releases.
func TestReleaseMismatchOn404(t *testing.T) {
	for _, tc := range []struct {
		name     string
		instance string // the version the instance's profile reports
		tool     string // the curated operation called
		status   int
		want     string // "" = no mention of releases
	}{
		{"a release the build lacks, 404", "0.32.0", "ShortcutService_ListShortcuts", 404, "404 Not Found: Not Found (the instance runs Memos v0.32.0, but these tools were built for Memos v0.31.0, whose routes may differ: rebuild the Worker for v0.32.0 as the README's \"Another Memos release\" shows)"},
		{"a release the build lacks, 404 on a route every release has", "0.32.0", "MemoService_GetMemo", 404, ""},
		{"the next release, 404", "0.31.0", "ShortcutService_ListShortcuts", 404, ""},
		{"a patch release, 404", "0.31.1", "ShortcutService_ListShortcuts", 404, ""},
		{"the pinned release, 404", "0.30.0", "ShortcutService_ListShortcuts", 404, ""},
		{"source build, 404", "dev", "ShortcutService_ListShortcuts", 404, ""},
		{"a release the build lacks, 401", "0.32.0", "ShortcutService_ListShortcuts", 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable(testConfig(), instanceOf(tc.instance, true, tc.status))
			tool := registry.Releases()[tb.Release(context.Background())].Curated(tc.tool)
			res, ok, _, _ := run(tb, context.Background(), tool.Name, rawjson.Parse(`{"`+tool.Params[0].Name+`":"a"}`), "Bearer t")
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
	c := newTable(testConfig(), doer).Within(sel, false)
	if got, want := string(c.ListJSON(0)), string(sel.Full().ListJSON()); got != want {
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
