// Package crypt holds the cryptographic primitives the gateway's sealing and
// OAuth code need, and nothing else: SHA-256, HMAC-SHA256, HKDF-SHA256,
// XChaCha20-Poly1305, a constant-time comparison and random bytes.
//
// They are the project's own, written from the specifications (FIPS 180-4,
// RFC 2104, RFC 5869, RFC 8439 and draft-irtf-cfrg-xchacha) and tested
// against their vectors and against the standard library and
// golang.org/x/crypto. The reason is size: any standard-library crypto
// package brings the FIPS 140 module into the Worker's wasm, and with it
// os, reflect and the GODEBUG machinery. The Worker takes its randomness
// from the host's crypto.getRandomValues; the native build reads it through
// crypto/rand.
//
// Nothing here branches on or indexes memory by secret data.
package crypt

// Equal reports whether a and b hold the same bytes, in a time that depends
// on their lengths but not on their contents.
func Equal(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	var diff byte
	for i := range a {
		diff |= a[i] ^ b[i]
	}
	return diff == 0
}

// The byte orders of the specifications: SHA-256 is big-endian, ChaCha20
// and Poly1305 are little-endian.

func getBE32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func putBE32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func getLE32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func putLE32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getLE64(b []byte) uint64 {
	return uint64(getLE32(b)) | uint64(getLE32(b[4:]))<<32
}

func putLE64(b []byte, v uint64) {
	putLE32(b, uint32(v))
	putLE32(b[4:], uint32(v>>32))
}
