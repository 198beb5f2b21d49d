package memos

import (
	"strings"
	"testing"
)

func TestVersionMismatch(t *testing.T) {
	pinned := testRelease
	for instance, warns := range map[string]bool{
		pinned:                          false,
		strings.TrimPrefix(pinned, "v"): false,
		"dev":                           false,
		"":                              false,
		"0.31.0":                        true,
		"v0.29.1":                       true,
	} {
		if got := mismatch(instance, testRelease); (got != "") != warns {
			t.Errorf("mismatch(%q) = %q", instance, got)
		}
	}
	if w := mismatch("0.31.0", testRelease); !strings.Contains(w, "runs Memos 0.31.0 but the tools were built for 0.30.0") {
		t.Errorf("mismatch text %q", w)
	}
}
