package tools

import (
	"context"
	"strconv"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Writing safely. Memos' write API takes no precondition, writes a field
// that an update mask names without a value as empty, deletes a memo for
// good with all that hangs on it, and makes a second object when a create
// whose answer was lost is retried. The generated tools that write run
// through the guards below instead of callRoute: they read before they
// write, choose the ids of what they create, read back when the outcome is
// unclear, and answer with what was replaced, so that nothing an agent does
// loses a note untold. Each guard costs a few more requests to Memos, at
// most maxWriteRequests a call.

// maxWriteRequests bounds the requests to Memos of one guarded call: a
// create's checks of its relations, its look for the same call's earlier
// window, its request and its read-back, or the
// reads of the attachments to set, the memo's and the write.
const maxWriteRequests = maxLinked + 3

// guard returns the guard that runs the generated tool called name, nil for
// a tool that runs as it is. TestGuardsNameTools keeps the names true.
func (tb *Table) guard(name string) func(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	switch name {
	case "memo_get_memo":
		return tb.getMemo
	case "auth_get_current_user":
		return tb.currentUser
	case "memo_list_memos", "memo_list_memo_comments":
		return tb.listMemos
	case "memo_update_memo":
		return tb.updateMemo
	case "memo_delete_memo":
		return tb.deleteMemo
	case "memo_create_memo", "memo_create_memo_comment", "attachment_create_attachment":
		return tb.create
	case "memo_set_memo_attachments":
		return tb.setAttachments
	}
	return nil
}

// send sends a generated tool's request, built from its arguments.
func (tb *Table) send(ctx context.Context, t *tool, a arguments, authorization string) (memos.Request, *web.Response, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return r, nil, err
	}
	resp, err := tb.memos.Send(ctx, r)
	return r, resp, err
}

// read reads a Memos object for a guard of the tool t.
func (tb *Table) read(ctx context.Context, t *tool, authorization, route, path string) (rawjson.Value, error) {
	return tb.caller(t, authorization).GetJSON(ctx, route, path)
}

// Routes and paths of the objects the guards read.
const (
	memoRoute       = "/api/v1/memos/{memo}"
	attachmentRoute = "/api/v1/attachments/{attachment}"
)

func memoPath(id string) string       { return "/api/v1/memos/" + uri.PathEscape(id) }
func attachmentPath(id string) string { return "/api/v1/attachments/" + uri.PathEscape(id) }

// status is the HTTP status behind a failure from Memos, 0 for none.
func status(err error) int {
	if e, ok := memos.AsError(err); ok {
		return e.Status
	}
	return 0
}

// unclear reports whether a write's failure leaves open whether Memos
// applied it: no answer (a timeout, a reset, the caller gone), or an answer
// that is not Memos' own (a proxy's error page, a cut body).
func unclear(err error) bool {
	e, ok := memos.AsError(err)
	return ok && e.Unsure
}

// getMemo is memo_get_memo with the memo's contentHash added (that of its
// content as Memos holds it), and another user's memo marked (others.go).
func (tb *Table) getMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, _, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	memo := rawjson.Compacted(obj)
	hash := memos.ContentHash(memo.Get("content").Str)
	if obj, err = memos.MarkOne(ctx, memo, tb.caller(t, authorization).Others); err != nil {
		return nil, err
	}
	return result(withMember(obj, "contentHash", rawjson.AppendString(nil, hash))), nil
}

// currentUser is auth_get_current_user without the user's empty password
// member (Memos v0.30.0 sends "password":""): a secret's field has no
// place in a result, even empty.
func (tb *Table) currentUser(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, _, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	return result(withoutEmptyPassword(rawjson.Compacted(obj), 0)), nil
}

// withoutEmptyPassword is obj, compact, without the members "password"
// whose value is "", on its top level and in its "user".
func withoutEmptyPassword(obj rawjson.Value, depth int) []byte {
	b := []byte{'{'}
	obj.ForEach(func(k, v rawjson.Value) bool {
		value := []byte(v.Raw)
		switch {
		case k.Str == "password" && v.Kind == rawjson.String && v.Str == "":
			return true
		case k.Str == "user" && v.IsObject() && depth == 0:
			value = withoutEmptyPassword(v, 1)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, k.Str)
		b = append(b, ':')
		b = append(b, value...)
		return true
	})
	return append(b, '}')
}

// withMember adds a member, its value JSON, at the end of an object.
func withMember(obj []byte, key string, value []byte) []byte {
	b := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	b = append(b, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		b = append(b, ',')
	}
	b = rawjson.AppendString(b, key)
	b = append(b, ':')
	b = append(b, value...)
	return append(b, '}')
}

// result is the CallToolResult of a guard's answer, an object of compact
// JSON.
func result(obj []byte) []byte {
	escapes := 0
	for _, c := range obj {
		if c == '"' || c == '\\' {
			escapes++
		}
	}
	return successResult(obj, escapes)
}

// compact returns a value of Memos' answer as compact JSON.
func compact(v rawjson.Value) []byte {
	b, _, _ := rawjson.Compact(nil, []byte(v.Raw), memos.MaxAnswerDepth, true)
	return b
}

// callID is the id a guard gives the object a call creates when the model
// gives none: derived from the call (the tool, the caller's credentials,
// the path and the body) and the ten minutes it falls in, so that the same
// call made again, by a model that never saw the first answer because the
// client hung up, gets the same id and Memos' 409 instead of a second
// object (create also looks under the window before's id). 26 letters and
// digits, as Memos' id rule takes.
func callID(tool, authorization, path, body string, now time.Time) string {
	h, _ := blake2b.New256(nil) // fails only for a key over 64 bytes
	for _, part := range []string{"memos-mcp-edge create", tool, authorization, path, body, strconv.FormatInt(now.Unix()/idWindow, 10)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	id := make([]byte, 26)
	for i := range id { // 5 bits each, 130 of the 256
		bit := i * 5
		v := (int(sum[bit/8])<<8 | int(sum[bit/8+1])) >> (11 - bit%8) & 31
		id[i] = digits[v]
	}
	return string(id)
}

// idWindow is how many seconds the same call keeps its id.
const idWindow = 600
