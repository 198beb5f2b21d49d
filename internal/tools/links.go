package tools

import (
	"bytes"
	"context"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// The writes of what hangs on a memo: its relations, its reactions, an
// attachment. Each reads what it names first, and settles an unclear
// outcome by reading back (writes.Settle): a lost answer is never
// reported as a failure of a write Memos applied, nor a write that found
// nothing as done.

// setRelations is memo_set_memo_relations: the related memos must exist
// (Memos fails half-way on one that does not), and what the memo relates
// to afterwards is compared with the list.
func (tb *Table) setRelations(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	path, _, _ := strings.Cut(r.Path, "?")
	memoPath := strings.TrimSuffix(path, "/relations")
	target, err := writes.ReadTarget(ctx, m, memoPath)
	if err != nil {
		return nil, err
	}
	given := rawjson.Parse(a.bodyRaw).Get("relations").Array()
	if err := writes.Relations(ctx, m, given, "body.relations"); err != nil {
		return nil, err
	}
	want := []byte{'['}
	for _, rel := range given {
		want = appendItem(want, []byte(`{"relatedMemo":{"name":`+rawjson.Quote(rel.Get("relatedMemo").Get("name").Str)+`},"type":`+rawjson.Quote(rel.Get("type").Str)+`}`))
	}
	wanted := rawjson.ParseBytes(append(want, ']'))
	return tb.settled(ctx, r, target.Name(), func(ctx context.Context) (writes.State, error) {
		list, err := writes.Read(ctx, m, memos.RouteMemoRelations, path)
		if err != nil {
			return writes.Unknown, err
		}
		own := []byte{'['} // the relations from this memo, not those to it
		for _, rel := range list.Get("relations").Array() {
			if rel.Get("memo").Get("name").Str == target.Name() {
				own = appendItem(own, []byte(rel.Raw))
			}
		}
		if writes.Holds(rawjson.ParseBytes(append(own, ']')), wanted) {
			return writes.Applied, nil
		}
		return writes.Unapplied, nil // a set: the same call again is safe
	})
}

// upsertReaction is memo_upsert_memo_reaction, settled by looking for the
// caller's reaction of that type on the memo.
func (tb *Table) upsertReaction(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	o, err := m.Others(ctx)
	if err != nil {
		return nil, writes.NotDone(err, "learning who the caller is")
	}
	path, _, _ := strings.Cut(r.Path, "?")
	kind := rawjson.Parse(a.bodyRaw).Get("reaction").Get("reactionType").Str
	var found []byte
	out, err := tb.settled(ctx, r, strings.TrimPrefix(strings.TrimSuffix(path, "/reactions"), memos.APIRoot), func(ctx context.Context) (writes.State, error) {
		list, err := writes.Read(ctx, m, memos.RouteMemoReactions, path)
		if err != nil {
			return writes.Unknown, err
		}
		for _, re := range list.Get("reactions").Array() {
			if re.Get("creator").Str == o.Me && re.Get("reactionType").Str == kind {
				found = compact(re)
				return writes.Applied, nil
			}
		}
		return writes.Unapplied, nil // an upsert: the same call again is safe
	})
	if err == nil && found != nil {
		return result(withMember(found, "note", rawjson.AppendString(nil, writes.LostNote))), nil
	}
	return out, err
}

// deleteReaction is memo_delete_memo_reaction: a reaction that is not
// there is reported so, and a delete whose answer is lost or is a 404 (the
// runtime's own resend of an applied one) is settled by looking again.
func (tb *Table) deleteReaction(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	path, _, _ := strings.Cut(r.Path, "?")
	listPath := path[:strings.LastIndexByte(path, '/')]
	name := strings.TrimPrefix(path, memos.APIRoot)
	present := func(ctx context.Context) (bool, error) {
		list, err := writes.Read(ctx, m, memos.RouteMemoReactions, listPath)
		if err != nil {
			return false, err
		}
		for _, re := range list.Get("reactions").Array() {
			if re.Get("name").Str == name {
				return true, nil
			}
		}
		return false, nil
	}
	switch there, err := present(ctx); {
	case err != nil:
		return nil, writes.NotDone(err, "reading the memo's reactions")
	case !there:
		return nil, writes.Refuse("the memo has no reaction " + name + ": it was deleted already (by an earlier try of this call, say) or never existed")
	}
	return tb.settledDelete(ctx, r, name, func(ctx context.Context) (writes.State, error) {
		if there, err := present(ctx); err != nil || there {
			return writes.Unapplied, err
		}
		return writes.Applied, nil
	})
}

// deleteAttachment is attachment_delete_attachment, read first (one that
// is not there is reported so) and settled by reading it back.
func (tb *Table) deleteAttachment(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	m := tb.caller(t, authorization)
	path, _, _ := strings.Cut(r.Path, "?")
	name := strings.TrimPrefix(path, memos.APIRoot)
	switch _, err := writes.Read(ctx, m, memos.RouteAttachment, path); {
	case writes.Status(err) == 404:
		return nil, writes.Refuse("there is no attachment " + name + " that you can see: it was deleted already (by an earlier try of this call, say) or never existed")
	case err != nil:
		return nil, writes.NotDone(err, "")
	}
	return tb.settledDelete(ctx, r, name, func(ctx context.Context) (writes.State, error) {
		switch _, err := writes.Read(ctx, m, memos.RouteAttachment, path); {
		case writes.Status(err) == 404:
			return writes.Applied, nil
		case err != nil:
			return writes.Unknown, err
		}
		return writes.Unapplied, nil
	})
}

// settled sends a write's request, r, and answers as callRoute does when
// Memos confirms it; a clear refusal is not done, and an unclear outcome
// (no answer, not Memos', an empty one) is settled by check.
func (tb *Table) settled(ctx context.Context, r memos.Request, name string, check func(context.Context) (writes.State, error)) ([]byte, error) {
	obj, err := tb.confirmed(ctx, r)
	switch {
	case err == nil:
		return result(obj), nil
	case !writes.Unclear(err):
		return nil, writes.NotDone(err, "")
	}
	if err := writes.Settle(ctx, err, name, check); err != nil {
		return nil, err
	}
	return result([]byte(`{"ok":true,"note":` + rawjson.Quote(writes.LostNote) + `}`)), nil
}

// confirmed sends a write and returns Memos' answer when it confirms the
// write with an object of its own; otherwise the failure, which is unclear
// (writes.Unclear) for an empty answer or one that is not Memos'.
func (tb *Table) confirmed(ctx context.Context, r memos.Request) ([]byte, error) {
	resp, err := tb.memos.Send(ctx, r)
	if err != nil {
		return nil, err
	}
	obj, _, err := tb.object(r, resp)
	switch {
	case err != nil:
	case len(bytes.TrimSpace(resp.Body)) == 0:
		err = &memos.Error{Status: resp.Status, Msg: "Memos answered without a body, which does not confirm the write", Unsure: true}
	case string(obj) == "{}":
		obj = []byte(`{"ok":true}`) // as the output schemas of the writes without an answer say
	}
	return obj, err
}

// settledDelete is settled for a delete, whose 404 may be the runtime's
// own resend of a delete Memos applied: it is settled by check too.
func (tb *Table) settledDelete(ctx context.Context, r memos.Request, name string, check func(context.Context) (writes.State, error)) ([]byte, error) {
	_, err := tb.confirmed(ctx, r)
	switch {
	case err == nil:
		return result([]byte(`{"ok":true}`)), nil
	case writes.Status(err) != 404 && !writes.Unclear(err):
		return nil, writes.NotDone(err, "")
	}
	if err := writes.Settle(ctx, err, name, check); err != nil {
		return nil, err
	}
	return result([]byte(`{"ok":true}`)), nil
}
