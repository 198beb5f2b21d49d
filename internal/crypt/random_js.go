//go:build js && wasm

package crypt

import "syscall/js"

// maxRandomChunk is the most getRandomValues gives in one call (Web Crypto
// throws a QuotaExceededError past 65,536 bytes).
const maxRandomChunk = 65536

// Random fills b with bytes from the host's cryptographically secure
// generator, Web Crypto's crypto.getRandomValues. It panics when the host
// has none or it fails: a predictable nonce or token would be worse than
// no answer, and the request's panic backstop turns it into a 500.
func Random(b []byte) {
	crypto := js.Global().Get("crypto")
	if !crypto.Truthy() {
		panic("crypt: the host has no crypto.getRandomValues")
	}
	uint8Array := js.Global().Get("Uint8Array")
	for len(b) > 0 {
		n := min(len(b), maxRandomChunk)
		chunk := uint8Array.New(n)
		crypto.Call("getRandomValues", chunk) // panics with the host's error
		if js.CopyBytesToGo(b[:n], chunk) != n {
			panic("crypt: crypto.getRandomValues gave too few bytes")
		}
		b = b[n:]
	}
}
