package memos

import "testing"

func TestContentHash(t *testing.T) {
	a, b := ContentHash("buy milk"), ContentHash("buy milk\n")
	if len(a) != 12 || a == b || a != ContentHash("buy milk") {
		t.Errorf("ContentHash: %q and %q", a, b)
	}
	// A known value, so that the hash never changes between releases
	// (hashes a client kept would stop matching).
	if got := ContentHash(""); got != "e3b0c44298fc" {
		t.Errorf("ContentHash(\"\") = %q", got)
	}
}
