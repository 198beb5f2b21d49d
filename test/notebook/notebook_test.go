package notebook

import (
	"slices"
	"strings"
	"testing"
)

// The notebook is the same on every run, holds Memos memos, and every fact a
// question needs is in it past its memo's first line, or, for a question
// read from comments, in a comment alone.
func TestNotes(t *testing.T) {
	notes := Notes()
	if len(notes) != Memos || !slices.Equal(notes, Notes()) {
		t.Fatalf("%d memos, or not the same twice", len(notes))
	}
	for _, q := range Questions {
		for _, f := range q.Facts {
			inComment := q.Read == "memo_list_memo_comments"
			found := false
			for _, n := range notes {
				first, rest, _ := strings.Cut(n.Content, "\n")
				found = found || strings.Contains(rest, f) && !inComment || strings.Contains(n.Comment, f) && inComment
				if strings.Contains(first, f) && !q.Apart || strings.Contains(n.Content, f) && inComment {
					t.Errorf("%s: %q is on a memo's first line, or in a memo where a comment should hold it", q.Text, f)
				}
			}
			if !found {
				t.Errorf("%s: no memo holds %q", q.Text, f)
			}
		}
	}
}

// Hits reads the memos' names where each server's find call has them.
func TestHits(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"structured content", `{"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":{"memos":[{"name":"memos/a"},{"name":"memos/b"}]}}}`},
		{"the text alone", `{"result":{"content":[{"type":"text","text":"{\"memos\":[{\"name\":\"memos/a\"},{\"name\":\"memos/b\"}]}"}]}}`},
	} {
		if got := Hits([]byte(tc.body)); !slices.Equal(got, []string{"memos/a", "memos/b"}) {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}
