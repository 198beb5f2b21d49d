// Package resources serves memos and their attachments as MCP resources:
// memo://memos/{id} reads as the memo in Markdown under a short front
// matter, memo://attachments/{id} as the file's bytes, and the resource
// list pages through the caller's recent memos. Every read is one or two
// GET requests to Memos with the caller's credentials, through
// internal/memos, whose id rule (memos.ValidID) each id passes before it is
// escaped into a path.
package resources

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// URI prefixes of the two kinds of resource; the id follows.
const (
	MemoPrefix       = "memo://memos/"
	AttachmentPrefix = "memo://attachments/"
)

// maxID bounds an id read from a URI: Memos' own are 22 characters, or what
// a caller chose as a memo's id.
const maxID = 128

// ListPageSize is how many memos one page of resources/list holds.
const ListPageSize = 50

// maxCursor bounds a resources/list cursor, which is Memos' page token (a
// short base64 string).
const maxCursor = 512

// Server reads resources from Memos.
type Server struct {
	memos *memos.Client
	// maxBytes caps an attachment served as a resource, so that its base64
	// form fits in MAX_RESPONSE_BYTES.
	maxBytes int
	// The time zone of a memo's times, and how to learn its offsets (see
	// InZone); "" is UTC.
	zone    string
	offsets finder.OffsetFunc
}

// New returns a Server that reads through memos and serves attachments of
// up to three quarters of maxResponseBytes (their base64 form then fits in
// it).
func New(memos *memos.Client, maxResponseBytes int) *Server {
	return &Server{memos: memos, maxBytes: maxResponseBytes / 4 * 3}
}

// InZone makes s write memos' times in the time zone called name (the
// deployment's TIMEZONE), whose offsets come from offsets, and returns s.
func (s *Server) InZone(name string, offsets finder.OffsetFunc) *Server {
	s.zone, s.offsets = name, offsets
	return s
}

// templates is the resources/templates/list result.
const templates = `{"resourceTemplates":[` +
	`{"uriTemplate":"memo://memos/{id}","name":"memo","title":"Memo",` +
	`"description":"A memo as Markdown, after a front matter with its name, creator, visibility, pinned, tags, times and attachments. {id} is the part after memos/ in the memo's name.",` +
	`"mimeType":"text/markdown"},` +
	`{"uriTemplate":"memo://attachments/{id}","name":"attachment","title":"Attachment",` +
	`"description":"A memo's attachment, as its bytes (text, or base64 for other files). {id} is the part after attachments/ in the attachment's name."}]}`

// TemplatesJSON returns the resources/templates/list result.
func (s *Server) TemplatesJSON() []byte { return []byte(templates) }

// Read returns the resources/read result for uri.
func (s *Server) Read(ctx context.Context, u, authorization string) ([]byte, error) {
	if id, ok := idOf(u, MemoPrefix); ok {
		return s.readMemo(ctx, u, id, authorization)
	}
	if id, ok := idOf(u, AttachmentPrefix); ok {
		return s.readAttachment(ctx, u, id, authorization)
	}
	return nil, NotFound(u)
}

// idOf returns the id of a URI that starts with prefix, when it is one that
// can stand in a Memos path.
func idOf(u, prefix string) (string, bool) {
	id, ok := strings.CutPrefix(u, prefix)
	return id, ok && len(id) <= maxID && memos.ValidID(id)
}

// List returns one page of resources/list: the caller's memos, newest
// first, or for a caller without a token the public memos Memos shows to
// anyone (none when the instance shows nothing to visitors), marked as
// other users' (memos.Others), or under LOCKDOWN none. One request to
// Memos for the page, and one for who the caller is where the caller check
// does not remember it.
func (s *Server) List(ctx context.Context, cursor, authorization string) ([]byte, error) {
	if len(cursor) > maxCursor || strings.Trim(cursor, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-") != "" {
		return nil, jsonrpc.InvalidParams("invalid params: the cursor is not one this server gave")
	}
	query := "?pageSize=" + strconv.Itoa(ListPageSize)
	others, err := s.memos.As(authorization).Others(ctx)
	if err != nil {
		return nil, err
	}
	anonymous := others.Me == ""
	switch {
	case anonymous && others.Lockdown:
		return []byte(`{"resources":[]}`), nil // every memo is another's
	case !anonymous:
		query += "&filter=" + uri.QueryEscape(`creator == "`+celEscape(others.Me)+`"`)
	}
	if cursor != "" {
		query += "&pageToken=" + uri.QueryEscape(cursor)
	}
	page, err := s.memos.As(authorization).GetJSON(ctx, memos.RouteMemos, memos.RouteMemos+query)
	switch {
	case anonymous && status(err) == 401:
		return []byte(`{"resources":[]}`), nil
	case cursor != "" && status(err) == 400:
		return nil, jsonrpc.InvalidParams("invalid params: the cursor is not one this server gave")
	case err != nil:
		return nil, err
	}
	b := []byte(`{"resources":[`)
	n := 0
	page.Get("memos").ForEach(func(_, memo rawjson.Value) bool {
		id, ok := strings.CutPrefix(memo.Get("name").Str, "memos/")
		if !ok || !memos.ValidID(id) {
			return true
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendListEntry(b, id, rawjson.ParseBytes(others.Mark(memo)))
		return n < ListPageSize
	})
	b = append(b, ']')
	if next := page.Get("nextPageToken").Str; next != "" {
		b = append(b, `,"nextCursor":`...)
		b = rawjson.AppendString(b, next)
	}
	return append(b, '}'), nil
}

// status is the HTTP status of Memos' answer behind err, 0 for none.
func status(err error) int {
	if e, ok := memos.AsError(err); ok {
		return e.Status
	}
	return 0
}

// celEscape escapes s for a double-quoted string of Memos' filter language.
func celEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '"' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// lockedOut is the error of another user's memo under LOCKDOWN: not found,
// saying why.
func lockedOut(u string) error {
	err := NotFound(u).(*jsonrpc.Error)
	err.Message += ": " + memos.ErrLockdown.Error()
	return err
}

// NotFound is the error of a URI that names no resource: the protocol's
// resource-not-found error, with the URI as its data.
func NotFound(u string) error {
	data := append(rawjson.AppendString([]byte(`{"uri":`), u), '}')
	return &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: "resource not found: " + u, Data: data}
}
