package memos

import (
	"crypto/sha256"
	"encoding/hex"
)

// ContentHash is the short hash of a memo's content that the gateway's read
// results carry and its writes take as a precondition: a write whose
// contentHash is not the memo's current one was made from a stale copy.
// Twelve hex digits (48 bits) tell two versions of one memo apart; they
// are no defence against anyone, who could simply read the memo.
func ContentHash(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:6])
}
