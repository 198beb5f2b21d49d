//go:build js && wasm

package random

import "syscall/js"

// maxRead is the most getRandomValues fills in one call (Web Crypto's
// limit).
const maxRead = 65536

var webCrypto = js.Global().Get("crypto")

// Read fills b with random bytes from the runtime. It never fails: the
// runtime throws only for more than maxRead bytes at once, which Read
// splits, and a runtime without Web Crypto cannot run the Worker.
func Read(b []byte) {
	for len(b) > 0 {
		n := min(len(b), maxRead)
		a := js.Global().Get("Uint8Array").New(n)
		webCrypto.Call("getRandomValues", a)
		js.CopyBytesToGo(b[:n], a)
		b = b[n:]
	}
}
