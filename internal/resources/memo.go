package resources

import (
	"context"
	"errors"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// readMemo answers resources/read of memo://memos/{id}: one request to
// Memos, and one more to learn who the caller is when nothing remembers it
// (memos.Others). Another user's memo is marked, or under LOCKDOWN not
// found.
func (s *Server) readMemo(ctx context.Context, u, id, authorization string) ([]byte, error) {
	m := s.memos.As(authorization)
	raw, err := m.GetJSON(ctx, memos.RouteMemo, memos.Path(memos.RouteMemo, id))
	if status(err) == 404 {
		return nil, NotFound(u)
	}
	if err != nil {
		return nil, err
	}
	marked, err := memos.MarkOne(ctx, raw, m.Others)
	if errors.Is(err, memos.ErrLockdown) {
		return nil, lockedOut(u)
	}
	if err != nil {
		return nil, err
	}
	memo := rawjson.ParseBytes(marked)
	b := []byte(`{"contents":[{"uri":`)
	b = rawjson.AppendString(b, u)
	b = append(b, `,"mimeType":"text/markdown","text":`...)
	b = rawjson.AppendString(b, s.markdown(memo))
	return append(b, "}]}"...), nil
}

// markdown renders a memo of Memos' API as Markdown: a front matter of
// YAML with what the content does not say (its name, creator, by_other_user
// for another user's memo (memos.Others), visibility
// when not PRIVATE, pinned when it is, state when not NORMAL, the tags its
// text writes when it has any, its times in the deployment's time zone as the finding tools
// write them, the memo it comments on, and its attachments as resources),
// then the content as it is.
func (s *Server) markdown(memo rawjson.Value) string {
	var b strings.Builder
	b.WriteString("---\n")
	field := func(key, value string) {
		if value != "" {
			b.WriteString(key + ": " + scalar(value) + "\n")
		}
	}
	field("name", memo.Get("name").Str)
	field("creator", memo.Get("creator").Str)
	field("by_other_user", memo.Get(memos.OtherMember).Str)
	if v := memo.Get("visibility").Str; v != "PRIVATE" {
		field("visibility", v)
	}
	if memo.Get("pinned").Bool() {
		b.WriteString("pinned: true\n")
	}
	if state := memo.Get("state").Str; state != "NORMAL" {
		field("state", state)
	}
	// The tags the text writes: Memos v0.31 adds the parents of nested
	// ones (finder.Written).
	var tags []string
	memo.Get("tags").ForEach(func(_, tag rawjson.Value) bool {
		tags = append(tags, tag.Str)
		return true
	})
	written := finder.Written(tags, memo.Get("content").Str)
	for i, tag := range written {
		if i == 0 {
			b.WriteString("tags: [")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(rawjson.Quote(tag))
	}
	if len(written) > 0 {
		b.WriteString("]\n")
	}
	created, updated := finder.MemoTimes(memo.Get("createTime").Str, memo.Get("updateTime").Str, s.zone, s.offsets)
	field("created", created)
	field("updated", updated)
	if parent, ok := strings.CutPrefix(memo.Get("parent").Str, "memos/"); ok && memos.ValidID(parent) {
		field("comment_on", MemoPrefix+parent)
	}
	first := true
	memo.Get("attachments").ForEach(func(_, a rawjson.Value) bool {
		id, ok := strings.CutPrefix(a.Get("name").Str, "attachments/")
		if !ok || !memos.ValidID(id) {
			return true
		}
		if first {
			b.WriteString("attachments:\n")
			first = false
		}
		b.WriteString("  - {uri: " + rawjson.Quote(AttachmentPrefix+id) + ", filename: " + rawjson.Quote(a.Get("filename").Str))
		if t := a.Get("type").Str; t != "" {
			b.WriteString(", type: " + rawjson.Quote(t))
		}
		if size := a.Get("size").String(); size != "" && strings.Trim(size, "0123456789") == "" {
			b.WriteString(", size: " + size)
		}
		b.WriteString("}\n")
		return true
	})
	b.WriteString("---\n\n")
	b.WriteString(memo.Get("content").Str)
	return b.String()
}

// scalar writes a front matter value: as it is when YAML reads it back as
// the same string (names, enum values, times), else as a double-quoted
// string, whose JSON escapes YAML shares.
func scalar(s string) string {
	plain := s != "" && isAlnum(s[0])
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = isAlnum(c) || strings.IndexByte("/_.:+-", c) >= 0
	}
	if plain && !strings.Contains(s, ": ") {
		return s
	}
	return rawjson.Quote(s)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// appendListEntry writes the resources/list entry of a memo, marked by
// memos.Others: another user's says so in its description.
func appendListEntry(b []byte, id string, memo rawjson.Value) []byte {
	b = append(b, `{"uri":`...)
	b = rawjson.AppendString(b, MemoPrefix+id)
	b = append(b, `,"name":`...)
	b = rawjson.AppendString(b, "memos/"+id)
	b = append(b, `,"title":`...)
	b = rawjson.AppendString(b, Title(memo.Get("content").Str))
	if by := memo.Get(memos.OtherMember).Str; by != "" {
		b = append(b, `,"description":`...)
		b = rawjson.AppendString(b, "another user's memo, by "+by)
	}
	b = append(b, `,"mimeType":"text/markdown"`...)
	if t := memo.Get("updateTime").Str; t != "" {
		b = append(b, `,"annotations":{"lastModified":`...)
		b = rawjson.AppendString(b, t)
		b = append(b, '}')
	}
	return append(b, '}')
}

// Title names a memo for a list: finder's title of its content.
func Title(content string) string {
	if t := finder.Title(content); t != "" {
		return t
	}
	return "(empty memo)"
}
