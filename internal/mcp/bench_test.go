package mcp

import (
	"context"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Per-request cost of the dispatcher, without any tool work.
func BenchmarkServe(b *testing.B) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	for _, bc := range []struct {
		name   string
		header web.Header
		body   string
	}{
		{"initialize", web.Header{}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`},
		{"tools_list_legacy", web.Header{"mcp-protocol-version": "2025-06-18"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"tools_list_2026", web.Header{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`},
		{"tools_call_2026", web.Header{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo", "authorization": "Bearer x"},
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"memo":"memos/abc"},` + meta + `}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := testHandler()
			bc.header["content-type"] = "application/json"
			bc.header["accept"] = "application/json, text/event-stream"
			req := &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Header: bc.header, Body: []byte(bc.body)}
			b.ReportAllocs()
			for b.Loop() {
				if resp := h.Serve(context.Background(), req); resp.Status != 200 {
					b.Fatalf("%d %s", resp.Status, resp.Body)
				}
			}
		})
	}
}
