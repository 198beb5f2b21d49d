package finder

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Caps on what one memo_search call may ask for.
const (
	maxTextBytes   = 200 // text, in bytes
	maxWords       = 8   // words of text, each required
	maxTags        = 10  // tags and withoutTags together
	maxTagBytes    = 64
	maxPageSize    = 50
	defPageSize    = 10
	maxPageToken   = 256
	maxSnippetRune = 160
)

// parseQuery checks memo_search's arguments against the caps and turns
// them into a Query. me is the caller's user name, for scope "mine".
func (f *Finder) parseQuery(args map[string]any) (*Query, error) {
	q := &Query{AllTags: str(args, "tagMatch") == "all", Pinned: flag(args, "pinned"),
		Visibility: str(args, "visibility"), OpenTasks: flag(args, "openTasks")}
	text := str(args, "text")
	if len(text) > maxTextBytes {
		return nil, fail("text must be at most " + strconv.Itoa(maxTextBytes) + " bytes: search for a few telling words")
	}
	q.Words = strings.Fields(cleanText(text))
	if len(q.Words) > maxWords {
		return nil, fail("text may hold at most " + strconv.Itoa(maxWords) + " words, each of which must occur")
	}
	var err error
	if q.Tags, err = tags(strs(args, "tags")); err != nil {
		return nil, err
	}
	if q.NotTags, err = tags(strs(args, "withoutTags")); err != nil {
		return nil, err
	}
	if len(q.Tags)+len(q.NotTags) > maxTags {
		return nil, fail("tags and withoutTags may name at most " + strconv.Itoa(maxTags) + " tags together")
	}
	z, zerr := loadZone(str(args, "timezone"), f.offsets())
	if zerr != nil {
		return nil, fail(zerr.Error())
	}
	days, hasDays := args["lastDays"]
	d := dateArgs{on: str(args, "on"), from: str(args, "from"), to: str(args, "to"), when: str(args, "when"), hasLastDays: hasDays}
	if hasDays {
		n, err := strconv.ParseInt(string(days.(rawjson.Numeral)), 10, 64)
		if err != nil {
			n = -1 // out of range: refused below
		}
		d.lastDays = n
	}
	spans, serr := d.spans(z, f.now())
	if serr != nil {
		return nil, fail(serr.Error())
	}
	q.Spans = spans
	return q, nil
}

// tags cleans tag arguments: no leading #, no empty or overlong tag.
func tags(given []string) ([]string, error) {
	out := make([]string, 0, len(given))
	for _, t := range given {
		t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(cleanText(t)), "#"))
		t = strings.TrimSuffix(t, "/")
		switch {
		case t == "":
			return nil, fail("a tag must not be empty")
		case len(t) > maxTagBytes:
			return nil, fail("a tag must be at most " + strconv.Itoa(maxTagBytes) + " bytes")
		}
		out = append(out, t)
	}
	if len(given) > maxTags {
		return nil, fail("at most " + strconv.Itoa(maxTags) + " tags")
	}
	return out, nil
}

// listPath is the ListMemos request for a query: newest first.
func listPath(filter string, pageSize int64, pageToken string) string {
	p := "/api/v1/memos?pageSize=" + strconv.FormatInt(pageSize, 10) + "&orderBy=" + uri.QueryEscape("create_time desc")
	if filter != "" {
		p += "&filter=" + uri.QueryEscape(filter)
	}
	if pageToken != "" {
		p += "&pageToken=" + uri.QueryEscape(pageToken)
	}
	return p
}

const listRoute = "/api/v1/memos"

// me returns the caller's user name (users/<name>), or Memos' error (which
// the tools report as it is), or the tool's own error.
func me(ctx context.Context, m Memos) (string, error) {
	body, err := m.Get(ctx, "/api/v1/auth/me", "/api/v1/auth/me")
	if err != nil {
		return "", err
	}
	name := rawjson.ParseBytes(body).Get("user").Get("name").Str
	if name == "" {
		return "", fail("Memos did not say who you are: these tools need a signed-in caller (send your Memos access token)")
	}
	return name, nil
}

func (f *Finder) memoSearch(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	q, err := f.parseQuery(args)
	if err != nil {
		return nil, err
	}
	size, err := integer(args, "pageSize", 1, maxPageSize, defPageSize)
	if err != nil {
		return nil, err
	}
	token := str(args, "pageToken")
	if len(token) > maxPageToken {
		return nil, fail("pageToken is not one that memo_search returned")
	}
	if str(args, "scope") != "all" {
		var merr error
		if q.Creator, merr = me(ctx, m); merr != nil {
			return nil, merr
		}
	}
	body, gerr := m.Get(ctx, listRoute, listPath(q.Compile(), size, token))
	if gerr != nil {
		return nil, gerr
	}
	list := rawjson.ParseBytes(body)
	web := m.WebURL()
	o := newObject()
	o.open("memos", '[')
	var links []byte
	list.Get("memos").ForEach(func(_, memo rawjson.Value) bool {
		o.item('{')
		writeMemo(o, memo, web)
		o.close('}')
		links = appendLink(links, memo.Get("name").Str)
		return true
	})
	o.close(']')
	if next := list.Get("nextPageToken").Str; next != "" {
		o.str("nextPageToken", next)
	}
	return structured(o.done(), links), nil
}

// writeMemo writes the members of the short form of a memo memo_search
// answers with.
func writeMemo(o *object, memo rawjson.Value, web string) {
	name := memo.Get("name").Str
	o.str("name", name)
	o.str("snippet", snippet(memo))
	o.open("tags", '[')
	memo.Get("tags").ForEach(func(_, t rawjson.Value) bool {
		o.strItem(t.Str)
		return true
	})
	o.close(']')
	for _, k := range []string{"creator", "createTime", "updateTime", "visibility"} {
		if v := memo.Get(k).Str; v != "" {
			o.str(k, v)
		}
	}
	o.boolean("pinned", memo.Get("pinned").Bool())
	o.str("url", memoURL(web, name))
}

// snippet is the start of a memo's text, at most maxSnippetRune runes.
func snippet(memo rawjson.Value) string {
	s := memo.Get("snippet").Str
	if s == "" {
		s = memo.Get("content").Str
	}
	return clip(strings.Join(strings.Fields(s), " "), maxSnippetRune)
}

// clip cuts s to at most n runes, marking a cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i] + "…"
}

// memoID is a memo's id: its name without "memos/".
func memoID(name string) string { return strings.TrimPrefix(name, "memos/") }

// memoURL is where a person opens the memo: the web app's page for it, or
// its resource URI when the web app's address is unknown.
func memoURL(web, name string) string {
	if web == "" {
		return "memo://memos/" + memoID(name)
	}
	return web + "/memos/" + uri.PathEscape(memoID(name))
}

// appendLink adds a resource_link content item for the memo called name.
func appendLink(b []byte, name string) []byte {
	b = append(b, `,{"type":"resource_link","uri":`...)
	b = rawjson.AppendString(b, "memo://memos/"+memoID(name))
	b = append(b, `,"name":`...)
	b = rawjson.AppendString(b, name)
	return append(b, `,"mimeType":"text/markdown"}`...)
}

// structured is a CallToolResult with obj as structured content, its text
// as the first content item, and more content items after it (each
// starting with a comma).
func structured(obj, more []byte) []byte {
	b := make([]byte, 0, 2*len(obj)+len(more)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = rawjson.AppendString(b, string(obj))
	b = append(b, '}')
	b = append(b, more...)
	b = append(b, `],"structuredContent":`...)
	b = append(b, obj...)
	return append(b, '}')
}
