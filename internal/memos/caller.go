package memos

import (
	"context"
	"strconv"
	"strings"
	"unicode"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Caller is the Memos instance as one caller sees it: every request carries
// their Authorization. It serves the hand-written tools and MCP's resources
// and completions: GETs (and memo_edit's PATCH) with the same headers,
// limits and explanations as a tool call's request.
type Caller struct {
	c             *Client
	authorization string
	// Tool is the hand-written tool the reads serve, for the log; "" for a
	// resource or a completion.
	Tool string
}

// As returns the instance as the caller with this Authorization sees it.
func (c *Client) As(authorization string) Caller { return Caller{c: c, authorization: authorization} }

// MaxAnswerDepth bounds how deep arrays and objects may nest in an answer
// from Memos, whose own nest a few levels deep. Clients parse a result by
// recursion and refuse JSON nested deeper than theirs can go (the Go SDK at
// 1,000 levels, Python's json module near its recursion limit of 1,000),
// and the session they closed over one answer would end.
const MaxAnswerDepth = 512

// Get asks Memos' API for path (escaped, with its query) and returns the
// body of a successful answer, which is JSON nested at most MaxAnswerDepth
// deep; anything else is an *Error. route is the path's template, for the
// log, which never gets argument values.
func (m Caller) Get(ctx context.Context, route, path string) ([]byte, error) {
	return m.json(ctx, m.request("GET", route, path, ""))
}

// Patch sends body, JSON, to path (escaped, with its query) with PATCH and
// returns the answer as Get does.
func (m Caller) Patch(ctx context.Context, route, path string, body []byte) ([]byte, error) {
	r := m.request("PATCH", route, path, "")
	r.Body = body
	return m.json(ctx, r)
}

// Delete sends DELETE to path (escaped) and returns Memos' failure, if
// any.
func (m Caller) Delete(ctx context.Context, route, path string) error {
	_, err := m.c.Send(ctx, m.request("DELETE", route, path, ""))
	return err
}

// json sends r and returns its answer, which must be JSON.
func (m Caller) json(ctx context.Context, r Request) ([]byte, error) {
	resp, err := m.c.Send(ctx, r)
	if err != nil {
		return nil, err
	}
	if !rawjson.ValidBytesWithin(resp.Body, MaxAnswerDepth) {
		return nil, m.c.NotJSON(r, resp)
	}
	return resp.Body, nil
}

// GetJSON reads path as Get does and parses the answer.
func (m Caller) GetJSON(ctx context.Context, route, path string) (rawjson.Value, error) {
	body, err := m.Get(ctx, route, path)
	if err != nil {
		return rawjson.Value{}, err
	}
	return rawjson.ParseBytes(body), nil
}

// File downloads a file (an attachment's bytes) from path and returns them
// with their content type. The answer's size is capped by the Doer
// (MAX_RESPONSE_BYTES).
func (m Caller) File(ctx context.Context, route, path string) ([]byte, string, error) {
	resp, err := m.c.Send(ctx, m.request("GET", route, path, "*/*"))
	if err != nil {
		return nil, "", err
	}
	return resp.Body, resp.Header.Get("content-type"), nil
}

// WebURL is the address of the Memos web app, without a final slash, for
// links people can open; "" when unknown (behind a service binding).
func (m Caller) WebURL() string { return m.c.WebURL() }

func (m Caller) request(method, route, path, accept string) Request {
	return Request{Method: method, Path: path, Accept: accept, Authorization: m.authorization, Tool: m.Tool, Route: method + " " + route}
}

// CheckID says what keeps id from standing as one segment of a Memos path,
// "" when nothing does: ids are letters, digits and -_.~@, and not "." or
// "..". Refusing everything that has a meaning in a URL (%, ?, #, :, ;, \,
// /, spaces, control characters) keeps a path's shape fixed even behind
// proxies that decode twice.
func CheckID(id string) string {
	switch {
	case id == "":
		return "must not be empty"
	case id == "." || id == "..":
		return "must be an id, not " + strconv.Quote(id)
	}
	for _, r := range id {
		if !idRune(r) {
			return "must not contain " + strconv.QuoteRune(r) + ": ids are letters, digits, '-', '_', '.', '~' and '@'"
		}
	}
	return ""
}

// ValidID reports whether id may stand as one segment of a Memos path.
func ValidID(id string) bool { return CheckID(id) == "" }

// idRune reports whether r may appear in an id.
func idRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.~@", r)
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
