// Package accesslog records what one request did and writes it as one JSON
// line when the request ends. It holds outcomes and names only: never a
// header, a token or an argument value.
package accesslog

import (
	"context"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Outcomes of a request.
const (
	OK            = "ok"             // answered as asked
	ToolError     = "tool_error"     // a tool call ended in an isError result
	ProtocolError = "protocol_error" // a JSON-RPC error
	Refused       = "refused"        // turned away before JSON-RPC (origin, host, size, media type…)
	Notification  = "notification"   // accepted with no answer
	Cancelled     = "cancelled"      // the client went away before the answer
	ServerError   = "server_error"   // a bug or a misconfiguration
	// Outcomes of the consent page's sign-in.
	CredentialsRefused = "credentials_refused" // Memos refused the password or the pasted token
	Limited            = "limited"             // past a sign-in budget: Memos was not asked
)

// Entry is the record of one request. Its methods are safe on a nil Entry,
// so code below the server need not check whether logging is on.
type Entry struct {
	mu             sync.Mutex
	start          time.Time
	path           string
	era            string // protocol version the request was served under
	method         string // JSON-RPC method
	tool           string
	upstreamStatus int
	outcome        string
}

type key struct{}

// Start returns a context carrying a new Entry for a request to path.
func Start(ctx context.Context, path string) (context.Context, *Entry) {
	e := &Entry{start: time.Now(), path: path}
	return context.WithValue(ctx, key{}, e), e
}

// From returns the Entry of ctx, or nil.
func From(ctx context.Context) *Entry {
	e, _ := ctx.Value(key{}).(*Entry)
	return e
}

// SetCall records the protocol version and method of a JSON-RPC request.
func (e *Entry) SetCall(era, method string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.era, e.method = era, method
	e.mu.Unlock()
}

// SetTool records the called tool's name.
func (e *Entry) SetTool(name string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.tool = name
	e.mu.Unlock()
}

// SetUpstream records the HTTP status Memos answered with.
func (e *Entry) SetUpstream(status int) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.upstreamStatus = status
	e.mu.Unlock()
}

// SetOutcome records how the request ended; the first outcome set wins, so
// the most specific code (deepest in the call) decides.
func (e *Entry) SetOutcome(outcome string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	if e.outcome == "" {
		e.outcome = outcome
	}
	e.mu.Unlock()
}

// Write writes the entry as one JSON line, with the HTTP status answered.
func (e *Entry) Write(w io.Writer, status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	outcome := e.outcome
	if outcome == "" {
		outcome = OK
		if status >= 500 {
			outcome = ServerError
		} else if status >= 400 {
			outcome = Refused
		}
	}
	b := make([]byte, 0, 192)
	b = append(b, `{"msg":"request","path":`...)
	b = rawjson.AppendString(b, e.path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = appendField(b, "era", e.era)
	b = appendField(b, "method", e.method)
	b = appendField(b, "tool", e.tool)
	if e.upstreamStatus != 0 {
		b = append(b, `,"upstreamStatus":`...)
		b = strconv.AppendInt(b, int64(e.upstreamStatus), 10)
	}
	b = appendField(b, "outcome", outcome)
	b = append(b, `,"durationMs":`...)
	b = appendMillis(b, time.Since(e.start))
	b = append(b, "}\n"...)
	w.Write(b)
}

// appendMillis writes d in milliseconds to a tenth (8.999 ms is 9, 0.25 ms
// is 0.3): the Workers clock is coarse, and finer digits are noise.
func appendMillis(b []byte, d time.Duration) []byte {
	tenths := (d.Microseconds() + 50) / 100
	b = strconv.AppendInt(b, tenths/10, 10)
	if tenths%10 != 0 {
		b = append(b, '.', byte('0'+tenths%10))
	}
	return b
}

func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return rawjson.AppendString(b, value)
}
