// Package upstream runs tool calls against the Memos API: it turns a tool
// and its arguments into one request to the instance and the answer into an
// MCP tool result.
package upstream

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// Client serves the registry's tools, calling Memos through a web.Doer.
type Client struct {
	cfg  config.Config
	doer web.Doer
}

// New returns a Client for cfg, sending requests through doer.
func New(cfg config.Config, doer web.Doer) *Client { return &Client{cfg: cfg, doer: doer} }

// endpoint returns the absolute URL of an API path. Through a service
// binding only the path matters, so a placeholder host stands in when
// MEMOS_URL is unset.
func (c *Client) endpoint(path string) string {
	if c.cfg.MemosURL == nil {
		return "https://memos.invalid" + path
	}
	return c.cfg.MemosURL.String() + path
}

// ListJSON returns the registry's prepared tools array.
func (c *Client) ListJSON() []byte { return registry.ListJSON() }

// Call runs the named tool. Execution against Memos is not wired yet: every
// known tool answers with a tool error saying so.
func (c *Client) Call(ctx context.Context, name string, args gjson.Result, authorization string) ([]byte, bool) {
	if _, ok := registry.Lookup(name); !ok {
		return nil, false
	}
	return errorResult("tool execution is not available in this build yet"), true
}

// errorResult is a CallToolResult that reports a failure to the model.
func errorResult(msg string) []byte {
	b := []byte(`{"content":[{"type":"text","text":`)
	b = gjson.AppendJSONString(b, msg)
	return append(b, `}],"isError":true}`...)
}
