package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// maxCountedComments is how many of a memo's comments a delete counts
// before it says "or more".
const maxCountedComments = 100

// deleteMemo is memo_delete_memo that says what it takes. Memos deletes a
// memo with its comments (every user's), its attachment files, reactions
// and the references other memos hold to it, and has no restore: the memo
// is read first, and the result holds what was deleted, so that it can be
// made again. A memo that is gone already (a retry whose first answer was
// lost, or the runtime's own resend) is reported as deleted, and an
// unclear outcome is settled by reading the memo back.
func (tb *Table) deleteMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	path, _, _ := strings.Cut(r.Path, "?")
	memo, err := tb.read(ctx, t, authorization, memoRoute, path)
	switch {
	case status(err) == 404:
		return result([]byte(`{"ok":true,"note":` + rawjson.Quote("there is no such memo: it was deleted already (by an earlier try of this call, say) or never existed") + `}`)), nil
	case err != nil:
		return nil, err
	}
	comments, err := tb.read(ctx, t, authorization, memoRoute+"/comments", path+"/comments?pageSize="+strconv.Itoa(maxCountedComments))
	if err != nil {
		return nil, errors.New(err.Error() + " (counting the memo's comments); nothing was deleted")
	}
	_, err = tb.memos.Send(ctx, r)
	switch {
	case err == nil || status(err) == 404: // deleted, by this request or a resend of it
	case unclear(err):
		_, rerr := tb.read(ctx, t, authorization, memoRoute, path)
		switch {
		case status(rerr) == 404:
		case rerr != nil:
			return nil, settled(err, "the memo may have been deleted: read "+memo.Get("name").Str+" before trying again", true)
		default:
			return nil, settled(err, "reading "+memo.Get("name").Str+" back shows it is still there: trying again is safe", false)
		}
	default:
		return nil, errors.New(err.Error() + "; nothing was deleted")
	}
	return result(deleted(memo, comments)), nil
}

// deleted is the result of a delete: what the memo held, and what went
// with it.
func deleted(memo, comments rawjson.Value) []byte {
	b := []byte(`{"ok":true,"deleted":{`)
	first := true
	for _, k := range []string{"name", "content", "visibility", "pinned", "state", "tags", "createTime", "parent"} {
		if v := compact(memo.Get(k)); len(v) > 0 {
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
	b = append(b, `"attachments":[`...)
	for i, at := range memo.Get("attachments").Array() {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, at.Get("name").Str+" ("+at.Get("filename").Str+")")
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
	count := strconv.Itoa(n)
	if comments.Get("nextPageToken").Str != "" {
		count += " or more"
	}
	b = append(b, `],"comments":`...)
	b = rawjson.AppendString(b, count)
	b = append(b, `,"commentsByOthers":`...)
	b = strconv.AppendInt(b, int64(others), 10)
	b = append(b, `},"note":`...)
	b = rawjson.AppendString(b, "Memos keeps no copy: to restore the memo, create it again from deleted (content, visibility); its comments, attachment files and reactions are gone with it")
	return append(b, '}')
}

// Confirm returns the question the person answers before a tool that
// deletes for good runs (where the client can ask: mcp's confirmation), ""
// for any other tool. Only an id that passes Memos' id rule is named in
// it: the arguments are the model's words, shown to the person.
func (tb *Table) Confirm(name string, args rawjson.Value) string {
	switch name {
	case "memo_delete_memo":
		return "Delete " + named(args.Get("memo").Str, "memos/", "this memo") + " for good? Its comments (every user's), attachment files and reactions go with it, and Memos has no undo; archiving would keep it."
	case "attachment_delete_attachment":
		return "Delete " + named(args.Get("attachment").Str, "attachments/", "this attachment") + " and its file for good? Memos has no undo."
	}
	return ""
}

// named is the resource name of an id argument, or fallback for one that
// is none.
func named(arg, prefix, fallback string) string {
	if id := strings.TrimPrefix(arg, prefix); memos.ValidID(id) {
		return prefix + id
	}
	return fallback
}
