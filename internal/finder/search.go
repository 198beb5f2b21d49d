package finder

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Caps on what one memo_search call may ask for.
const (
	maxTextBytes = 200 // text, in bytes
	maxWords     = 8   // words of text, each required
	maxTags      = 10  // tags and withoutTags together
	maxTagBytes  = 64
	maxPageSize  = 50
	defPageSize  = 10
	maxPageToken = 256
)

// parseQuery checks memo_search's arguments against the caps and turns
// them into a Query, with the time zone it is in.
func (f *Finder) parseQuery(args map[string]any) (*Query, zone, error) {
	q := &Query{AllTags: str(args, "tagMatch") == "all", Pinned: flag(args, "pinned"),
		Visibility: str(args, "visibility"), OpenTasks: flag(args, "openTasks")}
	text := str(args, "text")
	if len(text) > maxTextBytes {
		return nil, zone{}, fail("text must be at most " + strconv.Itoa(maxTextBytes) + " bytes: search for a few telling words")
	}
	q.Words = strings.Fields(cleanText(text))
	if len(q.Words) > maxWords {
		return nil, zone{}, fail("text may hold at most " + strconv.Itoa(maxWords) + " words, each of which must occur")
	}
	var err error
	if q.Tags, err = tags(strs(args, "tags")); err != nil {
		return nil, zone{}, err
	}
	if q.NotTags, err = tags(strs(args, "withoutTags")); err != nil {
		return nil, zone{}, err
	}
	if len(q.Tags)+len(q.NotTags) > maxTags {
		return nil, zone{}, fail("tags and withoutTags may name at most " + strconv.Itoa(maxTags) + " tags together")
	}
	z, err := f.zone(str(args, "timezone"))
	if err != nil {
		return nil, z, err
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
		return nil, zone{}, fail(serr.Error())
	}
	q.Spans = spans
	return q, z, nil
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

// listPath is the ListMemos request for a query: newest first, in state
// ("": Memos' default, NORMAL).
func listPath(filter, state string, pageSize int64, pageToken string) string {
	p := memos.RouteMemos + "?pageSize=" + strconv.FormatInt(pageSize, 10) + "&orderBy=" + uri.QueryEscape("create_time desc")
	if state != "" {
		p += "&state=" + uri.QueryEscape(state)
	}
	if filter != "" {
		p += "&filter=" + uri.QueryEscape(filter)
	}
	if pageToken != "" {
		p += "&pageToken=" + uri.QueryEscape(pageToken)
	}
	return p
}

// me returns the caller's user name (users/<name>), or Memos' error (which
// the tools report as it is), or the tool's own error.
func me(ctx context.Context, m Memos) (string, error) {
	o, err := m.Others(ctx)
	if err != nil {
		return "", err
	}
	if o.Me == "" {
		return "", errAnonymous
	}
	return o.Me, nil
}

var errAnonymous = fail("Memos did not say who you are: these tools need a signed-in caller (send your Memos access token)")

func (f *Finder) memoSearch(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	q, z, err := f.parseQuery(args)
	if err != nil {
		return nil, err
	}
	size, err := integer(args, "pageSize", 1, maxPageSize, defPageSize)
	if err != nil {
		return nil, err
	}
	state, token := str(args, "state"), str(args, "pageToken")
	if state != stateBoth && len(token) > maxPageToken {
		return nil, fail("pageToken is not one that memo_search returned")
	}
	// Under scope all other users' memos are marked (memos.Others), and
	// under LOCKDOWN the search is the caller's alone.
	others, err := m.Others(ctx)
	if err != nil {
		return nil, err
	}
	if str(args, "scope") != "all" || others.Lockdown {
		if others.Me == "" {
			return nil, errAnonymous
		}
		q.Creator = others.Me
	}
	var found rawjson.Value
	var next string
	if state == stateBoth {
		found, next, err = bothStates(ctx, m, q, size, token)
	} else {
		var body []byte
		body, err = m.Get(ctx, memos.RouteMemos, listPath(q.Compile(), state, size, token))
		list := rawjson.InPlace(body)
		found, next = list.Get("memos"), list.Get("nextPageToken").Str
	}
	if err != nil {
		return nil, err
	}
	h := hitShape{z: z, words: q.Words, tasks: q.OpenTasks != nil && *q.OpenTasks, budget: hitBudget,
		creator: q.Creator == "", visibility: q.Visibility == "", pinned: q.Pinned == nil, archived: state == stateBoth}
	if len(h.words) == 0 && !h.tasks && fewAndShort(found) {
		h.budget = pageWhole // nothing to match: the memos are what was asked for
	}
	inComments := commentHits(ctx, m, others, found, q.Words)
	o := newObject()
	o.open("memos", '[')
	found.ForEach(func(_, memo rawjson.Value) bool {
		o.item('{')
		hit := memo // the caller's own as it is, another user's marked
		if others.Theirs(memo) {
			hit = rawjson.InPlace(others.Mark(memo))
		}
		h.write(o, hit)
		h.writeComments(o, memo, inComments[memo.Get("name").Str])
		o.close('}')
		return true
	})
	o.close(']')
	if next != "" {
		o.str("nextPageToken", next)
	}
	if str(args, "timezone") == "" {
		o.str("timezone", z.name) // the deployment's, which the caller did not name
	}
	if web := m.WebURL(); web != "" {
		o.str("url", web+"/memos/{id}")
	}
	return textResult(o.done()), nil
}

// fewAndShort reports whether a page's memos hold at most pageWhole
// characters together.
func fewAndShort(memos rawjson.Value) bool {
	total := 0
	memos.ForEach(func(_, memo rawjson.Value) bool {
		total += utf8.RuneCountInString(memo.Get("content").Str)
		return total <= pageWhole
	})
	return total <= pageWhole
}

// hitShape is how memo_search writes a hit: its times in the zone, the
// passages of its text that the query matched, and only the fields the
// call does not imply.
type hitShape struct {
	z      zone
	words  []string
	tasks  bool
	budget int
	// Whether to write creator (not under scope mine), visibility (not
	// when the call chose it), pinned (nor that) and archived (when the
	// call asked for both states).
	creator, visibility, pinned, archived bool
}

// write writes the members of a hit.
func (h *hitShape) write(o *object, memo rawjson.Value) {
	o.str("name", memo.Get("name").Str)
	created, updated := h.z.times(memo.Get("createTime").Str, memo.Get("updateTime").Str)
	o.str("created", created)
	if updated != "" {
		o.str("updated", updated)
	}
	if v := memo.Get("creator").Str; h.creator && v != "" {
		o.str("creator", v)
	}
	if v := memo.Get(memos.OtherMember).Str; v != "" {
		o.str(memos.OtherMember, v)
	}
	if v := memo.Get("visibility").Str; h.visibility && v != "" && v != "PRIVATE" {
		o.str("visibility", v)
	}
	if h.pinned && memo.Get("pinned").Bool() {
		o.boolean("pinned", true)
	}
	if h.archived && memo.Get("state").Str == "ARCHIVED" {
		o.boolean("archived", true)
	}
	content := memo.Get("content").Str
	if tags := Written(stringsOf(memo.Get("tags")), content); len(tags) > 0 {
		o.open("tags", '[')
		for _, t := range tags {
			o.strItem(t)
		}
		o.close(']')
	}
	text, cut := passages(content, h.words, h.tasks, h.budget)
	o.str("text", text)
	if cut {
		o.boolean("cut", true)
	}
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
	return s[:i] + cutMark
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

// textResult is a CallToolResult whose one content item is obj as text:
// an answer a model reads, sent once. Hosts give models the text item
// (Claude Code and Open WebUI nothing else), and the tools that answer so
// declare no output schema, which would oblige a structuredContent copy.
func textResult(obj []byte) []byte {
	b := make([]byte, 0, len(obj)+len(obj)/8+48)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = rawjson.AppendString(b, string(obj))
	return append(b, `}]}`...)
}
