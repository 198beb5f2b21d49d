package tools

import (
	"context"
	"strconv"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// maxWriteRequests bounds the requests to Memos of one write: a comment
// learns who the caller is, reads the memo it goes under, the attachments
// it names (writes.MaxLinked), what holds its id in this window and the
// one before, writes, reads back and deletes what Memos left half-made.
const maxWriteRequests = writes.MaxLinked + 7

// runner runs a generated tool in place of its plain request (callRoute).
type runner func(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error)

// guards are the functions that run the generated tools whose curation
// names one (spec/curation.json, "guard"): every write, and the reads
// whose answers need more than Memos' own. TestEveryWriteHasAGuard keeps
// the names and the curation in step.
func (tb *Table) guards() map[string]runner {
	return map[string]runner{
		"get":               tb.getMemo,
		"user":              tb.currentUser,
		"list":              tb.listMemos,
		"create-memo":       tb.creator(memoCreation),
		"create-comment":    tb.creator(commentCreation),
		"create-attachment": tb.creator(attachmentCreation),
		"update":            tb.updateMemo,
		"delete-memo":       tb.deleteMemo,
		"set-attachments":   tb.setAttachments,
		"set-relations":     tb.setRelations,
		"upsert-reaction":   tb.upsertReaction,
		"delete-reaction":   tb.deleteReaction,
		"delete-attachment": tb.deleteAttachment,
	}
}

// lockedGuards are the guards of writes that change a memo (its "memo"
// argument): each runs under the memo's lock, so that two of them, or one
// and a memo_edit, through one Worker or two, never interleave their read
// and their write.
var lockedGuards = map[string]bool{
	"update": true, "delete-memo": true, "set-attachments": true, "set-relations": true,
	"upsert-reaction": true, "delete-reaction": true,
}

// locked runs a write under the lock of the memo it changes.
func (tb *Table) locked(run runner) runner {
	return func(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
		id, err := pathID("memo", str(a.values["memo"]), "memos/")
		if err != nil {
			return nil, err
		}
		held, err := writes.Lock(ctx, tb.locks, id)
		if err != nil {
			return nil, err
		}
		defer held.Release("", "")
		return run(held.Context(), t, a, authorization)
	}
}

// withMember adds a member, its value JSON, at the end of an object.
func withMember(obj []byte, key string, value []byte) []byte {
	b := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	b = append(b, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		b = append(b, ',')
	}
	b = rawjson.AppendString(b, key)
	b = append(b, ':')
	b = append(b, value...)
	return append(b, '}')
}

// result is the CallToolResult of a guard's answer, an object of compact
// JSON.
func result(obj []byte) []byte {
	escapes := 0
	for _, c := range obj {
		if c == '"' || c == '\\' {
			escapes++
		}
	}
	return successResult(obj, escapes)
}

// compact returns a value of Memos' answer as compact JSON.
func compact(v rawjson.Value) []byte {
	b, _, _ := rawjson.Compact(nil, []byte(v.Raw), memos.MaxAnswerDepth, true)
	return b
}

// callID is the id a guard gives the object a call creates when the model
// gives none: derived from the call (the tool, the caller's credentials,
// the path and the body) and the ten minutes it falls in, so that the same
// call made again, by a model that never saw the first answer because the
// client hung up, gets the same id and Memos' 409 instead of a second
// object (create also looks under the window before's id). 26 letters and
// digits, as Memos' id rule takes.
func callID(tool, authorization, path, body string, now time.Time) string {
	h, _ := blake2b.New256(nil) // fails only for a key over 64 bytes
	for _, part := range []string{"memos-mcp-edge create", tool, authorization, path, body, strconv.FormatInt(now.Unix()/idWindow, 10)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	id := make([]byte, 26)
	for i := range id { // 5 bits each, 130 of the 256
		bit := i * 5
		v := (int(sum[bit/8])<<8 | int(sum[bit/8+1])) >> (11 - bit%8) & 31
		id[i] = digits[v]
	}
	return string(id)
}

// idWindow is how many seconds the same call keeps its id.
const idWindow = 600
