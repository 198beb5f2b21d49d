package finder

import (
	"context"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// ChatGPT's connectors (deep research, company knowledge) need tools named
// search and fetch with fixed shapes: search(query) answers with one text
// item holding {"results":[{"id","title","url"}]}, fetch(id) with one text
// item holding {"id","title","text","url","metadata"}, and nothing else:
// ChatGPT reads the text.

// searchResults is how many memos search returns.
const searchResults = 20

// search finds the caller's memos holding every word of query; words
// written #tag are tags (with their children).
func (f *Finder) search(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	query := str(args, "query")
	if len(query) > maxTextBytes {
		return nil, fail("query must be at most 200 bytes: search for a few telling words")
	}
	q := &Query{}
	for _, w := range strings.Fields(cleanText(query)) {
		if t, ok := strings.CutPrefix(w, "#"); ok && t != "" && len(t) <= maxTagBytes && len(q.Tags) < maxTags {
			q.Tags = append(q.Tags, strings.TrimSuffix(t, "/"))
			q.AllTags = true
			continue
		}
		q.Words = append(q.Words, w)
	}
	if len(q.Words) > maxWords {
		return nil, fail("query may hold at most 8 words, each of which must occur")
	}
	var err error
	if q.Creator, err = me(ctx, m); err != nil {
		return nil, err
	}
	body, gerr := m.Get(ctx, memos.RouteMemos, listPath(q.Compile(), "", searchResults, ""))
	if gerr != nil {
		return nil, gerr
	}
	web := m.WebURL()
	o := newObject()
	o.open("results", '[')
	rawjson.InPlace(body).Get("memos").ForEach(func(_, memo rawjson.Value) bool {
		name := memo.Get("name").Str
		o.item('{')
		o.str("id", memoID(name))
		o.str("title", title(memo))
		o.str("url", memoURL(web, name))
		o.close('}')
		return true
	})
	o.close(']')
	return textResult(o.done()), nil
}

// fetch answers with a memo's whole text. id is the memo's id, its name
// (memos/…) or its resource URI (memo://memos/…).
func (f *Finder) fetch(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	id, err := idOf(str(args, "id"), "memos/")
	if err != nil {
		return nil, err
	}
	z, err := f.zone("")
	if err != nil {
		return nil, err
	}
	body, gerr := m.Get(ctx, memos.RouteMemo, memos.Path(memos.RouteMemo, id))
	if gerr != nil {
		return nil, gerr
	}
	mb, err := memos.MarkOne(ctx, rawjson.ParseBytes(body), m.Others)
	if err != nil {
		return nil, err
	}
	memo := rawjson.ParseBytes(mb)
	name := memo.Get("name").Str
	o := newObject()
	o.str("id", memoID(name))
	o.str("title", title(memo))
	o.str("text", memo.Get("content").Str)
	o.str("url", memoURL(m.WebURL(), name))
	o.open("metadata", '{')
	writeMetadata(o, memo, z)
	o.close('}')
	return textResult(o.done()), nil
}

// writeMetadata writes fetch's metadata of a memo, all strings as ChatGPT
// takes them: times in the zone, and only what is there to say (no
// pinned when it is not, no visibility when PRIVATE, no empty lists).
func writeMetadata(o *object, memo rawjson.Value, z zone) {
	created, updated := z.times(memo.Get("createTime").Str, memo.Get("updateTime").Str)
	o.str("created", created)
	if updated != "" {
		o.str("updated", updated)
	}
	o.str("creator", memo.Get("creator").Str)
	if v := memo.Get(memos.OtherMember).Str; v != "" {
		o.str(memos.OtherMember, v)
	}
	if v := memo.Get("visibility").Str; v != "" && v != "PRIVATE" {
		o.str("visibility", v)
	}
	if memo.Get("pinned").Bool() {
		o.str("pinned", "true")
	}
	if tags := Written(stringsOf(memo.Get("tags")), memo.Get("content").Str); len(tags) > 0 {
		o.str("tags", strings.Join(tags, ", "))
	}
	var files []string
	memo.Get("attachments").ForEach(func(_, a rawjson.Value) bool {
		files = append(files, a.Get("name").Str+" ("+a.Get("filename").Str+", "+a.Get("type").Str+")")
		return true
	})
	if len(files) > 0 {
		o.str("attachments", strings.Join(files, "; "))
	}
}

// title names a memo: its Title, that of its snippet, or its name.
func title(memo rawjson.Value) string {
	for _, k := range []string{"content", "snippet", "name"} {
		if t := Title(memo.Get(k).Str); t != "" {
			return t
		}
	}
	return ""
}

// maxTitle bounds a memo's title, in runes.
const maxTitle = 80

// Title names a memo by its text: the first line that has text, without
// Markdown's heading marks, cut to maxTitle runes; "" for a memo without
// text.
func Title(content string) string {
	for line := range strings.SplitSeq(content, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); line != "" {
			return clip(line, maxTitle)
		}
	}
	return ""
}

// idOf reads an id given as the id itself, as a resource name (prefix
// memos/ or attachments/) or as a memo:// URI.
func idOf(s, prefix string) (string, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "memo://")
	s = strings.TrimPrefix(s, prefix)
	if s == "" || len(s) > 64 || strings.ContainsAny(s, "/?#%\\") {
		return "", fail("id must be a " + strings.TrimSuffix(prefix, "s/") + "'s id, such as " + prefix + "AbC123 or just AbC123")
	}
	return s, nil
}

func stringsOf(v rawjson.Value) []string {
	var out []string
	v.ForEach(func(_, s rawjson.Value) bool {
		out = append(out, s.Str)
		return true
	})
	return out
}
