package upstream

import (
	"context"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// UseZoneOffsets sets how the hand-written tools learn time zone offsets
// (the Worker's runtime knows the zones; Go there would need time/tzdata).
func (c *Client) UseZoneOffsets(f finder.OffsetFunc) { c.finder.Offsets = f }

// callFinder runs a hand-written tool: its arguments are checked against
// its input schema as any tool's are, then package finder runs it with the
// caller's credentials.
func (c *Client) callFinder(ctx context.Context, t *tool, args rawjson.Value, authorization string) (result []byte, refused bool, wait time.Duration) {
	entry := accesslog.From(ctx)
	a, err := c.arguments(t, args)
	if err != nil {
		entry.SetOutcome(accesslog.ToolError)
		return errorResult(err.Error()), false, 0
	}
	result, f, _ := c.finder.Call(ctx, t.def.Name, a.values, memosAs{c: c, tool: t.def.Name, authorization: authorization})
	if f != nil {
		entry.SetOutcome(accesslog.ToolError)
		return errorResult(f.Msg), f.Refused, f.Wait
	}
	return result, false, 0
}

// memosAs is the Memos instance as one caller of a hand-written tool sees
// it: every request carries their Authorization.
type memosAs struct {
	c             *Client
	tool          string
	authorization string
}

func (m memosAs) get(ctx context.Context, route, path, accept string) (*web.Response, error) {
	req := &web.Request{Method: "GET", URL: m.c.endpoint(path), Header: m.c.header(m.authorization)}
	req.Header["accept"] = accept
	resp, f := m.c.exchange(ctx, m.tool, "GET "+route, req, func() {})
	if f != nil {
		return nil, f
	}
	return resp, nil
}

// Get implements finder.Memos.
func (m memosAs) Get(ctx context.Context, route, path string) ([]byte, error) {
	resp, err := m.get(ctx, route, path, "application/json")
	if err != nil {
		return nil, err
	}
	if !memosJSON(resp.Body) {
		accesslog.From(ctx).SetOutcome(accesslog.ToolError)
		msg, detail := m.c.notJSON(resp)
		logline.Print("tool ", m.tool, ": GET ", route, ": ", detail)
		return nil, &finder.Failure{Msg: msg}
	}
	return resp.Body, nil
}

// File implements finder.Memos.
func (m memosAs) File(ctx context.Context, route, path string) ([]byte, string, error) {
	resp, err := m.get(ctx, route, path, "*/*")
	if err != nil {
		return nil, "", err
	}
	return resp.Body, resp.Header.Get("content-type"), nil
}

// WebURL implements finder.Memos: MEMOS_URL, which is where people open
// the instance too; unknown behind a service binding.
func (m memosAs) WebURL() string {
	if m.c.cfg.MemosURL == nil {
		return ""
	}
	return strings.TrimSuffix(m.c.cfg.MemosURL.String(), "/")
}
