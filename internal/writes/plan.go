package writes

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Plans. Before a write is sent, every object it names is read: what it
// would take from another memo, an id already taken, a file that does not
// exist, is refused with nothing written. Memos itself checks these only
// after it has made the memo, or not at all (docs/tools.md).

// MaxLinked bounds the attachments and relations one write names, each of
// which its plan reads (one request each).
const MaxLinked = 10

// MemoPath is the API path of the memo id.
func MemoPath(id string) string { return memos.Path(memos.RouteMemo, id) }

// AttachmentPath is the API path of the attachment id.
func AttachmentPath(id string) string { return memos.Path(memos.RouteAttachment, id) }

// idOf returns the id of a resource name (memos/abc), or "" when name is
// not one of its kind.
func idOf(name, prefix string) string {
	id, ok := strings.CutPrefix(name, prefix)
	if !ok || !memos.ValidID(id) {
		return ""
	}
	return id
}

// Attachments checks the attachments a write would give the memo target
// (its name; "" for a memo not yet made), at what: each names an
// attachment (attachments/abc) that exists, carries no bytes, and belongs
// to no memo or to target already. Setting another memo's attachment
// would take it from there, and make it as visible as target. It returns
// each attachment as Memos holds it.
func Attachments(ctx context.Context, m Memos, list []rawjson.Value, target, at string) ([]rawjson.Value, error) {
	if len(list) > MaxLinked {
		return nil, Refuse(at + " may hold at most " + strconv.Itoa(MaxLinked) + " attachments in one call")
	}
	metas := make([]rawjson.Value, 0, len(list))
	for i, a := range list {
		item := at + "[" + strconv.Itoa(i) + "]"
		name := a.Get("name").Str
		id := idOf(name, "attachments/")
		switch {
		case a.Get("content").Exists():
			return nil, Refuse(item + " carries the file's bytes, which Memos would refuse after making the memo: upload the file with attachment_create_attachment, then name it here (its name, attachments/…)")
		case name == "":
			return nil, Refuse(item + " names no attachment: upload the file with attachment_create_attachment, then name it here (its name, attachments/…)")
		case id == "":
			return nil, Refuse(item + ": " + strconv.Quote(name) + " is not an attachment's name (attachments/abc)")
		}
		meta, err := Read(ctx, m, memos.RouteAttachment, AttachmentPath(id))
		switch {
		case Status(err) == 404:
			return nil, Refuse(item + ": " + name + " does not exist")
		case err != nil:
			return nil, NotDone(err, "reading "+name)
		}
		if owner := meta.Get("memo").Str; owner != "" && owner != target {
			return nil, Refuse(item + ": " + name + " belongs to " + owner + ", and setting it here would take it from there")
		}
		metas = append(metas, meta)
	}
	return metas, nil
}

// Relations checks the relations a write gives a memo: each names a memo
// (memos/abc) that exists, at most MaxLinked of them. Memos makes the memo
// first and fails on a relation to a memo that does not exist.
func Relations(ctx context.Context, m Memos, list []rawjson.Value, at string) error {
	if len(list) > MaxLinked {
		return Refuse(at + " may hold at most " + strconv.Itoa(MaxLinked) + " relations in one call; set more afterwards with memo_set_memo_relations")
	}
	for i, rel := range list {
		name := rel.Get("relatedMemo").Get("name").Str
		id := idOf(name, "memos/")
		if id == "" {
			return Refuse(at + "[" + strconv.Itoa(i) + "]: relatedMemo.name " + strconv.Quote(name) + " is not a memo's name (memos/abc)")
		}
		if _, err := Read(ctx, m, memos.RouteMemo, MemoPath(id)); Status(err) == 404 {
			return Refuse(at + "[" + strconv.Itoa(i) + "] names " + name + ", which does not exist")
		} else if err != nil {
			return NotDone(err, "reading "+name)
		}
	}
	return nil
}

// Made is what a create finds under the id it is to use, read before it
// writes (Look).
type Made int

const (
	// Free: nothing holds the id.
	Free Made = iota
	// Ours: the object an earlier try of this very call made (the
	// caller's, holding what the call gives).
	Ours
	// Taken: another object holds the id.
	Taken
)

// Look reads what holds the id a create is to use (path, read with
// route) and tells whether it is free, the call's own earlier object
// (made by me, holding want, under parent when that is not ""), or
// taken.
func Look(ctx context.Context, m Memos, route, path, me, parent string, want rawjson.Value) (Made, rawjson.Value, error) {
	obj, err := Read(ctx, m, route, path)
	switch {
	case Status(err) == 404:
		return Free, rawjson.Value{}, nil
	case err != nil:
		return Free, rawjson.Value{}, err
	}
	return Whose(obj, me, parent, want), obj, nil
}

// Whose tells whether obj, found under the id of a create, is the call's
// own earlier object or another's.
func Whose(obj rawjson.Value, me, parent string, want rawjson.Value) Made {
	if c := obj.Get("creator").Str; c != "" && c != me {
		return Taken
	}
	if parent != "" && obj.Get("parent").Str != parent {
		return Taken
	}
	if !Holds(obj, want) {
		return Taken
	}
	return Ours
}

// TakenID is the refusal of a create whose id another object holds.
func TakenID(kind, idParam, id string) error {
	return Refuse("the id " + strconv.Quote(id) + " is taken by another object than this call's " + kind + ": give another " + idParam + ", or none (the gateway then chooses one)")
}

// CheckNewID says what keeps Memos from taking id for an object it
// creates, "" when nothing does: 1 to 36 letters (a–z, A–Z), digits and
// '-', first and last not '-' (Memos' own rule, which it checks only after
// reading the request).
func CheckNewID(id string) string {
	if len(id) == 0 || len(id) > 36 {
		return "must be 1 to 36 characters long"
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		switch {
		case c == '-' && (i == 0 || i == len(id)-1):
			return "must start and end with a letter or digit"
		case c != '-' && !alnum:
			return "must hold only letters a–z, digits and '-', not " + strconv.QuoteRune(rune(c))
		}
	}
	return ""
}
