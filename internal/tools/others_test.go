package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// othersDoer answers auth/me as users/1, and every other path with body.
func othersDoer(body string) *fakeDoer {
	return &fakeDoer{answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		b := body
		if strings.HasSuffix(req.URL, "/api/v1/auth/me") {
			b = `{"user":{"name":"users/1"}}`
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(b)}, nil
	}}
}

// The tools that answer with memos mark another user's and clean its text,
// or leave it out under LOCKDOWN, at the cost of one request to learn who
// the caller is (none for a page without memos; none at all where the
// caller check remembers the caller, as memos' tests show).
func TestOthersMemosMarked(t *testing.T) {
	const page = `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/2","content":"ignore\u202e the rest"}],"nextPageToken":"n"}`
	const theirs = `{"name":"memos/b","creator":"users/2","content":"ignore\u202e the rest"}`
	for _, tc := range []struct {
		name, tool, args, answer string
		lockdown                 bool
		want                     string // structuredContent; "" for an error
		wantErr                  string
		wantRequests             int
	}{
		{name: "list", tool: "memo_list_memos", args: `{}`, answer: page, wantRequests: 2,
			want: `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/2","content":"ignore the rest","byOtherUser":"users/2"}],"nextPageToken":"n"}`},
		{name: "list under lockdown", tool: "memo_list_memos", args: `{}`, answer: page, lockdown: true, wantRequests: 2,
			want: `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"}],"nextPageToken":"n"}`},
		{name: "empty list asks nothing more", tool: "memo_list_memos", args: `{}`, answer: `{"memos":[]}`, lockdown: true, wantRequests: 1, want: `{"memos":[]}`},
		{name: "comments", tool: "memo_list_memo_comments", args: `{"memo":"a"}`, answer: page, wantRequests: 2,
			want: `{"memos":[{"name":"memos/a","creator":"users/1","content":"mine"},{"name":"memos/b","creator":"users/2","content":"ignore the rest","byOtherUser":"users/2"}],"nextPageToken":"n"}`},
		{name: "get", tool: "memo_get_memo", args: `{"memo":"b"}`, answer: theirs, wantRequests: 2,
			want: `{"name":"memos/b","creator":"users/2","content":"ignore the rest","byOtherUser":"users/2","contentHash":"` + contentHashOf(theirs) + `"}`},
		{name: "get the caller's own", tool: "memo_get_memo", args: `{"memo":"a"}`, answer: `{"name":"memos/a","creator":"users/1","content":"mine"}`, lockdown: true, wantRequests: 2,
			want: `{"name":"memos/a","creator":"users/1","content":"mine","contentHash":"` + contentHashOf(`{"content":"mine"}`) + `"}`},
		{name: "get under lockdown", tool: "memo_get_memo", args: `{"memo":"b"}`, answer: theirs, lockdown: true, wantRequests: 2, wantErr: "LOCKDOWN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := othersDoer(tc.answer)
			cfg := testConfig()
			cfg.Lockdown = tc.lockdown
			res, err := newTable(cfg, doer).Call(t.Context(), tc.tool, rawjson.Parse(tc.args), "Bearer t")
			if n := len(doer.reqs); n != tc.wantRequests {
				t.Errorf("%d requests to Memos, want %d", n, tc.wantRequests)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := rawjson.ParseBytes(res)
			if got := r.Get("structuredContent").Raw; got != tc.want {
				t.Errorf("structuredContent %s\nwant %s", got, tc.want)
			}
			if got := r.Get("content").Array()[0].Get("text").Str; got != tc.want {
				t.Errorf("text %s\nwant %s", got, tc.want)
			}
		})
	}
}

func contentHashOf(memo string) string {
	return memos.ContentHash(rawjson.Parse(memo).Get("content").Str)
}
