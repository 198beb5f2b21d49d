package finder

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// memo_search with state BOTH finds normal and archived memos in one list,
// newest first. Memos lists one state a request, so each page asks for
// both and merges them by creation time. Memos' page tokens cannot say how
// far into each list a merged page went; the page's own token does
// instead: the creation second of its last hit, and the hits shown of that
// second (a later page asks for memos created up to that second and leaves
// those out). It reads "both.<unix second>.<id>.<id>…".

// stateBoth is the state that asks for normal and archived memos alike.
const stateBoth = "BOTH"

const bothPrefix = "both."

// maxSeen bounds the hits of one second that a token carries: more memos
// than that created within one second (an import, say) cannot be paged
// through with BOTH.
const maxSeen = maxPageSize

// maxBothToken is the longest token a BOTH page returns: its second and
// maxSeen ids of at most 36 characters.
const maxBothToken = len(bothPrefix) + 20 + maxSeen*37

// bothCursor is where a BOTH page starts: memos created before Before,
// except those named in Seen.
type bothCursor struct {
	Before time.Time
	Seen   []string
}

// parseBothToken reads a token a BOTH page returned; "" is the first page.
func parseBothToken(token string) (bothCursor, error) {
	if token == "" {
		return bothCursor{}, nil
	}
	bad := fail("pageToken is not one that memo_search returned with state " + stateBoth)
	if !strings.HasPrefix(token, bothPrefix) || len(token) > maxBothToken {
		return bothCursor{}, bad
	}
	parts := strings.Split(strings.TrimPrefix(token, bothPrefix), ".")
	if len(parts) < 2 || len(parts) > maxSeen+1 {
		return bothCursor{}, bad
	}
	sec, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || sec < 0 {
		return bothCursor{}, bad
	}
	for _, id := range parts[1:] {
		if writes.CheckNewID(id) != "" {
			return bothCursor{}, bad
		}
	}
	return bothCursor{Before: time.Unix(sec+1, 0).UTC(), Seen: parts[1:]}, nil
}

// bothStates lists a page of memos in either state, newest first: two
// requests to Memos, each for the page and the hits already shown of the
// cursor's second. It returns the page's memos as a JSON array and the
// token of the next page ("" on the last).
func bothStates(ctx context.Context, m Memos, q *Query, size int64, token string) (rawjson.Value, string, error) {
	cur, err := parseBothToken(token)
	if err != nil {
		return rawjson.Value{}, "", err
	}
	paged := *q
	paged.Before = cur.Before
	filter := paged.Compile()
	want := size + int64(len(cur.Seen))
	var lists [2][]rawjson.Value
	more := false
	for i, state := range [2]string{"NORMAL", "ARCHIVED"} {
		body, err := m.Get(ctx, memos.RouteMemos, listPath(filter, state, want, ""))
		if err != nil {
			return rawjson.Value{}, "", err
		}
		page := rawjson.InPlace(body)
		more = more || page.Get("nextPageToken").Str != ""
		for _, memo := range page.Get("memos").Array() {
			if !slices.Contains(cur.Seen, memoID(memo.Get("name").Str)) {
				lists[i] = append(lists[i], memo)
			}
		}
	}
	// Merge, newest first; a normal memo before an archived one of the
	// same time.
	var out []rawjson.Value
	a, b := lists[0], lists[1]
	for int64(len(out)) < size && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || len(a) > 0 && !created(b[0]).After(created(a[0])) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	more = more || len(a) > 0 || len(b) > 0
	var arr strings.Builder
	arr.WriteByte('[')
	for i, memo := range out {
		if i > 0 {
			arr.WriteByte(',')
		}
		arr.WriteString(memo.Raw)
	}
	arr.WriteByte(']')
	if !more || len(out) == 0 {
		return rawjson.Parse(arr.String()), "", nil
	}
	// The next page starts at the last hit's second, leaving out the hits
	// of that second shown so far (on earlier pages too, when this page
	// did not leave it).
	last := created(out[len(out)-1]).Truncate(time.Second)
	next := bothPrefix + strconv.FormatInt(last.Unix(), 10)
	n := 0
	if last.Equal(cur.Before.Add(-time.Second)) {
		for _, id := range cur.Seen {
			next, n = next+"."+id, n+1
		}
	}
	for _, memo := range out {
		if created(memo).Truncate(time.Second).Equal(last) {
			next, n = next+"."+memoID(memo.Get("name").Str), n+1
		}
	}
	if n > maxSeen {
		return rawjson.Value{}, "", fail("more than " + strconv.Itoa(maxSeen) + " of these memos were created within one second, which state " +
			stateBoth + " cannot page through: search NORMAL and ARCHIVED apart")
	}
	return rawjson.Parse(arr.String()), next, nil
}

// created is a memo's creation time; the zero time when Memos wrote none
// it can read.
func created(memo rawjson.Value) time.Time {
	t, _ := parseStamp(memo.Get("createTime").Str)
	return t
}
