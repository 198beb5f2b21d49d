package writes

import (
	"context"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
)

// Target is the memo a write changes, read as its plan's first step, and
// how other users' memos reach the caller.
type Target struct {
	Memo   rawjson.Value
	Others memos.Others
	name   string // from the path, should Memos' answer name none
}

// ReadTarget reads the memo at path that a write is to change. Under LOCKDOWN
// another user's memo is refused with nothing written: what the write
// answers (the memo, what it replaced, a conflict's text) would carry
// their text.
func ReadTarget(ctx context.Context, m Memos, path string) (Target, error) {
	memo, err := Read(ctx, m, memos.RouteMemo, path)
	if err != nil {
		return Target{}, NotDone(err, "")
	}
	var o memos.Others
	if memos.HasCreator(memo) { // a memo of nobody's is nobody else's
		if o, err = m.Others(ctx); err != nil {
			return Target{}, NotDone(err, "learning who the caller is")
		}
	}
	t := Target{Memo: memo, Others: o, name: strings.TrimPrefix(path, memos.APIRoot)}
	if o.Lockdown && o.Theirs(memo) {
		return Target{}, &Failure{Msg: memos.ErrLockdown.Error() + "; nothing was written", Cause: memos.ErrLockdown}
	}
	return t, nil
}

// Name is the target's resource name (memos/abc).
func (t Target) Name() string {
	if n := t.Memo.Get("name").Str; n != "" {
		return n
	}
	return t.name
}

// Theirs reports whether the target is another user's memo.
func (t Target) Theirs() bool { return t.Others.Theirs(t.Memo) }

// Text is what a result or an error may show of text the target held:
// another user's without its hidden characters, and said to be theirs.
func (t Target) Text(s string) string {
	if !t.Theirs() {
		return s
	}
	return "(written by " + t.Memo.Get("creator").Str + ", not you)\n" + visible.Text(s)
}

// Clean is text the target held as a result may carry it: another
// user's without its hidden characters (the result marks the memo theirs).
func (t Target) Clean(s string) string {
	if !t.Theirs() {
		return s
	}
	return visible.Text(s)
}

// Shown is a memo Memos answered a write with, as the caller may see it:
// another user's marked (memos.Others.Mark).
func (t Target) Shown(memo rawjson.Value) []byte { return t.Others.Mark(memo) }
