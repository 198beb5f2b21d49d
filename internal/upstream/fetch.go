package upstream

import (
	"context"
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The calls below serve MCP's resources and completions: reads of Memos that
// are not tools, with the same credentials, headers, limits and
// explanations as a tool call.

// Failure is a read that Memos refused or never answered. Its message says
// why as a tool call's error would; its methods let the MCP handler tell
// Memos refusing the caller's credentials and Memos' rate limit apart
// without importing this package.
type Failure struct {
	Status  int // Memos' HTTP status; 0 when there was no answer
	msg     string
	refused bool
	wait    time.Duration
	limited bool
}

func (f *Failure) Error() string                     { return f.msg }
func (f *Failure) Refused() bool                     { return f.refused }
func (f *Failure) RetryAfter() (time.Duration, bool) { return f.wait, f.limited }

// ValidID reports whether id may stand as one segment of a Memos path: the
// rule that tool arguments naming a resource follow (letters, digits and
// -_.~@, not "." or "..").
func ValidID(id string) bool {
	_, err := pathID("id", id, "")
	return err == nil
}

// GetJSON reads path (already escaped; a query may follow) from Memos with
// the caller's authorization and returns its JSON answer. route is the
// path's template, which the log names instead of the path (whose ids are
// the caller's).
func (c *Client) GetJSON(ctx context.Context, route, path, authorization string) (rawjson.Value, error) {
	body, _, err := c.Get(ctx, route, path, authorization, "application/json")
	if err != nil {
		return rawjson.Value{}, err
	}
	if !rawjson.ValidBytesWithin(body, maxAnswerDepth) {
		msg, detail := c.notJSON(&web.Response{Status: 200, Body: body})
		logline.Print("read ", route, ": ", detail)
		return rawjson.Value{}, &Failure{Status: 200, msg: msg}
	}
	return rawjson.ParseBytes(body), nil
}

// Get reads path from Memos as GetJSON does and returns the answer's body
// and content type as they are, for a file. Its size is capped by the
// Doer (MAX_RESPONSE_BYTES).
func (c *Client) Get(ctx context.Context, route, path, authorization, accept string) (body []byte, contentType string, err error) {
	entry := accesslog.From(ctx)
	if !hasToken(authorization) {
		authorization = ""
	}
	if authorization == "" && c.cfg.AccessClientID != "" {
		return nil, "", &Failure{msg: errNeedsToken.Error()}
	}
	header := c.header(authorization)
	header["accept"] = accept
	resp, err := c.doer.Do(ctx, &web.Request{Method: "GET", URL: c.endpoint(path), Header: header, Timeout: c.cfg.Timeout})
	if err != nil {
		if ctx.Err() != nil {
			entry.SetOutcome(accesslog.Cancelled)
		}
		logline.Print("read ", route, ": no answer")
		return nil, "", &Failure{msg: c.failure(ctx, err)}
	}
	entry.SetUpstream(resp.Status)
	if resp.Status >= 200 && resp.Status <= 299 {
		return resp.Body, resp.Header.Get("content-type"), nil
	}
	msg, detail := c.refusal(resp)
	logline.Print("read ", route, ": HTTP ", strconv.Itoa(resp.Status), ": ", detail)
	f := &Failure{Status: resp.Status, msg: msg, refused: resp.Status == 401 && memosJSON(resp.Body)}
	if resp.Status == 429 {
		if f.wait, f.limited = retryAfter(resp, time.Now()); f.limited {
			f.wait = max(f.wait, time.Second)
			f.msg += " (retry after " + waitText(f.wait) + ")"
		}
	}
	return nil, "", f
}
