//go:build !js

package crypt

import "crypto/rand"

// Random fills b with bytes from the operating system's cryptographically
// secure generator. The native build may link the standard library's
// crypto; only the Worker's must not. crypto/rand.Read never fails: when
// the system cannot give randomness, it ends the program.
func Random(b []byte) {
	rand.Read(b)
}
