package main

import (
	"context"
	"io"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/mcp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/server"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/tools"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// cannedMemo answers every upstream request with one memo, at once, so that
// only the gateway's own work is measured.
type cannedMemo struct{}

func (cannedMemo) Do(context.Context, *web.Request) (*web.Response, error) {
	return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(benchMemoJSON)}, nil
}

// benchMemoJSON is a memo as Memos v0.30.0 answers GET /api/v1/memos/{id}.
const benchMemoJSON = `{"name":"memos/WzA94DYwBMfY2W8sCS2YBn","state":"NORMAL","creator":"users/admin",` +
	`"createTime":"2026-11-29T12:08:50Z","updateTime":"2026-11-29T12:08:50Z","content":"hello #bench",` +
	`"visibility":"PRIVATE","tags":["bench"],"pinned":false,"attachments":[],"relations":[],"reactions":[],` +
	`"property":{"hasLink":false,"hasTaskList":false,"hasCode":false,"hasIncompleteTasks":false,"title":""},"snippet":"hello #bench"}`

// newHandler wires the gateway as main.go does, with Memos replaced by
// cannedMemo and the access log discarded.
func newHandler(tb testing.TB) web.Handler {
	env := map[string]string{"MEMOS_URL": "http://127.0.0.1:5230"}
	cfg, err := config.Load(func(k string) string { return env[k] }, func(string) bool { return false })
	if err != nil {
		tb.Fatal(err)
	}
	instance := memos.New(memos.Options{URL: cfg.MemosURL.String(), Timeout: cfg.Timeout, MaxResponseBytes: cfg.MaxRespBytes, Release: registry.MemosVersion()}, cannedMemo{})
	tools := tools.New(instance, finder.Finder{})
	return server.New(server.Options{
		Config: cfg,
		MCP: mcp.NewHandler(mcp.Options{
			Name: "memos-mcp-edge", Version: "bench", Tools: tools, AllowedOrigins: cfg.AllowedOrigins,
			MaxBodyBytes: cfg.MaxBodyBytes, MaxResponseBytes: cfg.MaxRespBytes,
		}),
		MemosVersion: registry.MemosVersion(),
		ToolCount:    len(registry.All()),
		Probe:        instance.Health,
		AccessLog:    io.Discard, // formatted as in the Worker, written nowhere
	})
}

// benchRequests are the requests of `make bench` row 6, in the legacy era
// that SDK clients speak today. The Node driver (wasmcpu.mjs) sends the same.
var benchRequests = []struct{ name, body string }{
	{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`},
	{"tools_list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
	{"tools_call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":"memos/WzA94DYwBMfY2W8sCS2YBn"}}}`},
}

// BenchmarkHandler is the native side of row 6: the whole request path
// (routing, MCP, argument validation, request building, result shaping) per
// request, natively, with no time spent waiting for Memos.
func BenchmarkHandler(b *testing.B) {
	for _, bc := range benchRequests {
		b.Run(bc.name, func(b *testing.B) {
			h := newHandler(b)
			req := &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(bc.body), Header: web.Header{
				"content-type": "application/json", "accept": "application/json, text/event-stream",
				"mcp-protocol-version": "2025-06-18", "authorization": "Bearer memos_pat_bench",
			}}
			resp := h.Serve(context.Background(), req)
			if resp.Status != 200 || gjson.GetBytes(resp.Body, "error").Exists() {
				b.Fatalf("%d %s", resp.Status, resp.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				h.Serve(context.Background(), req)
			}
		})
	}
}
