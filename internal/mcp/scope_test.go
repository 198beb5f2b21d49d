package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// readOnlyTools serves no tool: what a read-only grant gets of fakeTools,
// whose only tool, echo, stands for a tool that writes.
type readOnlyTools struct{}

func (readOnlyTools) Release(context.Context) int                                   { return 0 }
func (readOnlyTools) ListJSON(int) []byte                                           { return []byte(`[]`) }
func (readOnlyTools) Confirm(context.Context, string, rawjson.Value, string) string { return "" }

func (readOnlyTools) Call(context.Context, string, rawjson.Value, string) ([]byte, error) {
	return nil, errors.New("unknown tool")
}

// A read-only grant lists the read-only tools only, and a call to a tool
// that writes is refused with 403 and the insufficient_scope challenge; in
// a batch the message gets the error without the challenge.
func TestReadOnlyGrant(t *testing.T) {
	h := NewHandler(Options{
		Name: "test-server", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096, Tools: fakeTools{}, ReadOnlyTools: readOnlyTools{},
		Authorize: func(_ context.Context, req *web.Request) (string, bool, *web.Response) {
			return "Bearer memos", req.Header.Get("authorization") == "Bearer read-only", nil
		},
		ScopeChallenge: func(*web.Request) string { return `Bearer error="insufficient_scope", scope="memos:read memos:write"` },
	})
	post := func(auth, body string) *web.Response {
		return h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body),
			Header: web.Header{"content-type": "application/json", "authorization": auth, "mcp-protocol-version": "2025-03-26"}})
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	const unknown = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`
	for _, tc := range []struct {
		name, auth, body string
		status           int
		answer           string // a part of the body
		challenge        bool
	}{
		{name: "full grant lists", auth: "Bearer full", body: list, status: 200, answer: `"name":"echo"`},
		{name: "read-only grant lists", auth: "Bearer read-only", body: list, status: 200, answer: `{"tools":[]`},
		// Grants see different lists: neither may be reused under another
		// authorization.
		{name: "the full list is private", auth: "Bearer full", body: list, status: 200, answer: `"cacheScope":"private"`},
		{name: "the read-only list is private", auth: "Bearer read-only", body: list, status: 200, answer: `"cacheScope":"private"`},
		{name: "full grant calls", auth: "Bearer full", body: call, status: 200, answer: `"structuredContent"`},
		{name: "read-only grant calls a write tool", auth: "Bearer read-only", body: call, status: 403, answer: "insufficient scope", challenge: true},
		{name: "read-only grant calls an unknown tool", auth: "Bearer read-only", body: unknown, status: 200, answer: `unknown tool: \"nope\"`},
		{name: "in a batch", auth: "Bearer read-only", body: "[" + call + "]", status: 200, answer: "insufficient scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(tc.auth, tc.body)
			got := resp.Header.Get("www-authenticate")
			if resp.Status != tc.status || !strings.Contains(string(resp.Body), tc.answer) || (got != "") != tc.challenge {
				t.Errorf("%d %s, challenge %q", resp.Status, resp.Body, got)
			}
		})
	}
}

// When Memos refuses the credentials behind a token the gateway issued, the
// whole request is answered with the authorization server's 401, batch or
// not, so that the client renews its grant; a plain Memos token keeps the
// tool's error result, and a request without a tool call is served as ever.
func TestRevokedGrant(t *testing.T) {
	revoked := 0
	h := NewHandler(Options{
		Name: "test-server", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096, Tools: fakeTools{},
		AllowedOrigins: []string{"https://app.example.com"},
		Authorize: func(_ context.Context, req *web.Request) (string, bool, *web.Response) {
			if req.Header.Get("authorization") == "Bearer issued-dead" {
				return "Bearer deleted", false, nil
			}
			return req.Header.Get("authorization"), false, nil
		},
		Revoked: func(req *web.Request) *web.Response {
			revoked++
			if req.Header.Get("authorization") != "Bearer issued-dead" {
				return nil
			}
			return &web.Response{Status: 401, Header: web.Header{"www-authenticate": `Bearer error="invalid_token"`}, Body: []byte(`{"error":"invalid_token"}`)}
		},
	})
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, auth, body string
		status           int
		answer           string // a part of the body
		asked            int    // calls of Revoked
	}{
		{name: "issued token, Memos token deleted", auth: "Bearer issued-dead", body: call, status: 401, answer: "invalid_token", asked: 1},
		{name: "in a batch", auth: "Bearer issued-dead", body: "[" + list + "," + call + "]", status: 401, answer: "invalid_token", asked: 1},
		{name: "no tool call", auth: "Bearer issued-dead", body: list, status: 200, answer: `"name":"echo"`},
		{name: "plain Memos token refused", auth: "Bearer deleted", body: call, status: 200, answer: `"isError":true`, asked: 1},
		{name: "token accepted", auth: "Bearer fine", body: call, status: 200, answer: `"structuredContent"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			revoked = 0
			resp := h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(tc.body),
				Header: web.Header{"content-type": "application/json", "authorization": tc.auth, "mcp-protocol-version": "2025-03-26", "origin": "https://app.example.com"}})
			if resp.Status != tc.status || !strings.Contains(string(resp.Body), tc.answer) || revoked != tc.asked {
				t.Errorf("%d %s, Revoked asked %d times", resp.Status, resp.Body, revoked)
			}
			if tc.status == 401 && (resp.Header.Get("www-authenticate") == "" || resp.Header.Get("access-control-allow-origin") != "https://app.example.com") {
				t.Errorf("401 without the challenge or the endpoint's CORS fields: %v", resp.Header)
			}
		})
	}
}

// The instructions follow the tools a grant is served: a read-only grant,
// served no echo here, gets none, in initialize and in server/discover,
// whose result then may be reused only under the same authorization.
func TestInstructionsFollowTheGrant(t *testing.T) {
	h := NewHandler(Options{
		Name: "test-server", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096, Tools: fakeTools{}, ReadOnlyTools: readOnlyTools{},
		Authorize: func(_ context.Context, req *web.Request) (string, bool, *web.Response) {
			return "Bearer memos", req.Header.Get("authorization") == "Bearer read-only", nil
		},
		Instructions: func(served func(string) bool) string {
			if served("echo") {
				return "Use echo."
			}
			return ""
		},
	})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`
	const discover = `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, tc := range []struct {
		name, auth, body, version, want string
	}{
		{"initialize, full grant", "Bearer full", initialize, "", `"serverInfo":{"name":"test-server","version":"1"},"instructions":"Use echo."}`},
		{"initialize, read-only grant", "Bearer read-only", initialize, "", `"serverInfo":{"name":"test-server","version":"1"}}`},
		{"discover, full grant", "Bearer full", discover, "2026-07-28", `"instructions":"Use echo.","ttlMs":3600000,"cacheScope":"private"}`},
		{"discover, read-only grant", "Bearer read-only", discover, "2026-07-28", `"capabilities":{"tools":{}},"ttlMs":3600000,"cacheScope":"private"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := web.Header{"content-type": "application/json", "authorization": tc.auth}
			if tc.version != "" {
				header["mcp-protocol-version"], header["mcp-method"] = tc.version, "server/discover"
			}
			resp := h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(tc.body), Header: header})
			if resp.Status != 200 || !strings.HasSuffix(string(resp.Body), tc.want+"}") {
				t.Errorf("%d %s, want it to end with %s", resp.Status, resp.Body, tc.want)
			}
		})
	}
}

// unplacedTools have not learnt the instance's release: Release says
// when it begins.
type unplacedTools struct {
	fakeTools
	releasing chan struct{}
	asked     *int
}

func (unplacedTools) Placed() bool { return false }

func (u unplacedTools) Release(context.Context) int {
	if *u.asked++; *u.asked == 1 {
		close(u.releasing)
	}
	return 0
}

// On a cold isolate the release check goes out beside the caller check, not
// after it, and the tools are served in the release it learnt: the caller
// check sees the release check begin while it runs.
func TestReleaseCheckBesideCallerCheck(t *testing.T) {
	releasing, asked := make(chan struct{}), 0
	overlapped := false
	h := NewHandler(Options{
		Name: "test-server", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096,
		Tools: unplacedTools{releasing: releasing, asked: &asked},
		Authorize: func(context.Context, *web.Request) (string, bool, *web.Response) {
			select {
			case <-releasing:
				overlapped = true
			case <-time.After(5 * time.Second): // in series, it never comes
			}
			return "Bearer memos", false, nil
		},
	})
	resp := h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		Header: web.Header{"content-type": "application/json", "authorization": "Bearer x", "mcp-protocol-version": "2025-03-26"}})
	if resp.Status != 200 || !strings.Contains(string(resp.Body), `"name":"echo"`) || asked != 1 || !overlapped {
		t.Errorf("%d %s; the release asked %d times, beside the caller check: %v", resp.Status, resp.Body, asked, overlapped)
	}
}
