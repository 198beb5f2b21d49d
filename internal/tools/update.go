package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// updateMemo is memo_update_memo read before it is written. A change of
// content needs the contentHash of the text the model read (memo_get_memo
// gives it): one made from a stale copy is refused as a conflict, with the
// current text, so that a line the person added meanwhile is not lost.
// Only the fields the tool's schema declares reach Memos (its body is
// closed), and the mask is exactly those fields (updateMask). What Memos
// holds afterwards, its answer or, when that is unclear, a read-back, is
// compared field by field with the update: a field it did not apply (a
// comment keeps its memo's visibility) is reported, not passed as done.
// The result holds the new contentHash and what the update replaced, so
// that it can be put back.
func (tb *Table) updateMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	path, _, _ := strings.Cut(r.Path, "?")
	target, err := writes.ReadTarget(ctx, m, path)
	if err != nil {
		return nil, err
	}
	before, name := target.Memo, target.Name()
	body := rawjson.Parse(a.bodyRaw)
	if body.Get("content").Exists() {
		if err := precondition(target, a.values["contentHash"]); err != nil {
			return nil, err
		}
	}
	obj, err := tb.confirmed(ctx, r)
	after := rawjson.Compacted(obj)
	switch {
	case err == nil:
	case writes.Unclear(err):
		// No answer, an answer not from Memos, or an empty one: what
		// Memos holds now tells whether the update was made.
		var rerr error
		if after, rerr = writes.Read(ctx, m, memos.RouteMemo, path); rerr != nil {
			return nil, writes.MayBeDone(err, name)
		}
		if !writes.Holds(after, body) && writes.Holds(after, fieldsOf(before, body)) {
			return nil, writes.NotDone(err, "reading "+name+" back shows it unchanged")
		}
	default:
		return nil, writes.NotDone(err, "")
	}
	if missed := writes.Differs(after, body); len(missed) > 0 {
		return nil, notApplied(name, after, body, missed)
	}
	out := target.Shown(after)
	out = withMember(out, "contentHash", rawjson.AppendString(nil, memos.ContentHash(after.Get("content").Str)))
	return result(withMember(out, "replaced", replaced(target, body))), nil
}

// notApplied is the failure of an update that Memos took but did not
// apply whole: the fields it holds otherwise, as it holds them.
func notApplied(name string, memo, body rawjson.Value, fields []string) error {
	var b strings.Builder
	b.WriteString("Memos took the update of " + name + " but did not apply all of it:")
	for _, f := range fields {
		got := memo.Get(f).Raw
		if got == "" {
			got = "nothing"
		}
		b.WriteString(" it holds " + f + " " + clipped(got) + ", not " + clipped(string(compact(body.Get(f)))) + ";")
	}
	if slices.Contains(fields, "visibility") && memo.Get("parent").Str != "" {
		b.WriteString(" a comment keeps the visibility of its memo, " + memo.Get("parent").Str + ";")
	}
	b.WriteString(" the fields it does hold were written")
	return &writes.Failure{Msg: b.String()}
}

// fieldsOf is memo's values of the fields body gives, as an object.
func fieldsOf(memo, body rawjson.Value) rawjson.Value {
	b := []byte{'{'}
	body.ForEach(func(k, _ rawjson.Value) bool {
		if v := memo.Get(k.Str); v.Exists() {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = rawjson.AppendString(b, k.Str)
			b = append(b, ':')
			b = append(b, compact(v)...)
		}
		return true
	})
	return rawjson.ParseBytes(append(b, '}'))
}

// precondition checks the contentHash a content change came with against
// the memo as it is.
func precondition(target writes.Target, given any) error {
	current := target.Memo.Get("content").Str
	hash := memos.ContentHash(current)
	name := target.Name()
	switch h, _ := given.(string); {
	case h == "":
		return writes.RefuseShowing("to replace the content of "+name+", pass the contentHash of the text you read (memo_get_memo gives it), so that a change made since is not lost",
			"Its contentHash is "+hash+"; for a change of a part, memo_edit needs none. Its text now:\n\n"+target.Text(current))
	case h != hash:
		return writes.RefuseShowing("conflict: "+name+" changed since you read it (its contentHash is "+hash+", not "+h+")",
			"Apply your change to its text now, below, and send that with contentHash "+hash+":\n\n"+target.Text(current))
	}
	return nil
}

// replaced is the object of what an update replaced: each field of its
// body as the memo had it before (another user's text without its hidden
// characters).
func replaced(target writes.Target, body rawjson.Value) []byte {
	b := []byte{'{'}
	body.ForEach(func(k, _ rawjson.Value) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, k.Str)
		b = append(b, ':')
		v := target.Memo.Get(k.Str)
		switch {
		case k.Str == "content" && target.Theirs():
			b = rawjson.AppendString(b, target.Clean(v.Str))
		case v.Exists():
			b = append(b, compact(v)...)
		default:
			b = append(b, `""`...)
		}
		return true
	})
	return append(b, '}')
}
