package registry

import (
	"strings"
	"testing"
)

// Every tool a hint names is a registry tool, and a hint is given only to
// a caller served all the tools it names: a read-only selection gets the
// finding hint alone.
func TestInstructions(t *testing.T) {
	for _, h := range hints {
		for _, name := range h.tools {
			if !isName(name) || !strings.Contains(h.text, name) {
				t.Errorf("hint %q needs %q, which is no tool or which it does not name", h.text, name)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		readOnly bool
		entries  []string
		lines    int
	}{
		{"every tool", false, nil, len(hints)},
		{"read-only", true, nil, 1},
		{"without memo_edit", false, []string{"-memo_edit"}, len(hints) - 1},
		{"tags alone", false, []string{"tag_list"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Select(tc.readOnly, tc.entries)
			if err != nil {
				t.Fatal(err)
			}
			got := Instructions(func(tool string) bool { _, ok := s.Full().Lookup(tool); return ok })
			if n := len(strings.FieldsFunc(got, func(r rune) bool { return r == '\n' })); n != tc.lines {
				t.Errorf("%d lines, want %d:\n%s", n, tc.lines, got)
			}
		})
	}
}
