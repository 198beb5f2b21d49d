package finder

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Comments in finding. Memos' list of memos leaves comments out, and its
// filter never looks into them, but each memo names its comments among its
// relations. A hit says how many comments and attachments its memo has,
// and memo_search reads the comments of the first hits that have some
// (one request each, at most maxCommentReads a call) and shows those that
// hold every word, marked as comments. A word that only a comment holds is
// so found under the memos the other criteria find, not elsewhere.

// maxCommentReads bounds the hits whose comments one call reads.
const maxCommentReads = 5

// maxCommentsRead is the page of comments read per hit.
const maxCommentsRead = 50

// commentCount is how many comments a memo has, from its relations.
func commentCount(memo rawjson.Value) int {
	name, n := memo.Get("name").Str, 0
	for _, rel := range memo.Get("relations").Array() {
		if rel.Get("type").Str == "COMMENT" && rel.Get("relatedMemo").Get("name").Str == name {
			n++
		}
	}
	return n
}

// commentHits reads the comments of the hits that have some, the first
// maxCommentReads of them, and returns, by memo name, the comments that
// hold every word (other users' marked, and left out under LOCKDOWN). A
// read that fails leaves that memo out: the hit stands as Memos found it.
func commentHits(ctx context.Context, m Memos, o memos.Others, hits rawjson.Value, words []string) map[string][]rawjson.Value {
	if len(words) == 0 {
		return nil
	}
	folded := make([]string, len(words))
	for i, w := range words {
		folded[i], _ = fold(w)
	}
	found, reads := map[string][]rawjson.Value{}, 0
	hits.ForEach(func(_, memo rawjson.Value) bool {
		if commentCount(memo) == 0 {
			return true
		}
		if reads++; reads > maxCommentReads {
			return false
		}
		name := memo.Get("name").Str
		body, err := m.Get(ctx, memos.RouteMemoComments, memos.Path(memos.RouteMemoComments, memoID(name))+"?pageSize="+strconv.Itoa(maxCommentsRead))
		if err != nil {
			return true
		}
		rawjson.InPlace(body).Get("memos").ForEach(func(_, c rawjson.Value) bool {
			if (!o.Lockdown || !o.Theirs(c)) && holdsAll(c.Get("content").Str, folded) {
				found[name] = append(found[name], rawjson.ParseBytes(o.Mark(c)))
			}
			return true
		})
		return true
	})
	return found
}

// holdsAll reports whether text holds every folded word, in any case.
func holdsAll(text string, folded []string) bool {
	low, _ := fold(text)
	for _, w := range folded {
		if !strings.Contains(low, w) {
			return false
		}
	}
	return true
}

// commentBudget is how much of a matching comment a hit shows.
const commentBudget = 160

// writeComments writes how many comments and attachments a hit's memo has,
// and the comments of it that hold the words (found).
func (h *hitShape) writeComments(o *object, memo rawjson.Value, found []rawjson.Value) {
	if n := commentCount(memo); n > 0 {
		o.num("comments", int64(n))
	}
	if n := len(memo.Get("attachments").Array()); n > 0 {
		o.num("attachments", int64(n))
	}
	if len(found) == 0 {
		return
	}
	o.open("inComments", '[')
	for _, c := range found {
		o.item('{')
		o.str("name", c.Get("name").Str)
		created, _ := h.z.times(c.Get("createTime").Str, "")
		o.str("created", created)
		if v := c.Get(memos.OtherMember).Str; v != "" {
			o.str(memos.OtherMember, v)
		}
		text, cut := passages(c.Get("content").Str, h.words, false, commentBudget)
		o.str("text", text)
		if cut {
			o.boolean("cut", true)
		}
		o.close('}')
	}
	o.close(']')
}
