package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/random"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// maxLinked bounds the relations of a create, and the attachments of
// memo_set_memo_attachments, that a guard checks one request each.
const maxLinked = 10

// create is memo_create_memo, memo_create_memo_comment and
// attachment_create_attachment made whole or not at all, once. The gateway
// chooses the new object's id when the model gives none (callID, random
// for an attachment), so that
// when the answer is lost (no answer, one not from Memos, an empty one) it
// can read the object back by that id and answer with what is there; a
// retry with the same id, or the same call made again, that Memos refuses
// as existing (409) answers with the object too, and so does the same call
// made again after the id's ten minutes changed, which finds the object
// under the earlier window's id (one read). A memo or comment is refused before anything is written when it
// carries file bytes (which Memos would refuse after making the memo) or a
// relation to a memo that does not exist (likewise); a comment that Memos
// failed half-way, leaving a memo of its own, has that memo deleted.
func (tb *Table) create(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	idParam, kind, readRoute := "memoId", "memo", memoRoute
	switch t.def.Name {
	case "memo_create_memo_comment":
		idParam, kind = "commentId", "comment"
	case "attachment_create_attachment":
		idParam, kind, readRoute = "attachmentId", "attachment", attachmentRoute
	}
	if kind != "attachment" {
		if err := tb.checkLinks(ctx, t, authorization, rawjson.Parse(a.bodyRaw)); err != nil {
			return nil, err
		}
	}
	id, _ := a.values[idParam].(string)
	switch {
	case id != "":
	case kind == "attachment":
		// Random: the same file may well be uploaded for two memos, and
		// an attachment belongs to one.
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
		made, err := tb.read(ctx, t, authorization, memoRoute, memoPath(earlier))
		switch {
		case err == nil:
			return existed(made, idParam), nil
		case status(err) != 404:
			return nil, errors.New(err.Error() + "; nothing was created")
		}
	}
	a.values[idParam] = id
	readPath := memoPath(id)
	if kind == "attachment" {
		readPath = attachmentPath(id)
	}
	retry := " (a retry with " + idParam + " " + strconv.Quote(id) + " cannot make a second " + kind + ")"
	r, resp, err := tb.send(ctx, t, a, authorization)
	if err == nil {
		var obj []byte
		if obj, _, err = tb.object(r, resp); err == nil && !emptyAnswer(resp) {
			return result(obj), nil
		}
	}
	switch {
	case status(err) == 409, kind == "attachment" && status(err) >= 500 && !unclear(err):
		// Memos v0.30 answers an attachment id taken with a 500 (a
		// unique constraint), not its 409.
		made, rerr := tb.read(ctx, t, authorization, readRoute, readPath)
		if rerr != nil {
			return nil, errors.New(err.Error() + "; nothing was created")
		}
		return existed(made, idParam), nil
	case kind == "comment" && status(err) >= 500 && !unclear(err):
		made, err := tb.removeStray(ctx, t, authorization, readPath, err)
		if err != nil {
			return nil, err
		}
		return result(compact(made)), nil
	case err != nil && !unclear(err):
		return nil, errors.New(err.Error() + "; nothing was created")
	}
	// The outcome is unclear: what Memos holds under the id tells.
	made, rerr := tb.read(ctx, t, authorization, readRoute, readPath)
	switch {
	case status(rerr) == 404:
		return nil, settled(err, "reading it back by its id shows nothing was created: trying again is safe"+retry, false)
	case rerr != nil:
		return nil, settled(err, "the "+kind+" may have been created: read "+kind+"s/"+id+" before trying again"+retry, true)
	case kind == "comment" && made.Get("parent").Str == "":
		_, err := tb.removeStray(ctx, t, authorization, readPath, err)
		return nil, err
	}
	return result(withMember(compact(made), "note", rawjson.AppendString(nil, "Memos' answer was lost on the way; this is what it stored"))), nil
}

// existed is the result of a create that met the object an earlier try of
// the same call made (idParam names the id a model gives for a second one).
func existed(made rawjson.Value, idParam string) []byte {
	return result(withMember(compact(made), "note", rawjson.AppendString(nil, "it existed already, made by an earlier try of this call: nothing new was created (to make a second one alike, give an "+idParam+" of your own)")))
}

// checkLinks refuses a memo or comment whose body Memos would take half:
// attachments with file bytes or without a name, and relations to memos
// that do not exist (one read each, at most maxLinked).
func (tb *Table) checkLinks(ctx context.Context, t *tool, authorization string, body rawjson.Value) error {
	for i, at := range body.Get("attachments").Array() {
		switch {
		case at.Get("content").Exists():
			return errors.New("body.attachments[" + strconv.Itoa(i) + "] carries the file's bytes, which Memos would refuse after making the memo: upload the file with attachment_create_attachment, then name it here (its name, attachments/…); nothing was created")
		case at.Get("name").Str == "":
			return errors.New("body.attachments[" + strconv.Itoa(i) + "] names no attachment: upload the file with attachment_create_attachment, then name it here (its name, attachments/…); nothing was created")
		}
	}
	relations := body.Get("relations").Array()
	if len(relations) > maxLinked {
		return errors.New("body.relations may hold at most " + strconv.Itoa(maxLinked) + " relations; set more afterwards with memo_set_memo_relations")
	}
	for _, rel := range relations {
		name := rel.Get("relatedMemo").Get("name").Str
		id, ok := strings.CutPrefix(name, "memos/")
		if !ok || !memos.ValidID(id) {
			return errors.New("body.relations: relatedMemo.name " + strconv.Quote(name) + " is not a memo's name (memos/abc); nothing was created")
		}
		if _, err := tb.read(ctx, t, authorization, memoRoute, memoPath(id)); status(err) == 404 {
			return errors.New("body.relations names " + name + ", which does not exist; nothing was created")
		} else if err != nil {
			return err
		}
	}
	return nil
}

// removeStray settles a comment that Memos failed (cause): one made but
// not linked to the memo it comments on stands as a memo of its own,
// visible as such, and is deleted. It returns the comment when Memos made
// it whole after all.
func (tb *Table) removeStray(ctx context.Context, t *tool, authorization, path string, cause error) (rawjson.Value, error) {
	stray, err := tb.read(ctx, t, authorization, memoRoute, path)
	switch {
	case status(err) == 404:
		return rawjson.Value{}, errors.New(cause.Error() + "; nothing was created")
	case err != nil:
		return rawjson.Value{}, settled(cause, "the comment may have been made as a memo of its own: read "+strings.TrimPrefix(path, "/api/v1/")+" before trying again", true)
	case stray.Get("parent").Str != "":
		return stray, nil
	}
	_, err = tb.memos.Send(ctx, memos.Request{Method: "DELETE", Path: path, Authorization: authorization, Tool: t.def.Name, Route: "DELETE " + memoRoute})
	if err != nil {
		return rawjson.Value{}, settled(cause, "Memos made the comment as a memo of its own, "+stray.Get("name").Str+", and deleting it failed too: delete it with memo_delete_memo", true)
	}
	return rawjson.Value{}, errors.New(cause.Error() + "; Memos had made the comment as a memo of its own, which was deleted: nothing is left, trying again is safe")
}
