package memos

import (
	"context"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// testReleases are the releases the test client's tools are built for.
var testReleases = []Release{{Version: "v0.30.0"}, {Version: "v0.31.0", Marker: "/api/v1/users/-/views"}}

func testOptions() Options {
	return Options{URL: "https://memos.example.com", Host: "memos.example.com", MaxResponseBytes: 1 << 20, Timeout: 5 * time.Second, Releases: testReleases}
}

// fakeDoer answers every request with resp, or fails it with err, and
// records it.
type fakeDoer struct {
	mu   sync.Mutex
	reqs []*web.Request
	resp *web.Response
	err  error
}

func (f *fakeDoer) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return f.resp, nil
}

func (f *fakeDoer) requests() []*web.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs
}
