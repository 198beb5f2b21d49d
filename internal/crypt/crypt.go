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
