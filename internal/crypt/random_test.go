package crypt

import (
	"bytes"
	"testing"
)

// Random fills the whole buffer, past getRandomValues' 65,536-byte chunks,
// and never the same way twice. Natively this tests the crypto/rand twin;
// TestRandomUnderNode runs it in js/wasm.
func TestRandom(t *testing.T) {
	const n = 3*65536 + 100
	a, b := make([]byte, n), make([]byte, n)
	Random(a)
	Random(b)
	if bytes.Equal(a, b) {
		t.Fatal("two calls gave the same bytes")
	}
	zero := make([]byte, 32)
	for i := 0; i+len(zero) <= n; i += len(zero) {
		if bytes.Equal(a[i:i+len(zero)], zero) {
			t.Fatalf("bytes %d to %d were left unwritten", i, i+len(zero))
		}
	}
}
