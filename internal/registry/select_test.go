package registry

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// readOnlyNames are the registry's tools annotated readOnlyHint, from the
// served definitions themselves.
func readOnlyNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, d := range gjson.ParseBytes(ListJSON()).Array() {
		if d.Get("annotations.readOnlyHint").Bool() {
			names = append(names, d.Get("name").Str)
		}
	}
	return names
}

func allNames() []string {
	var names []string
	for _, t := range All() {
		names = append(names, t.Name)
	}
	return names
}

func TestSelect(t *testing.T) {
	without := func(names []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
	}
	reads := readOnlyNames(t)
	memoReads := slices.DeleteFunc(slices.Clone(reads), func(n string) bool { return !strings.HasPrefix(n, "memo_") })
	for _, tc := range []struct {
		name     string
		readOnly bool
		entries  []string
		want     []string
	}{
		{"everything", false, nil, allNames()},
		{"read-only deployment", true, nil, reads},
		{"one name", false, []string{"memo_get_memo"}, []string{"memo_get_memo"}},
		{"prefix", false, []string{"attachment_"}, []string{"attachment_create_attachment", "attachment_delete_attachment", "attachment_get_attachment", "attachment_list_attachments", "attachment_read"}},
		{"prefix and name", false, []string{"auth_get_current_user", "attachment_get"}, []string{"attachment_get_attachment", "auth_get_current_user"}},
		{"removal only", false, []string{"-memo_delete_memo", "-attachment_delete_"}, without(allNames(), "memo_delete_memo", "attachment_delete_attachment")},
		{"a name is not a prefix", false, []string{"memo_delete_memo"}, []string{"memo_delete_memo"}},
		{"prefix minus name", false, []string{"attachment_", "-attachment_delete_attachment"}, []string{"attachment_create_attachment", "attachment_get_attachment", "attachment_list_attachments", "attachment_read"}},
		{"ChatGPT's pair removed", false, []string{"-search", "-fetch"}, without(allNames(), "search", "fetch")},
		{"only the hand-written", false, []string{"memo_search", "tag_list", "search", "fetch", "attachment_read"}, []string{"attachment_read", "fetch", "memo_search", "search", "tag_list"}},
		{"read-only keeps the hand-written", true, []string{"search", "fetch"}, []string{"fetch", "search"}},
		{"read-only and a prefix", true, []string{"memo_"}, memoReads},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Select(tc.readOnly, tc.entries)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.Full().Names()); diff != "" {
				t.Errorf("served (-want +got):\n%s", diff)
			}
			var listed []string
			for _, d := range gjson.ParseBytes(s.Full().ListJSON()).Array() {
				listed = append(listed, d.Get("name").Str)
			}
			if diff := cmp.Diff(tc.want, listed); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			for _, name := range allNames() {
				if _, ok := s.Full().Lookup(name); ok != slices.Contains(tc.want, name) {
					t.Errorf("Lookup(%q) = %t", name, ok)
				}
			}
			// A read-only caller gets the read-only part of the selection,
			// whatever the deployment says.
			wantReads := slices.DeleteFunc(slices.Clone(tc.want), func(n string) bool { return !slices.Contains(reads, n) })
			if diff := cmp.Diff(wantReads, s.ReadOnly().Names()); diff != "" {
				t.Errorf("served to a read-only caller (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelectRefuses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		readOnly bool
		entries  []string
		want     string
	}{
		{"unknown name", false, []string{"memo_get_memo", "memo_frobnicate"}, `TOOLS entry "memo_frobnicate" matches no tool`},
		{"unknown removal", false, []string{"-user_delete_user"}, `TOOLS entry "-user_delete_user" matches no tool`},
		{"bare dash", false, []string{"-"}, `TOOLS entry "-" matches no tool`},
		{"every entry named", false, []string{"nope", "-nada"}, `"nope" matches no tool: the tools are attachment_create_attachment, attachment_delete_attachment,`},
		{"every entry named, each", false, []string{"nope", "-nada"}, `(a start of names, such as memo_, selects a group)` + "\n" + `TOOLS entry "-nada" matches no tool`},
		{"a typo", false, []string{"memo_lst_memos"}, `TOOLS entry "memo_lst_memos" matches no tool: did you mean memo_list_memos?`},
		{"a removal's typo", false, []string{"-memo_delet_memo"}, `TOOLS entry "-memo_delet_memo" matches no tool: did you mean memo_delete_memo?`},
		{"a hand-written tool's typo", false, []string{"memo_serch"}, `TOOLS entry "memo_serch" matches no tool: did you mean memo_search?`},
		{"another hand-written tool's typo", false, []string{"-tag_lst"}, `TOOLS entry "-tag_lst" matches no tool: did you mean tag_list?`},
		{"every tool named, hand-written ones too", false, []string{"nope"}, `, attachment_read, `},
		{"a long entry", false, []string{strings.Repeat("memo_list_memos", 1000)}, `matches no tool: the tools are attachment_create_attachment,`},
		{"nothing left", false, []string{"memo_get_memo", "-memo_get_memo"}, "select no tool"},
		{"read-only leaves nothing", true, []string{"memo_delete_memo"}, "select no tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Select(tc.readOnly, tc.entries)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// The served list is the same prepared bytes on every call.
func TestSelectListIsPrepared(t *testing.T) {
	s, err := Select(true, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Full().ListJSON(), s.Full().ListJSON()
	if &a[0] != &b[0] || !gjson.ValidBytes(a) {
		t.Error("ListJSON builds the list anew on each call, or builds invalid JSON")
	}
}

// builtInListBytes is the tools/list result of Memos v0.30.0's own MCP
// server as make bench measures it (README, Benchmarks): 83.4 KB for its
// builtInTools tools.
const builtInListBytes, builtInTools = 83_400, 20

// Each tool costs a model on average at most half of what one of the
// built-in server's does, and so does the list without the hand-written
// tools.
func TestListSize(t *testing.T) {
	// The result around the array, as the handler serves it.
	const envelope = len(`{"tools":,"ttlMs":3600000,"cacheScope":"public"}`)
	n := len(ListJSON()) + envelope
	t.Logf("tools/list: %d bytes for %d tools, %d per tool (the built-in server: %d per tool)", n, len(All()), n/len(All()), builtInListBytes/builtInTools)
	if n*2*builtInTools > builtInListBytes*len(All()) {
		t.Errorf("tools/list is %d bytes for %d tools, more than half of the built-in server's %d for %d per tool", n, len(All()), builtInListBytes, builtInTools)
	}
	for _, tool := range All() {
		if tool.Handwritten != nil && len(tool.definition)*2*builtInTools > builtInListBytes {
			t.Errorf("%s's entry is %d bytes, more than half of the built-in server's average", tool.Name, len(tool.definition))
		}
	}
}

// A tool's name selects the tool of the same curated operation in every
// release, whatever that release calls it; a prefix selects by name.
func TestSelectAcrossReleases(t *testing.T) {
	pinned, next := Releases()[0], Releases()[1]
	views := func(r *Release) string { return r.Curated("ShortcutService_ListShortcuts").Name }
	for _, entry := range []string{views(pinned), views(next)} {
		s, err := Select(false, []string{entry})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Releases() {
			if diff := cmp.Diff([]string{views(r)}, s.In(r).Full().Names()); diff != "" {
				t.Errorf("%s in %s (-want +got):\n%s", entry, r.Version, diff)
			}
		}
	}
	s, err := Select(true, []string{"memo_"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Writes() || s.In(next).Full().Len() == 0 {
		t.Errorf("read-only memo_: writes %t, %d tools of %s", s.Writes(), s.In(next).Full().Len(), next.Version)
	}
}

// Each release's marker is a route of its own, which a source build's
// release is told by.
func TestMarkers(t *testing.T) {
	for _, r := range Releases() {
		m := r.Marker()
		if m == "" || strings.ContainsAny(m, "{}") {
			t.Errorf("%s: marker %q", r.Version, m)
		}
		for _, o := range Releases() {
			if o != r && o.Marker() == m {
				t.Errorf("%s and %s share the marker %s", r.Version, o.Version, m)
			}
		}
	}
}
