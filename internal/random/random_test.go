package random

import (
	"strings"
	"testing"
)

// Text is 26 characters of the base32 alphabet, all of which occur, and
// never the same twice.
func TestText(t *testing.T) {
	seen := map[string]bool{}
	var used [256]bool
	for range 1000 {
		s := Text()
		if len(s) != 26 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
			t.Fatalf("Text() = %q", s)
		}
		if seen[s] {
			t.Fatalf("Text() gave %q twice", s)
		}
		seen[s] = true
		for i := range len(s) {
			used[s[i]] = true
		}
	}
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") {
		if !used[c] {
			t.Errorf("%c never occurs in 26,000 characters", c)
		}
	}
}

// Read fills what it is given, beyond one call's limit too.
func TestReadFills(t *testing.T) {
	b := make([]byte, 3*65536+5)
	Read(b)
	zeros := 0
	for _, c := range b {
		if c == 0 {
			zeros++
		}
	}
	// About 1/256 of random bytes are zero; far more means unfilled.
	if zeros > len(b)/100 {
		t.Errorf("%d of %d bytes are zero", zeros, len(b))
	}
}
