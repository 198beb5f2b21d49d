package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// A tool call that Memos answered with 429 keeps its error result on HTTP
// 200, so that clients read it, and the answer's Retry-After says when Memos
// takes calls again (rounded up to whole seconds); other answers carry none.
func TestRetryAfterRelayed(t *testing.T) {
	h := testHandler()
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, auth, body string
		retryAfter       string
		answer           string // a part of the body
	}{
		{name: "rate-limited call", auth: "Bearer busy", body: call, retryAfter: "42", answer: `429 Too Many Requests`},
		{name: "rate-limited call in a batch", auth: "Bearer busy", body: "[" + list + "," + call + "]", retryAfter: "42", answer: `429 Too Many Requests`},
		{name: "call answered", auth: "Bearer fine", body: call, answer: `"structuredContent"`},
		{name: "no tool call", auth: "Bearer busy", body: list, answer: `"name":"echo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(tc.body),
				Header: web.Header{"content-type": "application/json", "authorization": tc.auth, "mcp-protocol-version": "2025-03-26"}})
			if resp.Status != 200 || !strings.Contains(string(resp.Body), tc.answer) || resp.Header.Get("retry-after") != tc.retryAfter {
				t.Errorf("%d %s, Retry-After %q, want 200 with %q", resp.Status, resp.Body, resp.Header.Get("retry-after"), tc.retryAfter)
			}
		})
	}
}
