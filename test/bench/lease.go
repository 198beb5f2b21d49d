package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// leaseRounds is how many writes' locks row 10 takes, and its baseline as
// many pairs of requests.
const leaseRounds = 1000

// The note a write's release stores in row 10: a digest and a note as long
// as a write's would be (a hash and a memo's name with what the call did).
var (
	benchDigest = strings.Repeat("d", 64)
	benchNote   = `{"memo":"memos/bench0000000000000000","did":"updated","at":"2026-12-01T12:00:00Z"}`
)

// lockCost is row 10: what the memo lock costs one write, under workerd
// alone, the objects in SQLite on disk as production keeps them. A write
// takes the lock through lease.Remote and releases it storing a note (two
// requests to its Durable Object); the baseline is the same two requests,
// answered by the Worker in front of the object without it.
func lockCost(ctx context.Context, root, dir, compat string) (lock, self latency, err error) {
	front, err := os.ReadFile(filepath.Join(root, "test", "bench", "workers", "lock.mjs"))
	if err != nil {
		return lock, self, err
	}
	class, err := os.ReadFile(filepath.Join(root, "build", "lease.mjs"))
	if err != nil {
		return lock, self, fmt.Errorf("%w (make build first)", err)
	}
	wd, err := writeWorker(dir, "lock", "lock.mjs", compat, map[string][]byte{"lock.mjs": front, "lease.mjs": class}, "")
	if err != nil {
		return lock, self, err
	}
	wd.onDisk = true
	if _, _, err := dryRun(root, wd); err != nil {
		return lock, self, err
	}
	w, err := wd.workerd(root, compat, nil)
	if err != nil {
		return lock, self, err
	}
	defer w.Stop()
	if err := waitForLock(ctx, w); err != nil {
		return lock, self, err
	}
	progress("row 10: the memo lock, %d writes' acquire and release under workerd alone, beside as many pairs the Worker answers itself", leaseRounds)
	took := &call{name: "lock", client: keepAlive(1), check: func([]byte) error { return nil },
		send: func(ctx context.Context, client *http.Client) (int, []byte, error) {
			l, err := lease.Remote{Doer: lockDoer{w.URL, client}}.Lock(ctx, "memos/bench", time.Minute)
			if err != nil {
				return 0, nil, err
			}
			l.Release(benchDigest, benchNote)
			return 200, nil, nil
		}}
	answered := &call{name: "self", client: keepAlive(1), check: func([]byte) error { return nil },
		send: func(ctx context.Context, client *http.Client) (int, []byte, error) {
			d := lockDoer{w.URL + "/self", client}
			for _, op := range []string{`{"op":"acquire","hold":60000,"wait":15000}`, `{"op":"release","token":"` + strings.Repeat("0", 32) + `","digest":"` + benchDigest + `","note":` + fmt.Sprintf("%q", benchNote) + `}`} {
				if resp, err := d.Do(ctx, &web.Request{URL: "https://locks.invalid/memos%2Fbench", Body: []byte(op)}); err != nil || resp.Status != 200 {
					return 0, nil, fmt.Errorf("the Worker's own answer: %v %v", resp, err)
				}
			}
			return 200, nil, nil
		}}
	got := interleave(ctx, leaseRounds, warmRounds, took, answered)
	return got[0], got[1], nil
}

// waitForLock waits until the lock Worker and its object answer.
func waitForLock(ctx context.Context, w *worker) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		status, _, err := post(ctx, http.DefaultClient, w.URL+"/ready", `{"op":"release","token":"none"}`, nil)
		if err == nil && status == 200 {
			return nil
		}
		select {
		case <-w.Done():
			return fmt.Errorf("the lock Worker exited; its output:\n%s", w.Log())
		case <-ctx.Done():
			return fmt.Errorf("the lock Worker did not answer: %w; its output:\n%s", ctx.Err(), w.Log())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// lockDoer sends package lease's requests to the lock Worker at base.
type lockDoer struct {
	base   string
	client *http.Client
}

func (d lockDoer) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	status, body, err := harness.Post(ctx, d.client, d.base+req.Path(), string(req.Body), http.Header{"Content-Type": {"application/json"}})
	if err != nil {
		return nil, err
	}
	return &web.Response{Status: status, Header: web.Header{}, Body: body}, nil
}

// leaseOnly is `go run ./test/bench -lease`: row 10 alone, with no Memos.
func leaseOnly(ctx context.Context, w io.Writer) error {
	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	compat, err := compatibilityDate(root)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "memos-mcp-edge-bench-lease-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lock, self, err := lockCost(ctx, root, dir, compat)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "memo lock per write (acquire + release storing a note), workerd alone: %s\n", lock)
	fmt.Fprintf(w, "the same two requests answered by the Worker itself:                      %s\n", self)
	fmt.Fprintf(w, "ratio: %s\n", ratio(float64(lock.p50()), float64(self.p50())))
	return nil
}
