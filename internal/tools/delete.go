package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// maxCountedComments is how many of a memo's comments a delete counts
// before it says "or more".
const maxCountedComments = 100

// deleteMemo is memo_delete_memo that says what it takes. Memos deletes a
// memo with its comments (every user's), its attachment files, reactions
// and the references other memos hold to it, and has no restore: the memo
// is read first, and the result holds what was deleted, so that it can be
// made again. A memo that is not there is reported so, not as deleted;
// whatever Memos answers, the memo is read back, and one still there is
// not reported deleted.
func (tb *Table) deleteMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	path, _, _ := strings.Cut(r.Path, "?")
	target, err := writes.ReadTarget(ctx, m, path)
	switch {
	case writes.Status(err) == 404:
		return nil, writes.Refuse("there is no memo " + strings.TrimPrefix(path, memos.APIRoot) + " that you can see: it was deleted already (by an earlier try of this call, say), never existed, or is another user's private memo")
	case err != nil:
		return nil, err
	}
	name := target.Name()
	comments, err := writes.Read(ctx, m, memos.RouteMemoComments, path+"/comments?pageSize="+strconv.Itoa(maxCountedComments))
	if err != nil {
		return nil, writes.NotDone(err, "counting the comments of "+name)
	}
	_, err = tb.memos.Send(ctx, r)
	if err != nil && writes.Status(err) != 404 && !writes.Unclear(err) {
		return nil, writes.NotDone(err, "")
	}
	// Whatever the answer (a 404 may be the runtime's own resend of a
	// delete that was applied), what Memos holds now tells.
	_, rerr := writes.Read(ctx, m, memos.RouteMemo, path)
	switch {
	case writes.Status(rerr) == 404:
	case rerr != nil:
		return nil, writes.MayBeDone(err, name)
	case err == nil:
		return nil, writes.NotDone(errors.New("Memos answered the delete as done"), "but reading "+name+" back shows it is still there")
	default:
		return nil, writes.NotDone(err, "reading "+name+" back shows it is still there")
	}
	return result(deleted(target, comments)), nil
}

// deleted is the result of a delete: what the memo held, and what went
// with it. Comments are counted as the caller sees them (the first
// maxCountedComments; moreComments when there were more): other users'
// private comments go too, unseen, which the note says.
func deleted(target writes.Target, comments rawjson.Value) []byte {
	memo := target.Memo
	b := []byte(`{"ok":true,"deleted":{`)
	first := true
	for _, k := range []string{"name", "content", "visibility", "pinned", "state", "tags", "createTime", "parent"} {
		v := compact(memo.Get(k))
		if k == "content" && target.Theirs() {
			v = rawjson.AppendString(nil, target.Clean(memo.Get(k).Str))
		}
		if len(v) > 0 {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = rawjson.AppendString(b, k)
			b = append(b, ':')
			b = append(b, v...)
		}
	}
	if !first {
		b = append(b, ',')
	}
	if target.Theirs() {
		b = rawjson.AppendString(b, memos.OtherMember)
		b = append(b, ':')
		b = rawjson.AppendString(b, memo.Get("creator").Str)
		b = append(b, ',')
	}
	b = append(b, `"attachments":[`...)
	for i, at := range memo.Get("attachments").Array() {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, at.Get("name").Str+" ("+visible.Line(at.Get("filename").Str)+")")
	}
	creator := memo.Get("creator").Str
	n, others := 0, 0
	comments.Get("memos").ForEach(func(_, c rawjson.Value) bool {
		n++
		if c.Get("creator").Str != creator {
			others++
		}
		return true
	})
	b = append(b, `],"comments":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"commentsByOthers":`...)
	b = strconv.AppendInt(b, int64(others), 10)
	if comments.Get("nextPageToken").Str != "" {
		b = append(b, `,"moreComments":true`...)
	}
	b = append(b, `},"note":`...)
	b = rawjson.AppendString(b, "Memos keeps no copy: to restore the memo, create it again from deleted (content, visibility); its comments, attachment files and reactions are gone with it. The comments counted are those you could see: other users' private comments went too")
	return append(b, '}')
}
