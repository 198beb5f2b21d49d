//go:build !(js && wasm)

package random

import "crypto/rand"

// Read fills b with random bytes. It never fails: without randomness
// crypto/rand ends the program.
func Read(b []byte) { rand.Read(b) }
