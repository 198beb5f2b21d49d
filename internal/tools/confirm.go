package tools

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// A question asks the person before a tool that deletes for good runs,
// where the client can ask (mcp's confirmation): what would go, read from
// Memos, so that the person judges the memo and not an id. The curation
// names each tool's (spec/curation.json, "confirm"). "" asks nothing.
type question func(ctx context.Context, m memos.Caller, args rawjson.Value) string

// questions are the confirmations the curation names.
func questions() map[string]question {
	return map[string]question{
		"delete-memo":       deleteMemoQuestion,
		"delete-attachment": deleteAttachmentQuestion,
		"set-attachments":   setAttachmentsQuestion,
	}
}

// Confirm returns the question the person answers before the named tool
// runs with args, as the caller with this Authorization; "" for a tool
// that asks none. It reads what the question names (at most two requests);
// what it cannot read, it asks about by name.
func (tb *Table) Confirm(ctx context.Context, name string, args rawjson.Value, authorization string) string {
	t, ok := tb.tool(ctx, name)
	if !ok || t.def.Confirm == "" {
		return ""
	}
	ask := questions()[t.def.Confirm]
	if ask == nil {
		return "Run " + name + "?" // TestEveryWriteHasAGuard fails first
	}
	return ask(ctx, tb.caller(t, authorization), args)
}

// maxShown bounds what a question quotes of a memo's first line and of
// its files.
const (
	maxShownRunes = 80
	maxShownFiles = 5
)

// describe is a memo as a question shows it: its name, first line and
// what hangs on it; another user's said to be theirs, and under LOCKDOWN
// not quoted.
func describe(ctx context.Context, m memos.Caller, id string) string {
	name := "memos/" + id
	target, err := writes.ReadTarget(ctx, m, writes.MemoPath(id))
	if err != nil {
		return name
	}
	first, _, _ := strings.Cut(strings.TrimSpace(target.Memo.Get("content").Str), "\n")
	b := name + ", " + strconv.Quote(clipped(visible.Line(first)))
	if target.Theirs() {
		b += " (by " + target.Memo.Get("creator").Str + ")"
	}
	comments, err := writes.Read(ctx, m, memos.RouteMemoComments, memos.Path(memos.RouteMemoComments, id)+"?pageSize="+strconv.Itoa(maxCountedComments))
	n := len(comments.Get("memos").Array())
	switch {
	case err != nil:
		b += ", with its comments"
	case comments.Get("nextPageToken").Str != "":
		b += ", with more than " + strconv.Itoa(n) + " comments"
	case n > 0:
		b += ", with at least " + strconv.Itoa(n) + " comments"
	}
	if files := fileNames(target.Memo.Get("attachments").Array()); files != "" {
		b += " and the files " + files
	}
	return b
}

// fileNames lists attachments by filename, the first few.
func fileNames(list []rawjson.Value) string {
	var names []string
	for i, at := range list {
		if i == maxShownFiles {
			names = append(names, "and "+strconv.Itoa(len(list)-i)+" more")
			break
		}
		names = append(names, strconv.Quote(clipped(visible.Line(at.Get("filename").Str))))
	}
	return strings.Join(names, ", ")
}

// clipped is s cut to maxShownRunes, for a question or an error that
// quotes it.
func clipped(s string) string {
	if r := []rune(s); len(r) > maxShownRunes {
		return string(r[:maxShownRunes]) + "…"
	}
	return s
}

func deleteMemoQuestion(ctx context.Context, m memos.Caller, args rawjson.Value) string {
	id, ok := idArg(args.Get("memo").Str, "memos/")
	what := "this memo"
	if ok {
		what = describe(ctx, m, id)
	}
	return "Delete " + what + " for good? Its comments (every user's), attachment files and reactions go with it, and Memos has no undo; archiving would keep it."
}

func deleteAttachmentQuestion(ctx context.Context, m memos.Caller, args rawjson.Value) string {
	id, ok := idArg(args.Get("attachment").Str, "attachments/")
	if !ok {
		return "Delete this attachment and its file for good? Memos has no undo."
	}
	what := "attachments/" + id
	if meta, err := writes.Read(ctx, m, memos.RouteAttachment, writes.AttachmentPath(id)); err == nil {
		what += " (" + strconv.Quote(clipped(visible.Line(meta.Get("filename").Str)))
		if memo := meta.Get("memo").Str; memo != "" {
			what += ", on " + memo
		}
		what += ")"
	}
	return "Delete " + what + " and its file for good? Memos has no undo."
}

// setAttachmentsQuestion asks only when removeOthers would delete files:
// those of the memo that the list leaves out.
func setAttachmentsQuestion(ctx context.Context, m memos.Caller, args rawjson.Value) string {
	if args.Get("removeOthers").Kind != rawjson.True {
		return ""
	}
	id, ok := idArg(args.Get("memo").Str, "memos/")
	if !ok {
		return "Delete the files of this memo that the list leaves out, for good? Memos has no undo."
	}
	kept := map[string]bool{}
	for _, at := range args.Get("body").Get("attachments").Array() {
		kept[at.Get("name").Str] = true
	}
	memo, err := writes.Read(ctx, m, memos.RouteMemo, writes.MemoPath(id))
	if err != nil {
		return "Delete the files of memos/" + id + " that the list leaves out, for good? Memos has no undo."
	}
	var gone []rawjson.Value
	for _, at := range memo.Get("attachments").Array() {
		if !kept[at.Get("name").Str] {
			gone = append(gone, at)
		}
	}
	if len(gone) == 0 {
		return ""
	}
	return "Delete the files " + fileNames(gone) + " of memos/" + id + " for good? The list leaves them out, and Memos has no undo."
}

// idArg is the id of a resource argument (memos/abc or abc), when it is
// one by Memos' id rule: the arguments are the model's words, shown to the
// person.
func idArg(arg, prefix string) (string, bool) {
	id := strings.TrimPrefix(arg, prefix)
	return id, memos.ValidID(id)
}
