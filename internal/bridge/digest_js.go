//go:build js && wasm

package bridge

import (
	"context"
	"errors"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// SHA256 returns the SHA-256 of data, as the runtime's Web Crypto computes
// it (crypto.subtle.digest, which is asynchronous: it crosses as an
// upstream request of ctx's request to the binding digestBinding, which
// the entry module answers itself). Go's own crypto/sha256 would link the
// standard library's FIPS 140 module into the wasm: about 110 KB of gzip.
func SHA256(ctx context.Context, data []byte) ([]byte, error) {
	resp, err := Fetcher{Binding: digestBinding, MaxBytes: 32}.Do(ctx, &web.Request{Method: "POST", URL: "digest:SHA-256", Body: data})
	if err != nil {
		return nil, err
	}
	if resp.Status != 200 || len(resp.Body) != 32 {
		return nil, errors.New("digest: the runtime answered " + string(resp.Body))
	}
	return resp.Body, nil
}

// digestBinding is the binding name the entry module answers with the
// SHA-256 of the request's body (worker.mjs).
const digestBinding = "digest:SHA-256"
