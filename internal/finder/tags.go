package finder

import (
	"context"
	"math"
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Caps of tag_list.
const (
	maxTagList = 500
	defTagList = 100
)

// Tag is one of the caller's tags and how many of their memos carry it.
type Tag struct {
	Name  string
	Count int64
}

// Tags reads the caller's tags from Memos' user statistics, the most used
// first, then by name: two requests, who the caller is and their
// statistics. It looks at the first max tags of the statistics at most.
// The statistics also hold one timestamp per memo, which are not read.
// Its error is Memos' (see Memos) or the tool's own.
func Tags(ctx context.Context, m Memos, max int) ([]Tag, error) {
	user, err := me(ctx, m)
	if err != nil {
		return nil, err
	}
	return tagsOf(ctx, m, user, max)
}

// tagsOf is Tags of the caller user.
func tagsOf(ctx context.Context, m Memos, user string, max int) ([]Tag, error) {
	body, err := m.Get(ctx, memos.RouteUserStats, memos.Path(memos.RouteUserStats, userID(user)))
	if err != nil {
		return nil, err
	}
	var all []Tag
	rawjson.InPlace(body).Get("tagCount").ForEach(func(k, v rawjson.Value) bool {
		all = append(all, Tag{Name: k.Str, Count: v.Int()})
		return len(all) < max
	})
	sortTags(all)
	return all, nil
}

// tagList answers with the caller's tags and how many memos carry each,
// most used first: every tag of the statistics, whose size
// MAX_RESPONSE_BYTES bounds, each counting the memos that write it (a
// parent that a memo has only through a child is not counted for it).
func (f *Finder) tagList(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	limit, err := integer(args, "limit", 1, maxTagList, defTagList)
	if err != nil {
		return nil, err
	}
	user, gerr := me(ctx, m)
	if gerr != nil {
		return nil, gerr
	}
	all, gerr := tagsOf(ctx, m, user, math.MaxInt)
	if gerr != nil {
		return nil, gerr
	}
	through, complete, gerr := implied(ctx, m, user, all)
	if gerr != nil {
		return nil, gerr
	}
	if len(through) > 0 {
		kept := all[:0]
		for _, t := range all {
			if t.Count -= through[t.Name]; t.Count > 0 {
				kept = append(kept, t)
			}
		}
		all = kept
		sortTags(all)
	}
	o := newObject()
	o.open("tags", '[')
	for _, t := range all[:min(len(all), int(limit))] {
		o.item('{')
		o.str("tag", t.Name)
		o.num("count", t.Count)
		o.close('}')
	}
	o.close(']')
	o.num("total", int64(len(all)))
	if !complete {
		o.str("note", "parents (work of work/meetings) also count memos that have them only through a child: more than "+
			strconv.Itoa(maxNestedPages*nestedPageSize)+" memos have nested tags")
	}
	return textResult(o.done()), nil
}

// userID is a user's name without "users/".
func userID(name string) string {
	if len(name) > 6 && name[:6] == "users/" {
		return name[6:]
	}
	return name
}

// before reports whether a comes before b: more used first, then by name.
func (a Tag) before(b Tag) bool {
	return a.Count > b.Count || a.Count == b.Count && a.Name < b.Name
}

// sortTags sorts tags with before, by heapsort: O(n log n) for however
// many tags Memos sends, in less wasm than a generic sort's 20 KB.
func sortTags(t []Tag) {
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
