package memos

import (
	"context"
	"errors"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Learning who the caller is costs one request to Memos at most: none
// without a token, none when the caller check knows the token, and one
// GET /api/v1/auth/me when it does not (or could not say).
func TestOthersAsksAtMostOnce(t *testing.T) {
	me := &web.Response{Status: 200, Body: []byte(`{"user":{"name":"users/1"}}`)}
	knows := func(context.Context, string) (string, error) { return "users/7", nil }
	for _, tc := range []struct {
		name, authorization string
		knowCallers         bool
		lockdown            bool
		wantMe              string
		wantRequests        int
	}{
		{name: "no token", authorization: "", wantMe: "", wantRequests: 0},
		{name: "asked", authorization: "Bearer t", wantMe: "users/1", wantRequests: 1},
		{name: "known to the caller check", authorization: "Bearer known", knowCallers: true, wantMe: "users/7", wantRequests: 0},
		{name: "lockdown", authorization: "Bearer t", lockdown: true, wantMe: "users/1", wantRequests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{resp: me}
			opts := testOptions()
			opts.Lockdown = tc.lockdown
			c := New(opts, doer)
			if tc.knowCallers {
				c.KnowCallers(knows)
			}
			o, err := c.As(tc.authorization).Others(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if o.Me != tc.wantMe || o.Lockdown != tc.lockdown {
				t.Errorf("Others = %+v, want Me %q, Lockdown %v", o, tc.wantMe, tc.lockdown)
			}
			reqs := doer.requests()
			if len(reqs) != tc.wantRequests {
				t.Fatalf("%d requests to Memos, want %d", len(reqs), tc.wantRequests)
			}
			if len(reqs) == 1 && reqs[0].URL != "https://memos.example.com/api/v1/auth/me" {
				t.Errorf("asked %s", reqs[0].URL)
			}
		})
	}
}

// A token the caller check refuses is not sent to Memos again: its error
// stands.
func TestOthersRefusedByTheCallerCheck(t *testing.T) {
	doer := &fakeDoer{resp: &web.Response{Status: 200, Body: []byte(`{"user":{"name":"users/1"}}`)}}
	c := New(testOptions(), doer)
	refused := errors.New("Memos does not accept this token")
	c.KnowCallers(func(context.Context, string) (string, error) { return "", refused })
	if _, err := c.As("Bearer t").Others(t.Context()); !errors.Is(err, refused) {
		t.Errorf("error %v, want the caller check's", err)
	}
	if n := len(doer.requests()); n != 0 {
		t.Errorf("%d requests to Memos after the caller check refused the token", n)
	}
}

// An auth/me answer without a user is a refusal.
func TestOthersWithoutUser(t *testing.T) {
	doer := &fakeDoer{resp: &web.Response{Status: 200, Body: []byte(`{}`)}}
	_, err := New(testOptions(), doer).As("Bearer t").Others(t.Context())
	if e, ok := AsError(err); !ok || !e.Refused {
		t.Errorf("error %v, want a refusal", err)
	}
}

func TestMark(t *testing.T) {
	const theirs = `{"name":"memos/b","creator":"users/2","content":"pay \u202eliame\u202c now\u200b\n- [ ] task","snippet":"pay \u202eliame"}`
	for _, tc := range []struct {
		name, me, memo, want string
	}{
		{"the caller's own", "users/1", `{"name":"memos/a","creator":"users/1","content":"a\u202eb"}`, `{"name":"memos/a","creator":"users/1","content":"a\u202eb"}`},
		{"another user's", "users/1", theirs, `{"name":"memos/b","creator":"users/2","content":"pay liame now\n- [ ] task","snippet":"pay liame","byOtherUser":"users/2"}`},
		{"every creator's to a caller without a token", "", `{"creator":"users/1","content":"x"}`, `{"creator":"users/1","content":"x","byOtherUser":"users/1"}`},
		{"no creator named", "users/1", `{"name":"memos/c","content":"x"}`, `{"name":"memos/c","content":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Others{Me: tc.me}.Mark(rawjson.Parse(tc.memo))
			if string(got) != tc.want {
				t.Errorf("Mark = %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestMarkList(t *testing.T) {
	const list = `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/2","content":"x\u2066y"}],"nextPageToken":"n"}`
	for _, tc := range []struct {
		name     string
		lockdown bool
		want     string
	}{
		{"marked", false, `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/2","content":"xy","byOtherUser":"users/2"}],"nextPageToken":"n"}`},
		{"left out under lockdown", true, `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"}],"nextPageToken":"n"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Others{Me: "users/1", Lockdown: tc.lockdown}.MarkList(rawjson.Parse(list), "memos")
			if string(got) != tc.want {
				t.Errorf("MarkList = %s\nwant %s", got, tc.want)
			}
		})
	}
	if got := (Others{Me: "users/1", Lockdown: true}).MarkList(rawjson.Parse(`{"memos":[{"creator":"users/2"}]}`), "memos"); string(got) != `{"memos":[]}` {
		t.Errorf("a page of others' memos under lockdown = %s", got)
	}
}

// Touches says whether MarkList would change a page: exactly when it does.
func TestTouches(t *testing.T) {
	for _, page := range []string{
		`{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/1"}]}`,
		`{"memos":[{"name":"memos/a","creator":"users/1"},{"name":"memos/b","creator":"users/2","content":"theirs"}]}`,
		`{"memos":[{"name":"memos/a"}]}`,
		`{"memos":[]}`,
	} {
		for _, lockdown := range []bool{false, true} {
			o := Others{Me: "users/1", Lockdown: lockdown}
			list := rawjson.Parse(page)
			if changed := string(o.MarkList(list, "memos")) != page; o.Touches(list, "memos") != changed {
				t.Errorf("%s, lockdown %v: Touches %v, MarkList changes it: %v", page, lockdown, !changed, changed)
			}
		}
	}
}
