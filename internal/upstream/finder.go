package upstream

import (
	"context"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
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
