//go:build !js

package bridge

import (
	"context"
	"crypto/sha256"
)

// SHA256 returns the SHA-256 of data.
func SHA256(_ context.Context, data []byte) ([]byte, error) {
	sum := sha256.Sum256(data)
	return sum[:], nil
}
