package upstream

import (
	"context"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The reads below serve the hand-written tools and MCP's resources and
// completions: GETs of Memos with the caller's credentials and the same
// headers, limits and explanations as a tool call's request.

// Failure is a request that Memos refused or never answered. Its message
// says why as a tool call's error would; its methods let the MCP handler
// (and package finder) tell Memos refusing the caller's credentials and
// Memos' rate limit apart without importing this package.
type Failure struct {
	Status  int // Memos' HTTP status; 0 when there was no answer
	msg     string
	refused bool
	wait    time.Duration // how long Memos asked to wait (its 429); 0 when it did not say
}

func (f *Failure) Error() string                     { return f.msg }
func (f *Failure) Refused() bool                     { return f.refused }
func (f *Failure) RetryAfter() (time.Duration, bool) { return f.wait, f.wait > 0 }

// ValidID reports whether id may stand as one segment of a Memos path: the
// rule that tool arguments naming a resource follow (letters, digits and
// -_.~@, not "." or "..").
func ValidID(id string) bool {
	_, err := pathID("id", id, "")
	return err == nil
}

// As returns the Memos instance as the caller with this Authorization sees
// it, for reads that are not tool calls (MCP's resources and completions).
func (c *Client) As(authorization string) finder.Memos {
	return memosAs{c: c, authorization: authorization}
}

// GetJSON reads path as As(authorization).Get does and parses the answer.
func (c *Client) GetJSON(ctx context.Context, route, path, authorization string) (rawjson.Value, error) {
	body, err := c.As(authorization).Get(ctx, route, path)
	if err != nil {
		return rawjson.Value{}, err
	}
	return rawjson.ParseBytes(body), nil
}

// memosAs is the Memos instance as one caller sees it: every request
// carries their Authorization. tool is the hand-written tool it serves, ""
// for a resource or a completion (the logs tell them apart; see exchange).
// Its errors are *Failure, which package finder reads through their
// methods.
type memosAs struct {
	c             *Client
	tool          string
	authorization string
}

// get is the one way a caller's read reaches Memos: it GETs path (already
// escaped; a query may follow), asking for accept. route is the path's
// template, which the log names instead of the path (whose ids are the
// caller's).
func (m memosAs) get(ctx context.Context, route, path, accept string) (*web.Response, *Failure) {
	authorization, ok := m.c.credentials(m.authorization)
	if !ok {
		return nil, &Failure{msg: errNeedsToken.Error()}
	}
	req := &web.Request{Method: "GET", URL: m.c.endpoint(path), Header: m.c.header(authorization)}
	req.Header["accept"] = accept
	return m.c.exchange(ctx, m.tool, "GET "+route, req, func() {})
}

// Get implements finder.Memos: an answer that is not JSON, or nests deeper
// than maxAnswerDepth, is a Failure too.
func (m memosAs) Get(ctx context.Context, route, path string) ([]byte, error) {
	resp, f := m.get(ctx, route, path, "application/json")
	if f != nil {
		return nil, f
	}
	if !rawjson.ValidBytesWithin(resp.Body, maxAnswerDepth) {
		msg, detail := m.c.notJSON(resp)
		return nil, failed(ctx, m.tool, "GET "+route, detail, &Failure{Status: resp.Status, msg: msg})
	}
	return resp.Body, nil
}

// File implements finder.Memos. The answer's size is capped by the Doer
// (MAX_RESPONSE_BYTES).
func (m memosAs) File(ctx context.Context, route, path string) ([]byte, string, error) {
	resp, f := m.get(ctx, route, path, "*/*")
	if f != nil {
		return nil, "", f
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
