package tools

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/random"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// creation is what a create tool makes: the argument of its id, the kind
// of object, and where it is read back.
type creation struct {
	idParam, kind, route string
	path                 func(id string) string
}

var (
	memoCreation       = creation{"memoId", "memo", memos.RouteMemo, writes.MemoPath}
	commentCreation    = creation{"commentId", "comment", memos.RouteMemo, writes.MemoPath}
	attachmentCreation = creation{"attachmentId", "attachment", memos.RouteAttachment, writes.AttachmentPath}
)

// creator runs memo_create_memo, memo_create_memo_comment or
// attachment_create_attachment (c says which) made whole or not at all, once, and never
// over another object. Its plan reads what the call names: the memo a
// comment goes under (a comment takes that memo's visibility in Memos, so
// another one asked for is refused), the attachments (they must exist and
// belong to no memo: naming another memo's file would take it from
// there) and the related memos, and what holds the id the call gives. An
// id already holding the caller's object with this call's content is an
// earlier try's, answered with that object; one holding anything else is
// refused. Without an id the gateway derives one from the call (callID;
// random for an attachment, the same file may well go to two memos), so
// that the same call made again meets Memos' 409 and the object it made,
// also across the id's ten-minute turn (one read under the window
// before's). An unclear outcome is settled by reading the id back; a
// comment Memos failed half-way, left as a memo of its own, is deleted:
// it is this call's own, under an id this call chose or found free.
func (tb *Table) creator(c creation) runner {
	return func(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
		return tb.create(ctx, t, c, a, authorization)
	}
}

func (tb *Table) create(ctx context.Context, t *tool, c creation, a arguments, authorization string) ([]byte, error) {
	m := tb.caller(t, authorization)
	body := rawjson.Parse(a.bodyRaw)
	var me, parent string
	var want rawjson.Value // what an earlier try of this call made holds
	if n := len(body.Get("attachments").Array()) + len(body.Get("relations").Array()); n > writes.MaxLinked {
		return nil, writes.Refuse("body may name at most " + strconv.Itoa(writes.MaxLinked) + " attachments and relations together (" + strconv.Itoa(n) + " given); add more afterwards with memo_set_memo_attachments and memo_set_memo_relations")
	}
	if c.kind == "attachment" {
		if _, err := base64.StdEncoding.DecodeString(body.Get("content").Str); err != nil {
			return nil, writes.Refuse("body.content is not base64 (RFC 4648, with padding): " + err.Error() + "; send the file's bytes in base64")
		}
		want = rawjson.Parse(`{"filename":` + rawjson.Quote(body.Get("filename").Str) + `,"type":` + rawjson.Quote(body.Get("type").Str) + `}`)
	} else {
		o, err := m.Others(ctx)
		if err != nil {
			return nil, writes.NotDone(err, "learning who the caller is")
		}
		me, want = o.Me, rawjson.Parse(`{"content":`+rawjson.Quote(body.Get("content").Str)+`}`)
		if parent, err = tb.planCreate(ctx, m, c, a, body); err != nil {
			return nil, err
		}
	}
	id, _ := a.values[c.idParam].(string)
	if problem := writes.CheckNewID(id); id != "" && problem != "" {
		return nil, writes.Refuse(c.idParam + " " + strconv.Quote(id) + " " + problem + ", as Memos takes ids")
	}
	switch {
	case id != "":
		made, obj, err := writes.Look(ctx, m, c.route, c.path(id), me, parent, want)
		switch {
		case err != nil:
			return nil, writes.NotDone(err, "reading what holds the id "+strconv.Quote(id))
		case made == writes.Ours:
			return existed(obj, c.idParam), nil
		case made == writes.Taken:
			return nil, writes.TakenID(c.kind, c.idParam, id)
		}
	case c.kind == "attachment":
		id = random.Text()
	default:
		path, err := buildPath(t.prep.segments, a.values)
		if err != nil {
			return nil, err
		}
		now := time.Now()
		id = callID(t.def.Name, authorization, path, a.bodyRaw, now)
		// The same call made in the ten minutes before may have its id
		// from the window before this one.
		earlier := callID(t.def.Name, authorization, path, a.bodyRaw, now.Add(-idWindow*time.Second))
		made, obj, err := writes.Look(ctx, m, c.route, c.path(earlier), me, parent, want)
		switch {
		case err != nil:
			return nil, writes.NotDone(err, "reading what an earlier try may have made")
		case made == writes.Ours && (body.Get("createTime").Exists() || within(obj, now)):
			return existed(obj, c.idParam), nil
		}
		// Memos v0.30 answers a comment under a taken id with a 500, as
		// it does one it failed half-way: the id is looked at first.
		if c.kind == "comment" {
			made, obj, err := writes.Look(ctx, m, c.route, c.path(id), me, parent, want)
			switch {
			case err != nil:
				return nil, writes.NotDone(err, "reading what an earlier try may have made")
			case made == writes.Ours:
				return existed(obj, c.idParam), nil
			}
		}
	}
	a.values[c.idParam] = id
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, err
	}
	obj, err := tb.confirmed(ctx, r)
	if err == nil {
		return result(asked(obj, body)), nil
	}
	if !writes.Unclear(err) && writes.Status(err) != 409 && writes.Status(err) < 500 {
		return nil, writes.NotDone(err, "")
	}
	return tb.settleCreate(ctx, m, c, id, me, parent, want, err)
}

// settleCreate reads back the id of a create that Memos did not answer
// with the object (cause: its failure, or an empty answer), and
// answers with what it holds: the call's object, made whole; nothing,
// safe to retry; or another object under the id.
func (tb *Table) settleCreate(ctx context.Context, m memos.Caller, c creation, id, me, parent string, want rawjson.Value, cause error) ([]byte, error) {
	name := c.kind + "s/" + id
	if c.kind == "comment" {
		name = "memos/" + id
	}
	obj, err := writes.Read(ctx, m, c.route, c.path(id))
	switch {
	case writes.Status(err) == 404 && writes.Status(cause) == 409:
		return nil, writes.TakenID(c.kind, c.idParam, id) // by an object the caller cannot see
	case writes.Status(err) == 404:
		return nil, writes.NotDone(cause, "reading "+name+" back shows nothing was made")
	case err != nil:
		return nil, writes.MayBeDone(cause, name+" (a retry with "+c.idParam+" "+strconv.Quote(id)+" cannot make a second "+c.kind+")")
	}
	if writes.Whose(obj, me, "", want) == writes.Taken {
		if writes.Status(cause) == 409 {
			return nil, writes.TakenID(c.kind, c.idParam, id)
		}
		return nil, writes.NotDone(cause, name+" holds another object than this call's")
	}
	if c.kind == "comment" && obj.Get("parent").Str == "" {
		return nil, tb.removeStray(ctx, m, name, id, cause)
	}
	if parent != "" && obj.Get("parent").Str != parent {
		return nil, writes.NotDone(cause, name+" is a comment on "+obj.Get("parent").Str+", not on "+parent)
	}
	switch {
	case writes.Status(cause) == 409:
		return existed(obj, c.idParam), nil
	case cause != nil && !writes.Unclear(cause):
		return result(withMember(compact(obj), "note", rawjson.AppendString(nil, "Memos reported a failure ("+cause.Error()+") but stored the "+c.kind+" whole; this is what it stored"))), nil
	}
	return result(withMember(compact(obj), "note", rawjson.AppendString(nil, "Memos' answer was lost on the way; this is what it stored"))), nil
}

// planCreate reads what a memo or comment names before it is made: the
// memo a comment goes under, its attachments and its relations (at most
// writes.MaxLinked of both). It returns the parent's name for a comment.
func (tb *Table) planCreate(ctx context.Context, m memos.Caller, c creation, a arguments, body rawjson.Value) (string, error) {
	var parent string
	if c.kind == "comment" {
		id, err := pathID("memo", str(a.values["memo"]), "memos/")
		if err != nil {
			return "", err
		}
		memo, err := writes.Read(ctx, m, memos.RouteMemo, writes.MemoPath(id))
		if err != nil {
			return "", writes.NotDone(err, "reading memos/"+id)
		}
		parent = memo.Get("name").Str
		if v, asked := memo.Get("visibility").Str, body.Get("visibility").Str; asked != "" && asked != v {
			return "", writes.Refuse("a comment takes the visibility of its memo in Memos, and " + parent + " is " + v + ", not " + asked + ": leave visibility out, or change the memo's")
		}
	}
	if _, err := writes.Attachments(ctx, m, body.Get("attachments").Array(), "", "body.attachments"); err != nil {
		return "", err
	}
	return parent, writes.Relations(ctx, m, body.Get("relations").Array(), "body.relations")
}

// str is a string argument's value, "" for another type.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// asked is a create's result, with a note of each field Memos holds
// otherwise than the call asked (an instance that refuses public memos,
// say): the object is made, and the model is told what it holds.
func asked(obj []byte, body rawjson.Value) []byte {
	made := rawjson.Compacted(obj)
	var differ []string
	for _, f := range []string{"content", "visibility", "pinned", "createTime", "location"} {
		switch want := body.Get(f); {
		case !want.Exists() || writes.Holds(made.Get(f), want):
		case f == "content":
			differ = append(differ, "other content")
		default:
			differ = append(differ, f+" "+string(compact(made.Get(f))))
		}
	}
	if len(differ) == 0 {
		return obj
	}
	return withMember(obj, "note", rawjson.AppendString(nil, "made, but Memos holds "+strings.Join(differ, ", ")+" rather than what was asked"))
}

// within reports whether obj was made in the idWindow before now: the
// same call made again meets its first object within exactly that window,
// not up to twice as long. (A create that gives its createTime is told
// by its id alone.)
func within(obj rawjson.Value, now time.Time) bool {
	made, ok := writes.Instant(obj.Get("createTime").Str)
	return ok && now.Sub(made) <= idWindow*time.Second
}

// existed is the result of a create that met the object an earlier try of
// the same call made (idParam names the id a model gives for a second one).
func existed(made rawjson.Value, idParam string) []byte {
	note := "it existed already, made by an earlier try of this same call: nothing new was created. To make a second one alike on purpose, give a " + idParam + " of your own"
	if made.Get("state").Str == "ARCHIVED" {
		note += ". It has been archived since"
	}
	return result(withMember(compact(made), "note", rawjson.AppendString(nil, note)))
}

// removeStray deletes the comment this call made (name, under the id
// it chose or found free, holding its text) that Memos failed half-way and
// left standing as a memo of its own, visible as such.
func (tb *Table) removeStray(ctx context.Context, m memos.Caller, name, id string, cause error) error {
	if err := m.Delete(ctx, memos.RouteMemo, writes.MemoPath(id)); err != nil {
		return writes.MayBeDone(cause, name+" (Memos made the comment as a memo of its own, and deleting it failed too: delete it with memo_delete_memo)")
	}
	return writes.NotDone(cause, "Memos had made the comment as a memo of its own, which was deleted")
}
