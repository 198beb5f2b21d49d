package finder

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Caps of tag_list.
const (
	maxTagList = 500
	defTagList = 100
)

type tagCount struct {
	tag   string
	count int64
}

// tagList answers with the caller's tags and how many memos carry each,
// from Memos' user statistics, most used first. The statistics also hold
// one timestamp per memo, which stay out of the answer.
func (f *Finder) tagList(ctx context.Context, args map[string]any, m Memos) ([]byte, *Failure) {
	limit, err := integer(args, "limit", 1, maxTagList, defTagList)
	if err != nil {
		return nil, err
	}
	user, err := me(ctx, m)
	if err != nil {
		return nil, err
	}
	body, gerr := m.Get(ctx, "/api/v1/{user}:getStats", "/api/v1/users/"+uri.PathEscape(userID(user))+":getStats")
	if gerr != nil {
		return nil, asFailure(gerr)
	}
	var all []tagCount
	rawjson.ParseBytes(body).Get("tagCount").ForEach(func(k, v rawjson.Value) bool {
		all = append(all, tagCount{tag: k.Str, count: v.Int()})
		return true
	})
	sortTags(all)
	o := newObject()
	o.open("tags", '[')
	for _, t := range all[:min(len(all), int(limit))] {
		o.item('{')
		o.str("tag", t.tag)
		o.num("count", t.count)
		o.close('}')
	}
	o.close(']')
	o.num("total", int64(len(all)))
	return structured(o.done(), nil), nil
}

// userID is a user's name without "users/".
func userID(name string) string {
	if len(name) > 6 && name[:6] == "users/" {
		return name[6:]
	}
	return name
}

// before reports whether a comes before b: more used first, then by name.
func (a tagCount) before(b tagCount) bool {
	return a.count > b.count || a.count == b.count && a.tag < b.tag
}

// sortTags sorts tags with before, by heapsort: O(n log n) for however
// many tags Memos sends, in less wasm than a generic sort's 20 KB.
func sortTags(t []tagCount) {
	// A heap whose root comes last in the order; each root taken goes to
	// the end of what is left.
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && t[c].before(t[c+1]) {
				c++
			}
			if !t[i].before(t[c]) {
				return
			}
			t[i], t[c] = t[c], t[i]
			i = c
		}
	}
	for i := len(t)/2 - 1; i >= 0; i-- {
		down(i, len(t))
	}
	for n := len(t) - 1; n > 0; n-- {
		t[0], t[n] = t[n], t[0]
		down(0, n)
	}
}
