package tools

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Other users' memos in the generated tools' results (memos.Others): the
// tools that answer with memos run through listMemos or getMemo, which
// mark another user's memo, or leave it out under LOCKDOWN. Learning who
// the caller is costs no request where the caller check remembers it, and
// at most one (GET /api/v1/auth/me) otherwise; a page without memos asks
// nothing.

// listMemos is memo_list_memos or memo_list_memo_comments, other users'
// memos marked.
func (tb *Table) listMemos(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, escapes, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	list := rawjson.Compacted(obj)
	if !hasItem(list, "memos") {
		return successResult(obj, escapes), nil
	}
	o, err := tb.caller(t, authorization).Others(ctx)
	if err != nil {
		return nil, err
	}
	if !o.Touches(list, "memos") {
		// Nothing to mark or leave out: the answer as it is, without
		// copying it (a page can be megabytes).
		return successResult(obj, escapes), nil
	}
	return result(o.MarkList(list, "memos")), nil
}

// hasItem reports whether the array member key of obj has an item,
// without reading further.
func hasItem(obj rawjson.Value, key string) bool {
	found := false
	obj.ElementsOf(key, func(rawjson.Value) bool {
		found = true
		return false
	})
	return found
}

// caller is the instance as the caller of the tool t sees it.
func (tb *Table) caller(t *tool, authorization string) memos.Caller {
	m := tb.memos.As(authorization)
	m.Tool = t.def.Name
	return m
}
