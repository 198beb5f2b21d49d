package finder

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// memo_edit changes part of a memo: it reads the memo, applies one change
// to the text Memos holds now and writes back the content alone (an
// explicit update mask), so that an agent never writes a stale copy over
// what the person changed since it read the memo. Memos takes no
// precondition on a write, so the read and the write of one memo are
// serialized within an isolate (edits); across isolates, the window is the
// milliseconds between the two requests.

const memoRoute = "/api/v1/memos/{memo}"

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
// write, and a read-back when the write's outcome is unclear).
func (f *Finder) memoEdit(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	id, err := idOf(str(args, "memo"), "memos/")
	if err != nil {
		return nil, err
	}
	c, err := changeOf(args)
	if err != nil {
		return nil, err
	}
	unlock, err := edits.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := "/api/v1/memos/" + uri.PathEscape(id)
	body, gerr := m.Get(ctx, memoRoute, path)
	if gerr != nil {
		return nil, gerr
	}
	memo := rawjson.ParseBytes(body)
	name, before := memo.Get("name").Str, memo.Get("content").Str
	if h := str(args, "contentHash"); h != "" && h != memos.ContentHash(before) {
		return nil, fail("conflict: " + name + " has changed since it was read (contentHash " + strconv.Quote(h) + ")." + current(before))
	}
	after, was, now, err := c.apply(name, before)
	if err != nil {
		return nil, err
	}
	update := append(rawjson.AppendString([]byte(`{"content":`), after), '}')
	answer, perr := m.Patch(ctx, memoRoute, path+"?updateMask=content", update)
	if e, ok := memos.AsError(perr); ok && !e.Unsure {
		return nil, perr
	}
	if perr != nil || rawjson.ParseBytes(answer).Get("content").Str != after {
		if err := confirm(ctx, m, path, name, before, after, perr); err != nil {
			return nil, err
		}
	}
	o := newObject()
	o.str("name", name)
	o.str("contentHash", memos.ContentHash(after))
	o.str("change", c.kind)
	o.str("old", was)
	o.str("new", now)
	o.str("previousContent", before)
	return structured(o.done(), nil), nil
}

// current is the part of a refusal that gives the memo's current text and
// its contentHash, for the model to start again from.
func current(content string) string {
	return " Its contentHash is now " + strconv.Quote(memos.ContentHash(content)) + " and its current text follows:\n" + content
}

// confirm reads a memo back after a write whose outcome is unclear (cause:
// no answer, or an answer without the new text) and returns nil when the
// memo holds the new text, else the error that says what to do.
func confirm(ctx context.Context, m Memos, path, name, before, after string, cause error) error {
	why := "Memos' answer did not hold the new text"
	if cause != nil {
		why = cause.Error()
	}
	body, err := m.Get(ctx, memoRoute, path)
	if err != nil {
		return fail("the edit of " + name + " may have been made (" + why + "), and reading it back failed (" + err.Error() + "): read the memo before retrying")
	}
	switch rawjson.ParseBytes(body).Get("content").Str {
	case after:
		return nil
	case before:
		return fail("the edit of " + name + " was not made (" + why + "): the memo is unchanged, so retrying is safe")
	}
	return fail(name + " was changed by someone else while it was edited (" + why + "): read it before retrying")
}

// apply applies the change to a memo's content and returns the new content
// and the passage before and after the change. Lines added take the memo's
// own line ending.
func (c change) apply(name, content string) (after, was, now string, err error) {
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
			return "", "", "", fail("replace.old does not occur in " + name + ": quote the passage exactly as it is now." + current(content))
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
