package finder

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// memo_edit changes part of a memo: it reads the memo, applies one change
// to the text Memos holds now and writes back the content alone (an
// explicit update mask), so that an agent never writes a stale copy over
// what the person changed since it read the memo. Memos takes no
// precondition on a write, so the read and the write run under the memo's
// lock (writes.Lock), which every write of a memo takes, in one isolate or
// across many.

// changes are memo_edit's kinds of change, one of which a call gives.
var changes = []string{"append", "prepend", "replace", "check", "uncheck"}

// change is the one change a memo_edit call asks for.
type change struct {
	kind string
	text string // the text added, the passage replaced, or the task's text
	with string // replace's new passage
}

func changeOf(args map[string]any) (change, error) {
	var c change
	n := 0
	for _, k := range changes {
		if _, ok := args[k]; ok {
			c.kind = k
			n++
		}
	}
	if n != 1 {
		return c, fail("give exactly one change: append, prepend, replace, check or uncheck (" + strconv.Itoa(n) + " given); for more, call memo_edit again")
	}
	if c.kind == "replace" {
		r, _ := args["replace"].(map[string]any)
		c.text, c.with = str(r, "old"), str(r, "new")
		if c.text == "" {
			return c, fail("replace.old must be the passage to replace, quoted exactly")
		}
		return c, nil
	}
	if c.text = str(args, c.kind); strings.TrimSpace(c.text) == "" {
		return c, fail(c.kind + " must not be empty")
	}
	return c, nil
}

// memoEdit is memo_edit: at most three requests to Memos (the read, the
// write, and a read-back when the write's outcome is unclear), through the
// write path (package writes): another user's memo under LOCKDOWN is
// refused, their text in a refusal is marked, and an unclear outcome is
// settled by one read-back.
func (f *Finder) memoEdit(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	id, err := idOf(str(args, "memo"), "memos/")
	if err != nil {
		return nil, err
	}
	c, err := changeOf(args)
	if err != nil {
		return nil, err
	}
	held, err := writes.Lock(ctx, f.Locks, id)
	if err != nil {
		return nil, err
	}
	ctx = held.Context()
	digest, applied := "", ""
	defer func() { held.Release(digest, applied) }()
	path := writes.MemoPath(id)
	target, err := writes.ReadTarget(ctx, m, path)
	if err != nil {
		return nil, err
	}
	name, before := target.Name(), target.Memo.Get("content").Str
	hash := str(args, "contentHash")
	if hash != "" && hash != memos.ContentHash(before) {
		return nil, writes.RefuseShowing("conflict: "+name+" has changed since it was read (contentHash "+strconv.Quote(hash)+")", current(target, before))
	}
	// The same call made again (its answer lost, or the client's retry
	// after it gave up) finds the text this call left: it is not applied
	// twice. A call with contentHash is a deliberate one.
	caller := target.Others // learnt by ReadTarget for a memo with a creator
	if !memos.HasCreator(target.Memo) {
		if caller, err = m.Others(ctx); err != nil {
			return nil, writes.NotDone(err, "learning who the caller is")
		}
	}
	digest = c.digest(caller.Me, id)
	if was, ok := held.Recent(digest); ok && hash == "" && was == memos.ContentHash(before) {
		o := newObject()
		o.str("name", name)
		o.str("contentHash", was)
		o.str("change", c.kind)
		o.str("note", "this same edit was made by an earlier try of this call, whose answer may have been lost: nothing new was written. To make it again on purpose, call memo_edit again with contentHash "+was)
		return structured(o.done(), nil), nil
	}
	after, was, now, err := c.apply(target, before)
	if err != nil {
		return nil, err
	}
	update := append(rawjson.AppendString([]byte(`{"content":`), after), '}')
	answer, perr := m.Patch(ctx, memos.RouteMemo, path+"?updateMask=content", update)
	if perr != nil && !writes.Unclear(perr) {
		return nil, writes.NotDone(perr, "")
	}
	if perr != nil || rawjson.ParseBytes(answer).Get("content").Str != after {
		err := writes.Settle(ctx, perr, name, func(ctx context.Context) (writes.State, error) {
			memo, err := writes.Read(ctx, m, memos.RouteMemo, path)
			switch held := memo.Get("content").Str; {
			case err != nil:
				return writes.Unknown, err
			case held == after:
				return writes.Applied, nil
			case held == before:
				return writes.Unapplied, nil
			}
			return writes.Unknown, nil // changed by someone else meanwhile
		})
		if err != nil {
			return nil, err
		}
	}
	applied = memos.ContentHash(after)
	o := newObject()
	o.str("name", name)
	o.str("contentHash", applied)
	o.str("change", c.kind)
	o.str("old", target.Clean(was))
	o.str("new", target.Clean(now))
	if u := undo(before, after); u != nil && !target.Theirs() {
		o.raw("undo", u)
	}
	if len(before) <= maxPreviousContent {
		o.str("previousContent", target.Clean(before))
	}
	if target.Theirs() {
		o.str(memos.OtherMember, target.Memo.Get("creator").Str)
	}
	return structured(o.done(), nil), nil
}

// maxPreviousContent is the longest text before an edit that its result
// carries whole: the result is bounded by the change, not by the memo (a
// journal may be hundreds of KB), and undo takes the undo member.
const maxPreviousContent = 1000

// undo returns memo_edit's arguments that revert an edit from before to
// after (JSON): a replace of the changed lines, widened by whole lines
// until the passage occurs once, with what they were. nil when none is
// found within maxUndoWiden lines each side, or nothing is left to find.
func undo(before, after string) []byte {
	p := 0 // the common head and tail, in bytes
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	q := 0
	for q < len(before)-p && q < len(after)-p && before[len(before)-1-q] == after[len(after)-1-q] {
		q++
	}
	start, end := p, lineEnd(after, len(after)-q)
	if p < len(after) && after[p] != '\n' { // a change within a line takes it whole
		start = lineStart(after, p)
	}
	for range maxUndoWiden {
		if start < end && strings.Count(after, after[start:end]) == 1 {
			old, new := after[start:end], before[start:end+len(before)-len(after)]
			b := rawjson.AppendString([]byte(`{"replace":{"old":`), old)
			b = rawjson.AppendString(append(b, `,"new":`...), new)
			return append(b, "}}"...)
		}
		start, end = lineStart(after, max(start-1, 0)), lineEnd(after, min(end+1, len(after)))
	}
	return nil
}

// maxUndoWiden bounds how many lines undo adds each side of a change (each
// a search of the memo).
const maxUndoWiden = 8

// digest is the call's digest for the memo's lock (lease.Lease.Recent):
// who made it, to which memo, and the change.
func (c change) digest(me, id string) string {
	h, _ := blake2b.New256(nil) // fails only for a key over 64 bytes
	for _, part := range []string{"memos-mcp-edge edit", me, id, c.kind, c.text, c.with} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// current is the part of a refusal that gives the memo's current text and
// its contentHash, for the model to start again from.
func current(target writes.Target, content string) string {
	return "Its contentHash is now " + strconv.Quote(memos.ContentHash(content)) + " and its current text follows:\n" + target.Text(content)
}

// apply applies the change to a memo's content and returns the new content
// and the passage before and after the change. Lines added take the memo's
// own line ending.
func (c change) apply(target writes.Target, content string) (after, was, now string, err error) {
	name := target.Name()
	eol := lineEnding(content)
	text := withEnding(c.text, eol)
	switch c.kind {
	case "append":
		switch {
		case content == "":
			return text, "", text, nil
		case strings.HasSuffix(content, "\n"):
			return content + text + eol, "", text, nil
		}
		return content + eol + text, "", text, nil
	case "prepend":
		if content == "" {
			return text, "", text, nil
		}
		return text + eol + content, "", text, nil
	case "replace":
		switch n := strings.Count(content, text); {
		case n == 0:
			return "", "", "", writes.RefuseShowing("replace.old does not occur in "+name+": quote the passage exactly as it is now", current(target, content))
		case n > 1:
			return "", "", "", fail("replace.old occurs " + strconv.Itoa(n) + " times in " + name + ": quote more of the text around the passage you mean, so that it occurs once")
		}
		with := withEnding(c.with, eol)
		return strings.Replace(content, text, with, 1), text, with, nil
	}
	t, err := findTask(name, content, strings.TrimSpace(c.text), c.kind == "uncheck")
	if err != nil {
		return "", "", "", err
	}
	mark := byte('x')
	if t.done {
		mark = ' '
	}
	line := content[t.start:t.end]
	i := t.mark - t.start
	return content[:t.mark] + string(mark) + content[t.mark+1:], line, line[:i] + string(mark) + line[i+1:], nil
}

// lineEnding is a memo's line ending: that of its first line.
func lineEnding(content string) string {
	if i := strings.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withEnding gives text's line breaks the ending eol.
func withEnding(text, eol string) string {
	if eol == "\n" || !strings.Contains(text, "\n") {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", eol)
}
