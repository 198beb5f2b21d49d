// Package finder holds the tools written by hand rather than generated from
// Memos' OpenAPI document: memo_search, tag_list, ChatGPT's search and
// fetch, attachment_read, and memo_edit, which changes part of a memo
// without losing what the person changed. Each compiles its arguments into
// a few Memos requests (at most memosRequests) and shapes the answers for a
// model: small, never Memos' whole objects; those of the finding tools
// (memo_search, tag_list, search, fetch) are JSON sent once, as text.
//
// The registry lists these tools beside the generated ones (Tools), and
// the tool executor validates their arguments with the same schemas and
// errors, then runs them with a Memos to ask.
package finder

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Memos is the instance as the caller sees it: every request goes with the
// caller's own credentials (memos.Caller). Its errors say what to tell the
// caller; Memos' own are *memos.Error.
type Memos interface {
	// Get asks Memos' API for path (with its query) and returns the body
	// of a successful answer, which is JSON. route is the path's template,
	// for the log, which never gets argument values.
	Get(ctx context.Context, route, path string) ([]byte, error)
	// Patch sends body, JSON, to path with PATCH and returns the body of
	// a successful answer, which is JSON, as Get does.
	Patch(ctx context.Context, route, path string, body []byte) ([]byte, error)
	// File downloads a file (an attachment's bytes) from path and returns
	// them with their content type.
	File(ctx context.Context, route, path string) (body []byte, contentType string, err error)
	// WebURL is the address of the Memos web app, without a final slash,
	// for links to memos people can open; "" when unknown.
	WebURL() string
	// Others says who the caller is and whether LOCKDOWN keeps other
	// users' memos out; it asks Memos at most once (GET /api/v1/auth/me).
	Others(ctx context.Context) (memos.Others, error)
}

// fail is an error of the call itself, such as a bad argument.
func fail(msg string) error { return errors.New(msg) }

// Finder runs the hand-written tools.
type Finder struct {
	// Offsets gives time zone offsets; nil knows UTC only. (A default of
	// GoOffsets would link time.LoadLocation into the wasm, where it cannot
	// work without time/tzdata.)
	Offsets OffsetFunc
	// Now is the present; nil is time.Now.
	Now func() time.Time
	// Zone is the IANA time zone of days and times when a call names
	// none (TIMEZONE); "" is UTC.
	Zone string
	// Locks are the memos' locks, which every write of a memo takes
	// (package writes): without them memo_edit refuses to write.
	Locks lease.Locker
}

func (f *Finder) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Finder) offsets() OffsetFunc {
	if f.Offsets != nil {
		return f.Offsets
	}
	return func(string, time.Time) (int, bool) { return 0, false }
}

// zone is the time zone called name, or the deployment's when name is "".
func (f *Finder) zone(name string) (zone, error) {
	if name == "" {
		name = f.Zone
	}
	return loadZone(name, f.offsets())
}

// memosRequests is the most Memos requests one call of these tools makes:
// memo_edit's read, who the caller is (which the caller check answers in
// the Worker), the write and the read-back of an unclear write.
const memosRequests = 4

// str returns a string argument, "" when absent.
func str(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

// flag returns a boolean argument, nil when absent.
func flag(args map[string]any, name string) *bool {
	b, ok := args[name].(bool)
	if !ok {
		return nil
	}
	return &b
}

// integer returns an integer argument within [lo, hi]; def when absent.
func integer(args map[string]any, name string, lo, hi, def int64) (int64, error) {
	v, ok := args[name].(rawjson.Numeral)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fail(name + " must be a whole number from " + strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10))
	}
	return n, nil
}

// strs returns a string array argument.
func strs(args map[string]any, name string) []string {
	items, _ := args[name].([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
