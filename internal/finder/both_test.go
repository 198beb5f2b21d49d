package finder

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// stateMemos is a fake Memos whose ListMemos answers as Memos does for the
// parts memo_search with BOTH relies on: one state a request, newest
// first, at most pageSize memos, and a created_ts bound in the filter.
type stateMemos struct {
	*fakeMemos
	memos []struct{ id, state string }
	at    func(i int) time.Time // memo i's creation time
	lists int
}

var beforeTerm = regexp.MustCompile(`created_ts < timestamp\("([^"]+)"\)`)

func (s *stateMemos) Get(ctx context.Context, route, path string) ([]byte, error) {
	p, query, _ := strings.Cut(path, "?")
	if p != "/api/v1/memos" {
		return s.fakeMemos.Get(ctx, route, path)
	}
	s.lists++
	v, _ := url.ParseQuery(query)
	size, _ := strconv.Atoi(v.Get("pageSize"))
	var before time.Time
	if m := beforeTerm.FindStringSubmatch(v.Get("filter")); m != nil {
		before, _ = time.Parse(time.RFC3339, m[1])
	}
	var out []string
	more := false
	for i, m := range s.memos { // newest first
		if m.state != v.Get("state") || !before.IsZero() && !s.at(i).Before(before) {
			continue
		}
		if len(out) == size {
			more = true
			break
		}
		out = append(out, `{"name":"memos/`+m.id+`","state":"`+m.state+`","createTime":"`+s.at(i).Format(time.RFC3339)+`","content":"memo `+m.id+`"}`)
	}
	body := `{"memos":[` + strings.Join(out, ",") + `]`
	if more {
		body += `,"nextPageToken":"MEMOS"`
	}
	return []byte(body + "}"), nil
}

// BOTH lists normal and archived memos in one list, newest first, marking
// the archived ones, and pages through all of them once each, also where
// many share a second of creation, with two requests a page.
func TestSearchBothStates(t *testing.T) {
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   func(i int) time.Time
	}{
		{"a second each", func(i int) time.Time { return base.Add(-time.Duration(i) * time.Second) }},
		{"seven to a second", func(i int) time.Time { return base.Add(-time.Duration(i/7) * time.Second) }},
		{"all in one second", func(int) time.Time { return base }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stateMemos{fakeMemos: newFake(), at: tc.at}
			for i := range 23 {
				state := "NORMAL"
				if i%3 == 1 {
					state = "ARCHIVED"
				}
				s.memos = append(s.memos, struct{ id, state string }{"m" + strconv.Itoa(i), state})
			}
			var got []string
			token, pages := "", 0
			for {
				args := map[string]any{"state": "BOTH", "pageSize": rawjson.Numeral("5")}
				if token != "" {
					args["pageToken"] = token
				}
				before := s.lists
				out, err := (&Finder{}).memoSearch(context.Background(), args, s)
				if err != nil {
					t.Fatal(err)
				}
				if s.lists-before != 2 {
					t.Errorf("page %d: %d lists, want 2", pages, s.lists-before)
				}
				res := gjson.Parse(gjson.GetBytes(out, "content.0.text").Str)
				for _, h := range res.Get("memos").Array() {
					id := strings.TrimPrefix(h.Get("name").Str, "memos/")
					if h.Get("archived").Bool() != (number(id)%3 == 1) {
						t.Errorf("%s: archived %v", id, h.Get("archived").Bool())
					}
					got = append(got, id)
				}
				pages++
				if token = res.Get("nextPageToken").Str; token == "" || pages > 10 {
					break
				}
			}
			// Each memo once, newest first (within a second, in any order).
			once := map[string]bool{}
			for i, id := range got {
				if once[id] || i > 0 && tc.at(number(id)).After(tc.at(number(got[i-1]))) {
					t.Errorf("%s again or out of order: %v", id, got)
				}
				once[id] = true
			}
			if len(once) != len(s.memos) {
				t.Errorf("%d of %d memos in %d pages: %v", len(once), len(s.memos), pages, got)
			}
		})
	}
}

// number is the n of a memo named mn.
func number(id string) int { n, _ := strconv.Atoi(id[1:]); return n }

// A token BOTH did not make is refused before anything is asked of Memos.
func TestSearchBothTokens(t *testing.T) {
	for _, token := range []string{"MEMOS", "both.", "both.12", "both.x.a", "both.-1.a", "both.12.a/b", "both.12." + strings.Repeat("a.", maxSeen+1) + "a"} {
		s := &stateMemos{fakeMemos: newFake(), at: func(int) time.Time { return time.Now() }}
		_, err := (&Finder{}).memoSearch(context.Background(), map[string]any{"state": "BOTH", "pageToken": token}, s)
		if err == nil || !strings.Contains(err.Error(), "pageToken") || s.lists != 0 {
			t.Errorf("%q: %v after %d lists", token, err, s.lists)
		}
	}
}
