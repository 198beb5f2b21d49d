package finder

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Tags reads the caller's statistics, looks at the first max tags of them
// only, and orders what it kept by use, then by name.
func TestTags(t *testing.T) {
	const stats = `{"tagCount":{"b":2,"a":2,"z":9,"c":1,"y":9},"memoCreatedTimestamps":["2024-01-01T00:00:00Z"]}`
	for _, tc := range []struct {
		name  string
		max   int
		stats string
		want  []Tag
		fails string
	}{
		{name: "every tag", max: math.MaxInt, stats: stats, want: []Tag{{"y", 9}, {"z", 9}, {"a", 2}, {"b", 2}, {"c", 1}}},
		{name: "the first three looked at", max: 3, stats: stats, want: []Tag{{"z", 9}, {"a", 2}, {"b", 2}}},
		{name: "one", max: 1, stats: stats, want: []Tag{{"b", 2}}},
		{name: "no tags", max: 10, stats: `{"memoCreatedTimestamps":[]}`},
		{name: "statistics refused", max: 10, fails: "404 Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFake()
			delete(m.answers, "/api/v1/users/ann:getStats")
			if tc.stats != "" {
				m.answers["/api/v1/users/ann:getStats"] = tc.stats
			}
			got, err := Tags(context.Background(), m, tc.max)
			if tc.fails != "" {
				if err == nil || err.Error() != tc.fails+": not found" {
					t.Errorf("error %v, want %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"/api/v1/auth/me", "/api/v1/users/ann:getStats"}, m.asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
		})
	}
}

// A memo's tags as its text writes them: a parent Memos v0.31 adds for a
// child goes, a parent the text writes alone stays.
func TestWritten(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		tags, want    []string
	}{
		{"a child alone", "#home/kitchen", []string{"home", "home/kitchen"}, []string{"home/kitchen"}},
		{"the parent written too", "#home #home/kitchen", []string{"home", "home/kitchen"}, []string{"home", "home/kitchen"}},
		{"the parent written before a comma", "#home, then #home/kitchen", []string{"home", "home/kitchen"}, []string{"home", "home/kitchen"}},
		{"a longer tag is not the parent", "#homework and #home/kitchen", []string{"home", "home/kitchen", "homework"}, []string{"home/kitchen", "homework"}},
		{"two levels", "#a/b/c", []string{"a", "a/b", "a/b/c"}, []string{"a/b/c"}},
		{"no nesting", "#work #home", []string{"work", "home"}, []string{"work", "home"}},
		{"none", "", nil, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Written(tc.tags, tc.content)); diff != "" {
				t.Errorf("Written (-want +got):\n%s", diff)
			}
		})
	}
}

// tag_list counts the memos that write a tag: where Memos' statistics
// count a parent for its children's memos too (v0.31: every parent of a
// nested tag is there), the memos with nested tags are read and the
// parents they have only through a child taken off; where a parent is
// missing (v0.30 counts what is written), nothing more is asked.
func TestTagListCountsWrittenTags(t *testing.T) {
	f := &Finder{Offsets: GoOffsets}
	for _, tc := range []struct {
		name, stats, memos, want string
		asked                    int
	}{
		{"parents added by Memos", `{"tagCount":{"home":3,"home/kitchen":2,"home/garden":1,"work":1}}`,
			`{"memos":[{"tags":["home","home/kitchen"],"content":"#home/kitchen"},{"tags":["home","home/kitchen","home/garden"],"content":"#home/kitchen #home/garden"},{"tags":["home","home/garden"],"content":"#home and #home/garden"}]}`,
			`{"tags":[{"tag":"home/kitchen","count":2},{"tag":"home","count":1},{"tag":"home/garden","count":1},{"tag":"work","count":1}],"total":4}`, 3},
		{"a parent only through children is left out", `{"tagCount":{"home":1,"home/kitchen":1}}`,
			`{"memos":[{"tags":["home","home/kitchen"],"content":"#home/kitchen"}]}`,
			`{"tags":[{"tag":"home/kitchen","count":1}],"total":1}`, 3},
		{"parents as written", `{"tagCount":{"home/kitchen":2,"work":1}}`, "",
			`{"tags":[{"tag":"home/kitchen","count":2},{"tag":"work","count":1}],"total":2}`, 2},
		{"more memos than read", `{"tagCount":{"home":1,"home/kitchen":1}}`,
			`{"memos":[{"tags":["home","home/kitchen"],"content":"#home/kitchen"}],"nextPageToken":"more"}`,
			`{"tags":[{"tag":"home/kitchen","count":1}],"total":1,"note":"parents (work of work/meetings) also count memos that have them only through a child: more than 3000 memos have nested tags"}`, 2 + maxNestedPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFake()
			m.answers["/api/v1/users/ann:getStats"] = tc.stats
			m.answers["/api/v1/memos"] = tc.memos
			out, err := f.tagList(context.Background(), map[string]any{}, m)
			if err != nil {
				t.Fatal(err)
			}
			if want := textResult([]byte(tc.want)); string(out) != string(want) {
				t.Errorf("tag_list answered\n%s\nwant\n%s", out, want)
			}
			if len(m.asked) != tc.asked {
				t.Errorf("asked %q, want %d requests", m.asked, tc.asked)
			}
			if tc.asked > 2 && !strings.Contains(m.asked[2], uri.QueryEscape(`creator == "users/ann" && tags.exists(t, t.contains("/"))`)) {
				t.Errorf("the memos read: %s", m.asked[2])
			}
		})
	}
}
