package finder

import (
	"cmp"
	"context"
	"slices"
	"strconv"

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
	slices.SortFunc(all, func(a, b tagCount) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.tag, b.tag))
	})
	obj := []byte(`{"tags":[`)
	for i, t := range all[:min(len(all), int(limit))] {
		if i > 0 {
			obj = append(obj, ',')
		}
		obj = append(obj, `{"tag":`...)
		obj = rawjson.AppendString(obj, t.tag)
		obj = append(obj, `,"count":`...)
		obj = strconv.AppendInt(obj, t.count, 10)
		obj = append(obj, '}')
	}
	obj = append(obj, `],"total":`...)
	obj = strconv.AppendInt(obj, int64(len(all)), 10)
	obj = append(obj, '}')
	return structured(obj, nil), nil
}

// userID is a user's name without "users/".
func userID(name string) string {
	if len(name) > 6 && name[:6] == "users/" {
		return name[6:]
	}
	return name
}
