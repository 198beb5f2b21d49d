package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// setAttachments is memo_set_memo_attachments that deletes nothing untold.
// Memos replaces a memo's attachment list and deletes the files of those
// left out, and moves an attachment of another memo to this one; so the
// memo's own attachments are kept unless removeOthers says otherwise, and
// an attachment of another memo is refused. Each attachment is named by
// its name alone: its filename and type come from Memos. The result lists
// the attachments the memo has and those removed.
func (tb *Table) setAttachments(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	memoPath, _, _ := strings.Cut(strings.TrimSuffix(r.Path, "/attachments"), "?")
	memo, err := tb.read(ctx, t, authorization, memoRoute, memoPath)
	if err != nil {
		return nil, err
	}
	given := rawjson.Parse(a.bodyRaw).Get("attachments").Array()
	if len(given) > maxLinked {
		return nil, errors.New("body.attachments may hold at most " + strconv.Itoa(maxLinked) + " attachments in one call")
	}
	name := memo.Get("name").Str
	kept, names := map[string]bool{}, []string(nil) // names in the order of the list
	list := []byte{'['}
	for _, at := range given {
		an := at.Get("name").Str
		id, ok := strings.CutPrefix(an, "attachments/")
		if !ok || !memos.ValidID(id) {
			return nil, errors.New("body.attachments: " + strconv.Quote(an) + " is not an attachment's name (attachments/abc); nothing was changed")
		}
		meta, err := tb.read(ctx, t, authorization, attachmentRoute, attachmentPath(id))
		if err != nil {
			return nil, err
		}
		if owner := meta.Get("memo").Str; owner != "" && owner != name {
			return nil, errors.New(an + " belongs to " + owner + ": setting it here would take it from there; nothing was changed")
		}
		if !kept[an] {
			kept[an], names = true, append(names, an)
			list = appendItem(list, attachmentRef(an, meta))
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
	if _, err := tb.memos.Send(ctx, r); err != nil {
		return nil, err
	}
	b := []byte(`{"ok":true,"attachments":`)
	b = appendNames(b, names)
	b = append(b, `,"removed":`...)
	b = appendNames(b, removed)
	return result(append(b, '}')), nil
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
