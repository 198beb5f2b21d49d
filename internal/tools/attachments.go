package tools

import (
	"context"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// setAttachments is memo_set_memo_attachments that deletes nothing untold.
// Memos replaces a memo's attachment list and deletes the files of those
// left out, and moves an attachment of another memo to this one; so the
// memo's own attachments are kept unless removeOthers says otherwise, and
// an attachment of another memo, or one that does not exist, is refused
// (writes.Attachments). Each attachment is named by its name alone: its
// filename and type come from Memos. The result lists the attachments the
// memo has and those removed; an unclear outcome is settled by reading the
// memo back.
func (tb *Table) setAttachments(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	memoPath, _, _ := strings.Cut(strings.TrimSuffix(r.Path, "/attachments"), "?")
	memo, err := writes.Read(ctx, m, memos.RouteMemo, memoPath)
	if err != nil {
		return nil, writes.NotDone(err, "")
	}
	name := memo.Get("name").Str
	given := rawjson.Parse(a.bodyRaw).Get("attachments").Array()
	metas, err := writes.Attachments(ctx, m, given, name, "body.attachments")
	if err != nil {
		return nil, err
	}
	kept, names := map[string]bool{}, []string(nil) // names in the order of the list
	list := []byte{'['}
	for i, at := range given {
		if an := at.Get("name").Str; !kept[an] {
			kept[an], names = true, append(names, an)
			list = appendItem(list, attachmentRef(an, metas[i]))
		}
	}
	removeOthers, _ := a.values["removeOthers"].(bool)
	var removed []string
	for _, at := range memo.Get("attachments").Array() {
		an := at.Get("name").Str
		switch {
		case kept[an]:
		case removeOthers:
			removed = append(removed, an)
		default:
			kept[an], names = true, append(names, an)
			list = appendItem(list, attachmentRef(an, at))
		}
	}
	r.Body = []byte(`{"attachments":` + string(append(list, ']')) + `}`)
	b := []byte(`{"ok":true,"attachments":`)
	b = appendNames(b, names)
	b = append(b, `,"removed":`...)
	b = appendNames(b, removed)
	if _, err := tb.confirmed(ctx, r); err != nil {
		if !writes.Unclear(err) {
			return nil, writes.NotDone(err, "")
		}
		after, rerr := writes.Read(ctx, m, memos.RouteMemo, memoPath)
		switch {
		case rerr != nil:
			return nil, writes.MayBeDone(err, name)
		case writes.Holds(after.Get("attachments"), rawjson.Parse(namesList(names))):
			b = append(b, `,"note":`...)
			b = rawjson.AppendString(b, "Memos' answer was lost on the way; reading "+name+" back shows the attachments set")
		case writes.Holds(after.Get("attachments"), rawjson.Parse(namesList(attachmentNames(memo)))):
			return nil, writes.NotDone(err, "reading "+name+" back shows its attachments unchanged")
		default:
			return nil, writes.MayBeDone(err, name+" (its attachments are neither as they were nor as set)")
		}
	}
	return result(append(b, '}')), nil
}

// attachmentNames lists the names of a memo's attachments.
func attachmentNames(memo rawjson.Value) []string {
	var names []string
	for _, at := range memo.Get("attachments").Array() {
		names = append(names, at.Get("name").Str)
	}
	return names
}

// namesList is a JSON array of objects that name attachments, as Memos
// lists a memo's.
func namesList(names []string) string {
	b := []byte{'['}
	for _, n := range names {
		b = appendItem(b, []byte(`{"name":`+rawjson.Quote(n)+`}`))
	}
	return string(append(b, ']'))
}

// attachmentRef is an attachment as the list sent to Memos names it: its
// name, with the filename and type Memos' schema asks for, from meta.
func attachmentRef(name string, meta rawjson.Value) []byte {
	return []byte(`{"name":` + rawjson.Quote(name) + `,"filename":` + rawjson.Quote(meta.Get("filename").Str) + `,"type":` + rawjson.Quote(meta.Get("type").Str) + `}`)
}

// appendItem appends an item to an open JSON array.
func appendItem(list, item []byte) []byte {
	if len(list) > 1 {
		list = append(list, ',')
	}
	return append(list, item...)
}

// appendNames appends names as a JSON array.
func appendNames(b []byte, names []string) []byte {
	b = append(b, '[')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, n)
	}
	return append(b, ']')
}
