package mcp

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// noticingTools is fakeTools that tells each call to seen.
type noticingTools struct {
	fakeTools
	seen func()
}

func (n noticingTools) Call(ctx context.Context, name string, args rawjson.Value, auth string) ([]byte, error) {
	n.seen()
	return n.fakeTools.Call(ctx, name, args, auth)
}

// A request that only reads is served while its caller's check is under
// way (Options.Ahead), and answered once the check has ended: with the
// check's refusal, if any, in place of its answer. A tool that writes, a
// batch, a body that is not JSON (which Ahead learns from reads) and a
// request Ahead declines wait for Authorize, as before.
func TestAheadReadsBesideTheCheck(t *testing.T) {
	var (
		aheads, authorized atomic.Int32
		ended              atomic.Bool // the check of the request under way has ended
	)
	opts := Options{
		Name: "test-server", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096,
		Authorize: func(context.Context, *web.Request) (string, bool, *web.Response) {
			authorized.Add(1)
			ended.Store(true)
			return "Bearer back", false, nil
		},
		Ahead: func(ctx context.Context, req *web.Request, reads func() bool) (context.Context, string, func() *web.Response, bool) {
			auth := req.Header.Get("authorization")
			if auth == "Bearer fresh" || !reads() {
				return ctx, "", nil, false
			}
			aheads.Add(1)
			ended.Store(false)
			return ctx, "Bearer back", func() *web.Response {
				ended.Store(true)
				if auth == "Bearer gone" {
					return &web.Response{Status: 401, Header: web.Header{"www-authenticate": `Bearer error="invalid_token"`}, Body: []byte(`{"error":"invalid_token"}`)}
				}
				return nil
			}, true
		},
	}
	reads, writes := opts, opts
	reads.ReadOnlyTools = fakeTools{} // echo reads
	writes.ReadOnlyTools = readOnlyTools{}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	for _, tc := range []struct {
		name, auth, body string
		opts             Options
		ahead            bool   // Ahead admits it
		served           string // "ahead": the tool ran before the check ended; "after": after it; "": not at all
		status           int
		answer           string
	}{
		{name: "a read", auth: "Bearer back", body: call, opts: reads, ahead: true, served: "ahead", status: 200, answer: `Bearer back`},
		{name: "a read whose token is refused", auth: "Bearer gone", body: call, opts: reads, ahead: true, served: "ahead", status: 401, answer: `invalid_token`},
		{name: "a read Ahead declines", auth: "Bearer fresh", body: call, opts: reads, served: "after", status: 200, answer: `Bearer back`},
		{name: "a write", auth: "Bearer back", body: call, opts: writes, served: "after", status: 200, answer: `Bearer back`},
		{name: "a batch", auth: "Bearer back", body: "[" + call + "]", opts: reads, served: "after", status: 200, answer: `Bearer back`},
		{name: "a method that asks nothing", auth: "Bearer gone", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, opts: reads, ahead: true, status: 401, answer: `invalid_token`},
		{name: "not JSON", auth: "Bearer back", body: `{"jsonrpc":`, opts: reads, status: 400, answer: "parse error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aheads.Store(0)
			authorized.Store(0)
			ended.Store(false)
			ran, beforeEnd := false, false // the tool ran; before the check ended
			o := tc.opts
			o.Tools = noticingTools{seen: func() { ran, beforeEnd = true, !ended.Load() }}
			resp := NewHandler(o).Serve(t.Context(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(tc.body),
				Header: web.Header{"content-type": "application/json", "authorization": tc.auth, "mcp-protocol-version": "2025-03-26"}})
			if got := aheads.Load() > 0; got != tc.ahead {
				t.Errorf("Ahead admitted it: %v, want %v", got, tc.ahead)
			}
			served := ""
			if ran {
				served = "after"
				if beforeEnd {
					served = "ahead"
				}
			}
			if served != tc.served {
				t.Errorf("the tool ran %q, want %q", served, tc.served)
			}
			if !ended.Load() {
				t.Error("answered before the check ended")
			}
			if resp.Status != tc.status || !strings.Contains(string(resp.Body), tc.answer) {
				t.Errorf("%d %s", resp.Status, resp.Body)
			}
			if wantAuthorize := !tc.ahead; (authorized.Load() > 0) != wantAuthorize {
				t.Errorf("Authorize asked %d times", authorized.Load())
			}
		})
	}
}
