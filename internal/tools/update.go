package tools

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// updateMemo is memo_update_memo read before it is written. A change of
// content needs the contentHash of the text the model read (memo_get_memo
// gives it): one made from a stale copy is refused as a conflict, with the
// current text, so that a line the person added meanwhile is not lost. The
// mask is explicit and checked (updateMask). The result holds the new
// contentHash and what the update replaced, so that it can be put back.
// An unclear outcome is settled by reading the memo back.
func (tb *Table) updateMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	path, _, _ := strings.Cut(r.Path, "?")
	before, err := tb.read(ctx, t, authorization, memoRoute, path)
	if err != nil {
		return nil, err
	}
	body := rawjson.Parse(a.bodyRaw)
	if body.Get("content").Exists() {
		if err := precondition(before, a.values["contentHash"]); err != nil {
			return nil, err
		}
	}
	resp, err := tb.memos.Send(ctx, r)
	var obj []byte
	if err == nil {
		obj, _, err = tb.object(r, resp)
	}
	switch {
	case err == nil && !emptyAnswer(resp):
	case err == nil || unclear(err):
		// No answer, an answer not from Memos, or an empty one: what
		// Memos holds now tells whether the update was made.
		after, rerr := tb.read(ctx, t, authorization, memoRoute, path)
		switch {
		case rerr != nil:
			return nil, settled(err, "the update may have been made: read "+before.Get("name").Str+" before trying again", true)
		case !holds(after, body):
			return nil, settled(err, "reading "+before.Get("name").Str+" back shows the update was not made: trying again is safe", false)
		}
		obj = compact(after)
	default:
		return nil, err
	}
	content := rawjson.Compacted(obj).Get("content").Str
	obj = withMember(obj, "contentHash", rawjson.AppendString(nil, memos.ContentHash(content)))
	return result(withMember(obj, "replaced", replaced(before, body))), nil
}

// precondition checks the contentHash a content change came with against
// the memo as it is.
func precondition(memo rawjson.Value, given any) error {
	current := memo.Get("content").Str
	hash := memos.ContentHash(current)
	name := memo.Get("name").Str
	switch h, _ := given.(string); {
	case h == "":
		return errors.New("to replace the content of " + name + ", pass the contentHash of the text you read (memo_get_memo gives it), so that a change made since is not lost; nothing was written. Its contentHash is " +
			hash + "; for a change of a part, memo_edit needs none. Its text now:\n\n" + current)
	case h != hash:
		return errors.New("conflict: " + name + " changed since you read it (its contentHash is " + hash + ", not " + h + "); nothing was written. " +
			"Apply your change to its text now, below, and send that with contentHash " + hash + ":\n\n" + current)
	}
	return nil
}

// emptyAnswer reports whether a write's successful answer has no body:
// no sign that it was applied.
func emptyAnswer(resp *web.Response) bool { return len(bytes.TrimSpace(resp.Body)) == 0 }

// holds reports whether a memo holds every field of an update's body.
func holds(memo, body rawjson.Value) bool {
	same := true
	body.ForEach(func(k, v rawjson.Value) bool {
		same = bytes.Equal(compact(memo.Get(k.Str)), compact(v))
		return same
	})
	return same
}

// replaced is the object of what an update replaced: each field of its
// body as the memo had it before.
func replaced(before, body rawjson.Value) []byte {
	b := []byte{'{'}
	body.ForEach(func(k, _ rawjson.Value) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, k.Str)
		b = append(b, ':')
		if v := compact(before.Get(k.Str)); len(v) > 0 {
			b = append(b, v...)
		} else {
			b = append(b, `""`...)
		}
		return true
	})
	return append(b, '}')
}

// settled is the error of a write whose outcome was unclear, once reading
// back has settled it: what went wrong (Memos' failure, or an empty
// answer) and what the read showed. unknown is a read that showed nothing:
// the write may have happened.
func settled(err error, shown string, unknown bool) error {
	msg := "Memos answered without confirming it"
	if err != nil {
		msg = err.Error()
	}
	return &memos.Error{Msg: msg + "; " + shown, Unsure: unknown}
}
