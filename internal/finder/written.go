package finder

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Tags people wrote. Memos v0.31 gives a memo the parents of the tags its
// text writes as tags of their own (#home/kitchen gives home/kitchen and
// home), and counts them so; v0.30 gives only what is written. What the
// gateway shows as a memo's tags, and counts in tag_list, is what was
// written on either release: a parent that a memo carries only through
// one of its children is left out. Nothing here asks which release the
// instance runs: on v0.30 no tag is ever left out.

// Written returns the tags of a memo whose text is content that the text
// writes, in their order: tags without a parent among them, less each
// parent (home of home/kitchen) that the text does not write as a tag of
// its own.
func Written(tags []string, content string) []string {
	kept := make([]string, 0, len(tags))
	for _, t := range tags {
		if !impliedIn(t, tags, content) {
			kept = append(kept, t)
		}
	}
	return kept
}

// impliedIn reports whether tag is among tags only as the parent of
// another one: some tag is tag/…, and content never writes #tag alone.
func impliedIn(tag string, tags []string, content string) bool {
	return hasChild(tag, tags) && !writesTag(content, tag)
}

// hasChild reports whether some tag of tags is tag/….
func hasChild(tag string, tags []string) bool {
	for _, other := range tags {
		if len(other) > len(tag) && other[len(tag)] == '/' && strings.HasPrefix(other, tag) {
			return true
		}
	}
	return false
}

// writesTag reports whether content writes #tag as a tag of its own: #tag
// not followed by a character that would continue it (a letter, a digit,
// a mark, _, - or the / of a child).
func writesTag(content, tag string) bool {
	needle := "#" + tag
	for rest := content; ; {
		i := strings.Index(rest, needle)
		if i < 0 {
			return false
		}
		rest = rest[i+1+len(tag):]
		r, _ := utf8.DecodeRuneInString(rest)
		if rest == "" || !(r == '/' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			return true
		}
	}
}

// Caps of the reading of nested tags' memos for tag_list: pages of
// Memos' largest size.
const (
	nestedPageSize = 1000
	maxNestedPages = 3
)

// implied returns how many of the caller's memos (user) carry each tag
// only as the parent of another, which Memos' statistics count as if
// written. Only where the statistics hold every parent of every nested
// tag (as v0.31's do) does it read anything: the memos with a nested tag
// (at most maxNestedPages requests). complete is false when there were
// more than that, whose parents stay counted as Memos counts them.
func implied(ctx context.Context, m Memos, user string, all []Tag) (counts map[string]int64, complete bool, err error) {
	have := make(map[string]bool, len(all))
	for _, t := range all {
		have[t.Name] = true
	}
	nested := false
	for _, t := range all {
		for i := strings.IndexByte(t.Name, '/'); i >= 0; i = nextSlash(t.Name, i) {
			if !have[t.Name[:i]] {
				return nil, true, nil // parents are counted only where written
			}
			nested = true
		}
	}
	if !nested {
		return nil, true, nil
	}
	counts = map[string]int64{}
	filter := `creator == ` + quote(user) + ` && tags.exists(t, t.contains("/"))`
	token := ""
	for range maxNestedPages {
		body, err := m.Get(ctx, memos.RouteMemos, listPath(filter, "", nestedPageSize, token))
		if err != nil {
			return nil, false, err
		}
		// Read where it lies, its array once: the page can be a megabyte.
		page := rawjson.InPlace(body)
		page.ElementsOf("memos", func(memo rawjson.Value) bool {
			tags := stringsOf(memo.Get("tags"))
			if !slices.ContainsFunc(tags, func(t string) bool { return hasChild(t, tags) }) {
				return true // no parent among its tags: its text need not be read
			}
			content := memo.Get("content").Str
			for _, t := range tags {
				if impliedIn(t, tags, content) {
					counts[t]++
				}
			}
			return true
		})
		if token = page.Get("nextPageToken").Str; token == "" {
			return counts, true, nil
		}
	}
	return counts, false, nil
}

// nextSlash returns the index of the next '/' of name after i, or -1.
func nextSlash(name string, i int) int {
	j := strings.IndexByte(name[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
