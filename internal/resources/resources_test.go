package resources

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos/memostest"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/tidwall/gjson"
)

// m1 is the fake Memos' memo m1 as resources/read gives it.
const m1 = "---\n" +
	"name: memos/m1\n" +
	"creator: users/alice\n" +
	"pinned: true\n" +
	"tags: [\"work/boiler\"]\n" +
	"created: 2026-03-14T09:30:00Z\n" +
	"updated: 2026-03-15T10:00:00Z\n" +
	"attachments:\n" +
	"  - {uri: \"memo://attachments/a1\", filename: \"notes.txt\", type: \"text/plain\", size: 11}\n" +
	"  - {uri: \"memo://attachments/a2\", filename: \"pic.png\", type: \"image/png\", size: 8}\n" +
	"---\n\n" +
	"# Boiler repair\nCalled the plumber. #work/boiler\n- [ ] pay the invoice"

// Each URI is read with at most two requests to Memos, on exactly the
// intended paths; a URI that names nothing of ours asks Memos nothing.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, uri, auth string
		want            string   // the result's first content, as compact JSON
		err             string   // or the error
		notFound        bool     // the error is resource-not-found
		requests        []string // what Memos was asked
	}{
		{name: "memo", uri: "memo://memos/m1", auth: memostest.Token,
			want:     `{"uri":"memo://memos/m1","mimeType":"text/markdown","text":` + rawjson.Quote(m1) + `}`,
			requests: []string{"/api/v1/memos/m1", "/api/v1/auth/me"}},
		{name: "comment", uri: "memo://memos/m3", auth: memostest.Token,
			want: `{"uri":"memo://memos/m3","mimeType":"text/markdown","text":` + rawjson.Quote("---\nname: memos/m3\ncreator: users/alice\nvisibility: PROTECTED\n"+
				"created: 2026-03-16T12:00:00Z\ncomment_on: memo://memos/m1\n---\n\nPaid: \"done\"") + `}`,
			requests: []string{"/api/v1/memos/m3", "/api/v1/auth/me"}},
		{name: "public memo without a token: another user's", uri: "memo://memos/m2",
			want: `{"uri":"memo://memos/m2","mimeType":"text/markdown","text":` + rawjson.Quote("---\nname: memos/m2\ncreator: users/alice\nby_other_user: users/alice\nvisibility: PUBLIC\ntags: [\"home\"]\n"+
				"created: 2026-04-01T08:00:00Z\n---\n\nPlant the tulips #home") + `}`,
			requests: []string{"/api/v1/memos/m2"}},
		{name: "unknown memo", uri: "memo://memos/nope", auth: memostest.Token, notFound: true, requests: []string{"/api/v1/memos/nope"}},
		{name: "text attachment", uri: "memo://attachments/a1", auth: memostest.Token,
			want:     `{"uri":"memo://attachments/a1","mimeType":"text/plain","text":"hello world"}`,
			requests: []string{"/api/v1/attachments/a1", "/file/attachments/a1/notes.txt"}},
		{name: "binary attachment", uri: "memo://attachments/a2", auth: memostest.Token,
			want:     `{"uri":"memo://attachments/a2","mimeType":"image/png","blob":"iVBORw0KGgo="}`,
			requests: []string{"/api/v1/attachments/a2", "/file/attachments/a2/pic.png"}},
		{name: "attachment over the cap", uri: "memo://attachments/big", auth: memostest.Token,
			err:      "the attachment is 99999999 bytes; resources are read up to 3072 bytes (three quarters of MAX_RESPONSE_BYTES, for its base64 form): open it in Memos instead",
			requests: []string{"/api/v1/attachments/big"}},
		{name: "external link", uri: "memo://attachments/ext", auth: memostest.Token,
			want:     `{"uri":"memo://attachments/ext","mimeType":"text/uri-list","text":"https://example.com/doc.pdf\r\n"}`,
			requests: []string{"/api/v1/attachments/ext"}},
		{name: "file name escaped into one segment", uri: "memo://attachments/weird", auth: memostest.Token,
			want:     `{"uri":"memo://attachments/weird","mimeType":"text/plain","text":"ok"}`,
			requests: []string{"/api/v1/attachments/weird", "/file/attachments/weird/..%2Fx%3Fy%23z"}},
		{name: "file name that is no segment", uri: "memo://attachments/dot", auth: memostest.Token,
			want:     `{"uri":"memo://attachments/dot","mimeType":"application/json","text":"{}"}`,
			requests: []string{"/api/v1/attachments/dot", "/file/attachments/dot/file"}},
		{name: "unknown attachment", uri: "memo://attachments/zzz", auth: memostest.Token, notFound: true, requests: []string{"/api/v1/attachments/zzz"}},
		{name: "refused token", uri: "memo://memos/m1", auth: memostest.Deleted, err: "401 Unauthorized: authentication required", requests: []string{"/api/v1/memos/m1"}},
		{name: "rate limited", uri: "memo://attachments/a1", auth: memostest.Busy, err: "429 Too Many Requests: rate limit exceeded (retry after 42 seconds)",
			requests: []string{"/api/v1/attachments/a1"}},
		// URIs that name nothing of ours never reach Memos.
		{name: "other scheme", uri: "test://static-text", notFound: true},
		{name: "scheme in capitals", uri: "MEMO://memos/m1", notFound: true},
		{name: "no id", uri: "memo://memos/", notFound: true},
		{name: "two segments", uri: "memo://memos/m1/comments", notFound: true},
		{name: "parent", uri: "memo://memos/..", notFound: true},
		{name: "current", uri: "memo://attachments/.", notFound: true},
		{name: "encoded slash", uri: "memo://memos/a%2Fb", notFound: true},
		{name: "query", uri: "memo://memos/m1?x=1", notFound: true},
		{name: "fragment", uri: "memo://memos/m1#x", notFound: true},
		{name: "space", uri: "memo://memos/m 1", notFound: true},
		{name: "backslash", uri: `memo://memos/..\x`, notFound: true},
		{name: "control character", uri: "memo://memos/m1\n", notFound: true},
		{name: "over 128 characters", uri: "memo://memos/" + strings.Repeat("a", 129), notFound: true},
		{name: "other collection", uri: "memo://users/alice", notFound: true},
		{name: "empty", uri: "", notFound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &memostest.Memos{}
			got, err := New(fake.Client(1<<20), 4096).Read(context.Background(), tc.uri, tc.auth)
			checkAnswer(t, got, err, tc.want, tc.err, tc.notFound, tc.uri)
			if diff := cmp.Diff(tc.requests, fake.Requests()); diff != "" {
				t.Errorf("requests to Memos (-want +got):\n%s", diff)
			}
		})
	}
}

// checkAnswer compares a result's first content, or its error.
func checkAnswer(t *testing.T, got []byte, err error, want, wantErr string, notFound bool, uri string) {
	t.Helper()
	var nf *jsonrpc.Error
	switch {
	case notFound:
		if !errors.As(err, &nf) || nf.Code != jsonrpc.CodeResourceNotFound || string(nf.Data) != `{"uri":`+strconv.Quote(uri)+`}` {
			t.Errorf("got %s, %v; want resource-not-found for %q", got, err, uri)
		}
	case wantErr != "":
		if err == nil || err.Error() != wantErr {
			t.Errorf("got %s, %v; want error %q", got, err, wantErr)
		}
	case err != nil:
		t.Errorf("error %v", err)
	case !gjson.ValidBytes(got):
		t.Errorf("invalid JSON %s", got)
	default:
		if diff := cmp.Diff(want, gjson.GetBytes(got, "contents.0").Raw); diff != "" || gjson.GetBytes(got, "contents.#").Int() != 1 {
			t.Errorf("contents (-want +got):\n%s\nwhole result %s", diff, got)
		}
	}
}

// A refused token and Memos' 429 reach the MCP handler as Memos' error.
func TestReadFailures(t *testing.T) {
	fake := &memostest.Memos{}
	s := New(fake.Client(1<<20), 4096)
	_, err := s.Read(context.Background(), "memo://memos/m1", memostest.Deleted)
	if !memos.IsRefused(err) {
		t.Errorf("refused token: %v is not Refused", err)
	}
	_, err = s.Read(context.Background(), "memo://memos/m1", memostest.Busy)
	if e, ok := memos.AsError(err); !ok || e.Wait != 42*time.Second {
		t.Errorf("429: %#v; want a wait of 42s", err)
	}
}

// resources/list pages through the caller's own memos with Memos' page
// token as the cursor: two requests a page (who the caller is, the page).
func TestList(t *testing.T) {
	page1 := `{"resources":[` +
		`{"uri":"memo://memos/m1","name":"memos/m1","title":"Boiler repair","mimeType":"text/markdown","annotations":{"lastModified":"2026-03-15T10:00:00Z"}},` +
		`{"uri":"memo://memos/m2","name":"memos/m2","title":"Plant the tulips #home","mimeType":"text/markdown","annotations":{"lastModified":"2026-04-01T08:00:00Z"}}],` +
		`"nextCursor":"CAEQAg=="}`
	mine := "/api/v1/memos?pageSize=50&filter=creator+%3D%3D+%22users%2Falice%22"
	for _, tc := range []struct {
		name, cursor, auth string
		want               string
		err                string
		invalid            bool
		requests           []string
	}{
		{name: "first page", auth: memostest.Token, want: page1, requests: []string{"/api/v1/auth/me", mine}},
		{name: "next page", auth: memostest.Token, cursor: "CAEQAg==",
			want:     `{"resources":[{"uri":"memo://memos/m3","name":"memos/m3","title":"Paid: \"done\"","mimeType":"text/markdown","annotations":{"lastModified":"2026-03-16T12:00:00Z"}}]}`,
			requests: []string{"/api/v1/auth/me", mine + "&pageToken=CAEQAg%3D%3D"}},
		{name: "cursor Memos refuses", auth: memostest.Token, cursor: "bogus", invalid: true,
			requests: []string{"/api/v1/auth/me", mine + "&pageToken=bogus"}},
		{name: "cursor that is no page token", auth: memostest.Token, cursor: "a&filter=x", invalid: true},
		{name: "cursor too long", auth: memostest.Token, cursor: strings.Repeat("A", 513), invalid: true},
		{name: "without a token: the public memos, another user's", want: `{"resources":[{"uri":"memo://memos/m2","name":"memos/m2","title":"Plant the tulips #home","description":"another user's memo, by users/alice","mimeType":"text/markdown","annotations":{"lastModified":"2026-04-01T08:00:00Z"}}]}`,
			requests: []string{"/api/v1/memos?pageSize=50"}},
		{name: "refused token", auth: memostest.Deleted, err: "401 Unauthorized: authentication required", requests: []string{"/api/v1/auth/me"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &memostest.Memos{}
			got, err := New(fake.Client(1<<20), 4096).List(context.Background(), tc.cursor, tc.auth)
			var invalid *jsonrpc.Error
			switch {
			case tc.invalid:
				if !errors.As(err, &invalid) || invalid.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("got %s, %v; want invalid params", got, err)
				}
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Errorf("got %s, %v; want error %q", got, err, tc.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			default:
				if diff := cmp.Diff(tc.want, string(got)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.requests, fake.Requests()); diff != "" {
				t.Errorf("requests to Memos (-want +got):\n%s", diff)
			}
		})
	}
}

// The front matter reads back as YAML with the memo's own values: plain
// where YAML keeps them as they are, quoted where it would not.
func TestMarkdownFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, memo, want string
		zone             string
	}{
		{name: "archived, quoted values",
			memo: `{"name":"memos/x","state":"ARCHIVED","creator":"users/a: b","visibility":"PUBLIC","pinned":false,"tags":["a\"b","#c"],"content":"body"}`,
			want: "---\nname: memos/x\ncreator: \"users/a: b\"\nvisibility: PUBLIC\nstate: ARCHIVED\ntags: [\"a\\\"b\", \"#c\"]\n---\n\nbody"},
		{name: "the tags the text writes, not the parents Memos v0.31 adds",
			memo: `{"name":"memos/x","state":"NORMAL","tags":["home","home/kitchen","work","work/boiler"],"content":"#home/kitchen and #work, #work/boiler"}`,
			want: "---\nname: memos/x\ntags: [\"home/kitchen\", \"work\", \"work/boiler\"]\n---\n\n#home/kitchen and #work, #work/boiler"},
		{name: "a value YAML would read otherwise", memo: `{"name":"memos/x","creator":"-users","state":"NORMAL","content":""}`,
			want: "---\nname: memos/x\ncreator: \"-users\"\n---\n\n"},
		{name: "attachment without a usable id", memo: `{"name":"memos/x","state":"NORMAL","attachments":[{"name":"attachments/a/b"},{"name":"x"}],"content":"c"}`,
			want: "---\nname: memos/x\n---\n\nc"},
		{name: "times in the deployment's zone, an edit on a later day", zone: "Europe/Berlin",
			memo: `{"name":"memos/x","state":"NORMAL","visibility":"PRIVATE","pinned":true,"createTime":"2026-11-29T23:13:22Z","updateTime":"2026-11-30T23:00:00Z","content":"c"}`,
			want: "---\nname: memos/x\npinned: true\ncreated: 2026-11-30T00:13:22+01:00\nupdated: 2026-12-01T00:00:00+01:00\n---\n\nc"},
		{name: "an edit the same day in the zone", zone: "Europe/Berlin",
			memo: `{"name":"memos/x","state":"NORMAL","createTime":"2026-11-29T23:13:22Z","updateTime":"2026-11-30T10:00:00Z","content":"c"}`,
			want: "---\nname: memos/x\ncreated: 2026-11-30T00:13:22+01:00\n---\n\nc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(nil, 4096).InZone(tc.zone, finder.GoOffsets)
			if diff := cmp.Diff(tc.want, s.markdown(rawjson.Parse(tc.memo))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"first line", "Hello\nworld", "Hello"},
		{"heading marks", "\n\n  ## Plans  \nrest", "Plans"},
		{"empty", " \n\t", "(empty memo)"},
		{"long", strings.Repeat("ä", 100), strings.Repeat("ä", 79) + "…"},
		{"exactly the limit", strings.Repeat("b", 80), strings.Repeat("b", 80)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Title(tc.content); got != tc.want {
				t.Errorf("Title(%q) = %q, want %q", tc.content, got, tc.want)
			}
		})
	}
}

// Under LOCKDOWN another user's memo is not found, and a caller without a
// token, to whom every memo is another's, is listed none without asking
// Memos; the caller's own memos stay.
func TestLockdown(t *testing.T) {
	for _, tc := range []struct {
		name, auth, uri string // uri "" lists
		want, wantNot   string
		notFound        bool
		requests        []string
	}{
		{name: "another user's memo", uri: "memo://memos/m2", notFound: true, requests: []string{"/api/v1/memos/m2"}},
		{name: "the caller's own memo", uri: "memo://memos/m2", auth: memostest.Token, want: "Plant the tulips", wantNot: "by_other_user", requests: []string{"/api/v1/memos/m2", "/api/v1/auth/me"}},
		{name: "list without a token", want: `{"resources":[]}`},
		{name: "the caller's list", auth: memostest.Token, want: `"memo://memos/m1"`,
			requests: []string{"/api/v1/auth/me", "/api/v1/memos?pageSize=50&filter=creator+%3D%3D+%22users%2Falice%22"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &memostest.Memos{Lockdown: true}
			s := New(fake.Client(1<<20), 4096)
			var got []byte
			var err error
			if tc.uri == "" {
				got, err = s.List(context.Background(), "", tc.auth)
			} else {
				got, err = s.Read(context.Background(), tc.uri, tc.auth)
			}
			var nf *jsonrpc.Error
			switch {
			case tc.notFound:
				if !errors.As(err, &nf) || nf.Code != jsonrpc.CodeResourceNotFound || !strings.Contains(nf.Message, "LOCKDOWN") {
					t.Errorf("got %s, %v; want not found, saying LOCKDOWN", got, err)
				}
			case err != nil:
				t.Fatal(err)
			case !strings.Contains(string(got), tc.want) || tc.wantNot != "" && strings.Contains(string(got), tc.wantNot):
				t.Errorf("got %s, want it to hold %s and not %q", got, tc.want, tc.wantNot)
			}
			if diff := cmp.Diff(tc.requests, fake.Requests()); diff != "" {
				t.Errorf("requests to Memos (-want +got):\n%s", diff)
			}
		})
	}
}
