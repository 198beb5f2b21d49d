package mcp

import (
	"bytes"
	"context"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The handler records era, method and outcome of each request in its access
// log entry; the tool name is recorded by the tool surface itself.
func TestAccessLogFields(t *testing.T) {
	for _, tc := range []struct {
		name    string
		header  web.Header
		body    string
		want    map[string]string
		noField string
	}{
		{name: "tools/list", header: web.Header{"mcp-protocol-version": "2025-06-18"}, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			want: map[string]string{"era": "2025-06-18", "method": "tools/list", "outcome": "ok"}},
		{name: "unknown tool", header: web.Header{"mcp-protocol-version": "2025-11-25"}, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`,
			want: map[string]string{"method": "tools/call", "outcome": "protocol_error"}, noField: "tool"},
		{name: "2026 header mismatch", header: web.Header{"mcp-protocol-version": "2026-07-28", "mcp-method": "ping"},
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			want: map[string]string{"era": "2026-07-28", "method": "tools/list", "outcome": "protocol_error", "status": "400"}},
		{name: "notification", header: web.Header{}, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			want: map[string]string{"outcome": "notification", "status": "202"}},
		{name: "parse error", header: web.Header{}, body: `{`, want: map[string]string{"outcome": "protocol_error", "status": "400"}},
		{name: "the caller's method name is not logged", header: web.Header{"mcp-protocol-version": "2025-06-18"}, body: `{"jsonrpc":"2.0","id":1,"method":"secret-text"}`,
			want: map[string]string{"method": "other", "outcome": "protocol_error"}},
		{name: "the caller's version is not logged", header: web.Header{"mcp-protocol-version": "secret-version"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			want: map[string]string{"era": "other", "method": "ping"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, entry := accesslog.Start(context.Background(), "/mcp")
			tc.header["content-type"] = "application/json"
			resp := testHandler().Serve(ctx, &web.Request{Method: "POST", URL: "http://127.0.0.1/mcp", Header: tc.header, Body: []byte(tc.body)})
			var buf bytes.Buffer
			entry.Write(&buf, resp.Status)
			for k, v := range tc.want {
				if got := gjson.Get(buf.String(), k).String(); got != v {
					t.Errorf("%s = %q, want %q: %s", k, got, v, buf.String())
				}
			}
			if tc.noField != "" && gjson.Get(buf.String(), tc.noField).Exists() {
				t.Errorf("%s recorded: %s", tc.noField, buf.String())
			}
		})
	}
}
