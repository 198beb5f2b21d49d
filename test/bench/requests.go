package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
	"github.com/tidwall/gjson"
)

// The MCP requests the bench sends, in the 2025-06-18 era that SDK clients
// speak today: after initialize, every request carries the version header.
const (
	initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	listBody       = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func getMemoBody(name string) string {
	return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":` + strconv.Quote(name) + `}}}`
}

const listMemosBody = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{"pageSize":5}}}`

// bigListBody lists bigListMemos memos in one page: the large result of row 8.
var bigListBody = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{"pageSize":` + strconv.Itoa(bigListMemos) + `}}}`

// isMemoList accepts a memo_list_memos result, from the gateway (structured
// content) or from Memos itself, with n memos.
func isMemoList(n int) func([]byte) error {
	return func(body []byte) error {
		list := gjson.GetBytes(body, "result.structuredContent.memos.#")
		if !list.Exists() {
			list = gjson.GetBytes(body, "memos.#")
		}
		if list.Int() != int64(n) {
			return fmt.Errorf("%d memos, want %d: %.200s", list.Int(), n, body)
		}
		return nil
	}
}

// appsCaps declares MCP Apps, as a host of memo cards does.
const appsCaps = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`

// modernListBody is tools/list of 2026-07-28 from a client of capabilities
// caps.
func modernListBody(caps string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
}

// modernHeaders are the headers of modernListBody.
func modernHeaders(token string) http.Header {
	h := mcpHeaders(token)
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "tools/list")
	return h
}

// mcpHeaders are what an MCP client sends with every request after
// initialize, with the caller's Memos token.
var mcpHeaders = harness.MCPHeaders

// keepAlive returns a client with its own connection pool, big enough for
// conns connections that stay open between requests.
func keepAlive(conns int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
			DisableCompression: true,
		},
	}
}

// post sends body to url and reads the whole answer.
func post(ctx context.Context, client *http.Client, url, body string, header http.Header) (int, []byte, error) {
	if header == nil {
		header = http.Header{"Content-Type": {"application/json"}}
	}
	return harness.Post(ctx, client, url, body, header)
}

// get sends a GET with a bearer token and reads the whole answer.
func get(ctx context.Context, client *http.Client, url, token string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return harness.Do(client, req)
}

// call is one kind of request with the check its answer must pass.
type call struct {
	name   string
	send   func(ctx context.Context, client *http.Client) (int, []byte, error)
	check  func(body []byte) error
	client *http.Client
}

// run sends the request once on c's own client and checks the answer.
func (c *call) run(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	status, body, err := c.send(ctx, c.client)
	elapsed := time.Since(start)
	if err != nil {
		return elapsed, err
	}
	if status != 200 {
		return elapsed, fmt.Errorf("%s: HTTP %d: %.200s", c.name, status, body)
	}
	if err := c.check(body); err != nil {
		return elapsed, fmt.Errorf("%s: %w", c.name, err)
	}
	return elapsed, nil
}

// mcpCall posts an MCP request to url with the bench token.
func mcpCall(name, url, token, body string, check func([]byte) error) *call {
	header := mcpHeaders(token)
	return &call{name: name, check: check, client: keepAlive(1),
		send: func(ctx context.Context, client *http.Client) (int, []byte, error) {
			return post(ctx, client, url, body, header)
		}}
}

// isResult accepts a JSON-RPC answer with a result that is not a tool error.
func isResult(body []byte) error {
	r := gjson.ParseBytes(body)
	if e := r.Get("error"); e.Exists() {
		return fmt.Errorf("JSON-RPC error %s", e.Raw)
	}
	if !r.Get("result").IsObject() {
		return fmt.Errorf("no result: %.200s", body)
	}
	if r.Get("result.isError").Bool() {
		return fmt.Errorf("tool error: %.200s", r.Get("result.content.0.text").String())
	}
	return nil
}

// isMemo accepts a tools/call result whose structured content is the memo.
func isMemo(name string) func([]byte) error {
	return func(body []byte) error {
		if err := isResult(body); err != nil {
			return err
		}
		if got := gjson.GetBytes(body, "result.structuredContent.name").String(); got != name {
			return fmt.Errorf("structuredContent.name = %q, want %q: %.200s", got, name, body)
		}
		return nil
	}
}

// isMemoJSON accepts Memos' own answer for the memo.
func isMemoJSON(name string) func([]byte) error {
	return func(body []byte) error {
		if got := gjson.GetBytes(body, "name").String(); got != name {
			return fmt.Errorf("name = %q, want %q: %.200s", got, name, body)
		}
		return nil
	}
}

// hasLength accepts an answer of exactly n bytes.
func hasLength(n int) func([]byte) error {
	return func(body []byte) error {
		if len(body) != n {
			return fmt.Errorf("%d bytes, want %d", len(body), n)
		}
		return nil
	}
}
