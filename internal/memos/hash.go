package memos

import "golang.org/x/crypto/blake2b"

// ContentHash is the short hash of a memo's content that the gateway's read
// results carry and its writes take as a precondition: a write whose
// contentHash is not the memo's current one was made from a stale copy.
// Twelve hex digits (48 bits) tell two versions of one memo apart; they
// are no defence against anyone, who could simply read the memo.
func ContentHash(content string) string {
	h := blake2b.Sum256([]byte(content))
	const digits = "0123456789abcdef"
	b := make([]byte, 12)
	for i, c := range h[:6] {
		b[2*i], b[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(b) // not encoding/hex, which links fmt and os into the wasm
}
