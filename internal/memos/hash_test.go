package memos

import "testing"

func TestContentHash(t *testing.T) {
	a, b := ContentHash("buy milk"), ContentHash("buy milk\n")
	if len(a) != 12 || a == b || a != ContentHash("buy milk") {
		t.Errorf("ContentHash: %q and %q", a, b)
	}
	// A known value (BLAKE2b-256's first six bytes), so that the hash does
	// not change unnoticed between releases: hashes a client kept would
	// stop matching (docs/releases.md says when they did).
	if got := ContentHash(""); got != "0e5751c026e5" {
		t.Errorf("ContentHash(\"\") = %q", got)
	}
}
