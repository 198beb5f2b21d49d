//go:build e2e

// Package e2e drives the gateway end to end: a fresh Memos v0.30.0 built from
// the pinned module, the Worker under wrangler dev (workerd) on loopback, and
// real MCP clients. Run it with `make test`, which builds what it needs.
package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The parts every test shares, started once by TestMain.
var (
	root   string
	memos  *harness.Memos
	worker *harness.Worker
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	var err error
	if root, err = harness.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bin, err := harness.MemosBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "memos-mcp-edge-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if memos, err = harness.StartMemos(ctx, bin, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer memos.Stop()
	installTokenScan()
	worker, err = harness.StartWorker(ctx, harness.WorkerOptions{
		Root: root, Dir: dir, Vars: map[string]string{"MEMOS_URL": memos.URL, "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer worker.Stop()
	code := m.Run()
	// Runs after the last test: the token must have shown up nowhere.
	if checkTokenHygiene() != 0 {
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- wrangler output:\n%s\n--- memos output:\n%s\n", worker.Log(), memos.Log())
	}
	return code
}

// bearer is an http.Client that adds the test token to every request.
func bearer(token string) *http.Client {
	return &http.Client{Transport: addHeader{next: http.DefaultTransport, name: "Authorization", value: "Bearer " + token}}
}

type addHeader struct {
	next        http.RoundTripper
	name, value string
}

func (a addHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(a.name, a.value)
	return a.next.RoundTrip(r)
}
