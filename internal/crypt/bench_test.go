package crypt

import "testing"

// An access token's size: what the gateway opens on every /mcp request
// that carries one.
func BenchmarkOpen(b *testing.B) {
	random := filler(10)
	key, nonce := [KeySize]byte(random(KeySize)), [NonceSize]byte(random(NonceSize))
	box := Seal(nil, &key, &nonce, random(150), []byte("access"))
	buf := make([]byte, 0, len(box))
	for b.Loop() {
		if _, err := Open(buf, &key, &nonce, box, []byte("access")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSum256(b *testing.B) {
	data := filler(11)(64)
	for b.Loop() {
		Sum256(data)
	}
}
