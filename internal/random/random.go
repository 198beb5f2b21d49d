// Package random gives the gateway's secret randomness: nonces, codes and
// ids no one may guess. In the Worker it is the runtime's own source
// (crypto.getRandomValues of Web Crypto); natively, crypto/rand. The
// standard library's crypto/rand is left out of the wasm because it brings
// Go's FIPS 140 module along (its DRBG, AES and their self-tests, and os):
// about 110 KB of gzip and 60 ms of every cold start, for bytes the runtime
// gives anyway.
package random

// Text returns 26 random characters of the base32 alphabet (130 bits), as
// crypto/rand.Text does: an id no one can guess.
func Text() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 26)
	Read(b)
	for i := range b {
		b[i] = alphabet[b[i]&31]
	}
	return string(b)
}
