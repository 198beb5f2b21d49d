package tools

import (
	"net/url"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// sent runs a tool call against a fake Memos and returns the request it
// made, or the tool error: the one request of a tool that reads, the write
// of one that writes (after the reads of its guard).
func sent(t *testing.T, c *Table, doer *fakeDoer, name, args string) (*web.Request, string) {
	t.Helper()
	text, isError := call(t, c, name, args)
	var reads, writes []*web.Request
	for _, r := range doer.requests() {
		if r.Method == "GET" {
			reads = append(reads, r)
		} else {
			writes = append(writes, r)
		}
	}
	if isError {
		for _, r := range writes {
			t.Errorf("a refused call wrote: %s %s", r.Method, r.URL)
		}
		return nil, text
	}
	switch {
	case len(writes) == 1:
		return writes[0], ""
	case len(writes) == 0 && len(reads) == 1:
		return reads[0], ""
	}
	t.Fatalf("%d reads and %d writes", len(reads), len(writes))
	return nil, ""
}

func TestRequests(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		method, path     string // path and query, after the base URL
		body             string // "" = no body
	}{
		{"memo id", "memo_get_memo", `{"memo":"abc"}`, "GET", "/api/v1/memos/abc", ""},
		{"memo resource name", "memo_get_memo", `{"memo":"memos/abc"}`, "GET", "/api/v1/memos/abc", ""},
		{"name that only looks like the collection", "memo_get_memo", `{"memo":"memos"}`, "GET", "/api/v1/memos/memos", ""},
		{"non-ASCII letters are escaped", "memo_get_memo", `{"memo":"notiz-ä"}`, "GET", "/api/v1/memos/notiz-%C3%A4", ""},
		{"reaction names under a memo name", "memo_delete_memo_reaction", `{"memo":"memos/abc","reaction":"memos/abc/reactions/7"}`, "DELETE", "/api/v1/memos/abc/reactions/7", ""},
		{"reaction name under a memo id", "memo_delete_memo_reaction", `{"memo":"abc","reaction":"memos/abc/reactions/7"}`, "DELETE", "/api/v1/memos/abc/reactions/7", ""},
		{"reaction id", "memo_delete_memo_reaction", `{"reaction":"7","memo":"memos/abc"}`, "DELETE", "/api/v1/memos/abc/reactions/7", ""},
		{"user name", "shortcut_list_shortcuts", `{"user":"users/alice"}`, "GET", "/api/v1/users/alice/shortcuts", ""},
		{"username", "shortcut_list_shortcuts", `{"user":"alice"}`, "GET", "/api/v1/users/alice/shortcuts", ""},
		{"attachment name", "attachment_get_attachment", `{"attachment":"attachments/x1"}`, "GET", "/api/v1/attachments/x1", ""},
		{"no arguments", "auth_get_current_user", `{}`, "GET", "/api/v1/auth/me", ""},
		{"query formatting and order", "memo_list_memos", `{"filter":"content.contains(\"a b\") && pinned","pageSize":2.0,"state":"ARCHIVED"}`,
			"GET", "/api/v1/memos?pageSize=2&state=ARCHIVED&filter=content.contains%28%22a+b%22%29+%26%26+pinned", ""},
		{"integer in exponent form", "memo_list_memos", `{"pageSize":1e1}`, "GET", "/api/v1/memos?pageSize=10", ""},
		{"query cannot be injected through a value", "memo_list_memos", `{"pageToken":"x&pageSize=1000#frag"}`, "GET", "/api/v1/memos?pageToken=x%26pageSize%3D1000%23frag", ""},
		{"body sent as given", "memo_create_memo", `{"memoId":"m1","body":{ "content" : "hi <b>&</b>",  "visibility":"PUBLIC" }}`,
			"POST", "/api/v1/memos?memoId=m1", `{ "content" : "hi <b>&</b>",  "visibility":"PUBLIC" }`},
		{"body with a path argument", "memo_create_memo_comment", `{"memo":"memos/abc","commentId":"c1","body":{"content":"c"}}`, "POST", "/api/v1/memos/abc/comments?commentId=c1", `{"content":"c"}`},
		{"update without a mask", "memo_update_memo", `{"memo":"abc","contentHash":"0e5751c026e5","body":{"pinned":true,"content":"x"}}`, "PATCH", "/api/v1/memos/abc?updateMask=content%2Cpinned", `{"pinned":true,"content":"x"}`},
		{"update with a camelCase mask", "memo_update_memo", `{"memo":"abc","contentHash":"0e5751c026e5","updateMask":"content, createTime","body":{"content":"x","createTime":"2026-01-01T00:00:00Z"}}`,
			"PATCH", "/api/v1/memos/abc?updateMask=content%2Ccreate_time", `{"content":"x","createTime":"2026-01-01T00:00:00Z"}`},
		{"location gets a mask", "memo_update_memo", `{"memo":"abc","body":{"location":{"placeholder":"Berlin","latitude":52.5,"longitude":13.4}}}`,
			"PATCH", "/api/v1/memos/abc?updateMask=location", `{"location":{"placeholder":"Berlin","latitude":52.5,"longitude":13.4}}`},
		{"location makes the mask list every body key", "memo_update_memo", `{"memo":"abc","contentHash":"0e5751c026e5","body":{"content":"x","location":{"latitude":1},"createTime":"2026-01-01T00:00:00Z"}}`,
			"PATCH", "/api/v1/memos/abc?updateMask=content%2Clocation%2Ccreate_time", `{"content":"x","location":{"latitude":1},"createTime":"2026-01-01T00:00:00Z"}`},
		{"empty mask counts as absent", "memo_update_memo", `{"memo":"abc","contentHash":"0e5751c026e5","updateMask":" , ","body":{"content":"x"}}`, "PATCH", "/api/v1/memos/abc?updateMask=content", `{"content":"x"}`},
		{"snake_case mask, repeated entries", "memo_update_memo", `{"memo":"abc","updateMask":"visibility,visibility,pinned","body":{"visibility":"PUBLIC","pinned":true}}`,
			"PATCH", "/api/v1/memos/abc?updateMask=visibility%2Cpinned", `{"visibility":"PUBLIC","pinned":true}`},
		{"reaction", "memo_upsert_memo_reaction", `{"memo":"memos/abc","body":{"reaction":{"contentId":"memos/abc","reactionType":"👍"}}}`,
			"POST", "/api/v1/memos/abc/reactions", `{"reaction":{"contentId":"memos/abc","reactionType":"👍"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{missing: map[string]bool{"/api/v1/memos/m1": true, "/api/v1/memos/c1": true}}
			req, failure := sent(t, newTable(testConfig(), doer), doer, tc.tool, tc.args)
			if req == nil {
				t.Fatalf("refused: %s", failure)
			}
			if req.Method != tc.method || req.URL != testBase+tc.path {
				t.Errorf("request %s %s\nwant    %s %s", req.Method, req.URL, tc.method, testBase+tc.path)
			}
			if string(req.Body) != tc.body {
				t.Errorf("body %s\nwant %s", req.Body, tc.body)
			}
			if got, want := req.Header.Get("content-type"), map[bool]string{true: "application/json"}[tc.body != ""]; got != want {
				t.Errorf("Content-Type %q, want %q", got, want)
			}
		})
	}
}

// Nothing a caller passes in a path argument can change the path's shape:
// every attempt is a tool error and no request is sent.
func TestPathInjection(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"empty", "memo_get_memo", `{"memo":""}`, `argument "memo" must not be empty`},
		{"collection only", "memo_get_memo", `{"memo":"memos/"}`, `argument "memo" must not be empty`},
		{"dot", "memo_get_memo", `{"memo":"."}`, `argument "memo" must be an id, not "."`},
		{"dot dot", "memo_get_memo", `{"memo":".."}`, `argument "memo" must be an id, not ".."`},
		{"dot dot after the collection", "memo_get_memo", `{"memo":"memos/.."}`, `argument "memo" must be an id, not ".."`},
		{"slash", "memo_get_memo", `{"memo":"a/b"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"climbing", "memo_get_memo", `{"memo":"../users/admin"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"climbing after the collection", "memo_get_memo", `{"memo":"memos/../attachments/x"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"another collection", "memo_get_memo", `{"memo":"attachments/x"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"extra segment", "memo_get_memo", `{"memo":"memos/abc/extra"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"leading slash", "memo_get_memo", `{"memo":"/abc"}`, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"reaction of another memo", "memo_delete_memo_reaction", `{"memo":"abc","reaction":"memos/other/reactions/7"}`, `argument "reaction" must be an id or a resource name of the form memos/abc/reactions/<id>`},
		{"encoded slash", "memo_get_memo", `{"memo":"a%2Fb"}`, `argument "memo" must not contain '%'`},
		{"encoded slash, lower case", "memo_get_memo", `{"memo":"a%2fb"}`, `argument "memo" must not contain '%'`},
		{"double-encoded slash", "memo_get_memo", `{"memo":"a%252Fb"}`, `argument "memo" must not contain '%'`},
		{"encoded dot dot", "memo_get_memo", `{"memo":"%2e%2e"}`, `argument "memo" must not contain '%'`},
		{"encoded slash after the collection", "memo_get_memo", `{"memo":"memos/%2F..%2Fx"}`, `argument "memo" must not contain '%'`},
		{"query", "memo_get_memo", `{"memo":"abc?pageSize=1"}`, `argument "memo" must not contain '?'`},
		{"fragment", "memo_get_memo", `{"memo":"abc#x"}`, `argument "memo" must not contain '#'`},
		{"newline", "memo_get_memo", `{"memo":"abc\nHost: evil"}`, `argument "memo" must not contain '\n'`},
		{"carriage return", "memo_get_memo", `{"memo":"abc\r"}`, `argument "memo" must not contain '\r'`},
		{"NUL", "memo_get_memo", `{"memo":"abc\u0000"}`, `argument "memo" must not contain '\x00'`},
		{"tab", "memo_get_memo", `{"memo":"a\tb"}`, `argument "memo" must not contain '\t'`},
		{"space", "memo_get_memo", `{"memo":"a b"}`, `argument "memo" must not contain ' '`},
		{"backslash", "memo_get_memo", `{"memo":"..\\x"}`, `argument "memo" must not contain '\\'`},
		{"verb suffix", "memo_get_memo", `{"memo":"abc:batchDelete"}`, `argument "memo" must not contain ':'`},
		{"matrix parameter", "memo_get_memo", `{"memo":"abc;x=1"}`, `argument "memo" must not contain ';'`},
		{"plus", "memo_get_memo", `{"memo":"a+b"}`, `argument "memo" must not contain '+'`},
		{"fullwidth solidus", "memo_get_memo", `{"memo":"a／b"}`, `argument "memo" must not contain '／'`},
		{"division slash", "memo_get_memo", `{"memo":"a∕b"}`, `argument "memo" must not contain '∕'`},
		{"right-to-left override", "memo_get_memo", `{"memo":"a\u202eb"}`, `argument "memo" must not contain '\u202e'`},
		{"encoded reaction", "memo_delete_memo_reaction", `{"memo":"abc","reaction":"memos/abc/reactions/%2E%2E"}`, `argument "reaction" must not contain '%'`},
		{"user climbing", "shortcut_list_shortcuts", `{"user":"users/../memos"}`, `argument "user" must be an id or a resource name of the form users/<id>`},
		{"attachment query", "attachment_delete_attachment", `{"attachment":"attachments/x?force=true"}`, `argument "attachment" must not contain '?'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{missing: map[string]bool{"/api/v1/memos/m1": true, "/api/v1/memos/c1": true}}
			req, failure := sent(t, newTable(testConfig(), doer), doer, tc.tool, tc.args)
			if req != nil {
				t.Fatalf("sent %s %s", req.Method, req.URL)
			}
			if !strings.HasPrefix(failure, tc.want) {
				t.Errorf("got  %q\nwant %q…", failure, tc.want)
			}
		})
	}
}

func TestUpdateMaskErrors(t *testing.T) {
	for _, tc := range []struct {
		name, mask, want string
	}{
		{"not a body field", "tags", `updateMask field "tags" cannot be updated: use fields of body (`},
		{"output-only field", "content,creator", `updateMask field "creator" cannot be updated`},
		{"not a name", "content;drop", `updateMask entry "content;drop" is not a field name`},
		{"leading digit", "1content", `updateMask entry "1content" is not a field name`},
		{"query inside", "content&x=1", `updateMask entry "content&x=1" is not a field name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{}
			args := `{"memo":"abc","updateMask":` + string(gjson.AppendJSONString(nil, tc.mask)) + `,"body":{"content":"x"}}`
			req, failure := sent(t, newTable(testConfig(), doer), doer, "memo_update_memo", args)
			if req != nil {
				t.Fatalf("sent %s", req.URL)
			}
			if !strings.HasPrefix(failure, tc.want) {
				t.Errorf("got  %q\nwant %q…", failure, tc.want)
			}
		})
	}
}

func TestUpdateMask(t *testing.T) {
	fields := []string{"content", "location", "pinned", "update_time", "visibility", "attachments"}
	for _, tc := range []struct {
		name, given, body string
		want, err         string
	}{
		{"absent: the body's fields, content first", "", `{"pinned":true,"content":"x"}`, "content,pinned", ""},
		{"absent, snake_case body keys", "", `{"update_time":"t","location":{}}`, "update_time,location", ""},
		{"lists last", "", `{"attachments":[],"content":"x","pinned":false}`, "content,pinned,attachments", ""},
		{"given, camelCase", "updateTime", `{"updateTime":"t"}`, "update_time", ""},
		{"given, nested path kept", "location.placeholder", `{"location":{"placeholder":"x"}}`, "location.placeholder", ""},
		{"given, reordered", "visibility,content", `{"content":"x","visibility":"PUBLIC"}`, "content,visibility", ""},
		{"given, a field absent from the body", "content,visibility", `{"visibility":"PUBLIC"}`, "", `updateMask names "content", which body does not give`},
		{"given, a body field left out", "content", `{"content":"x","pinned":true}`, "", `body gives "pinned", which updateMask leaves out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := updateMask(tc.given, rawjson.Parse(tc.body), fields)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("updateMask(%q, %s) = %q, %v; want an error %q…", tc.given, tc.body, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("updateMask(%q, %s) = %q, %v; want %q", tc.given, tc.body, got, err, tc.want)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"content": "content", "updateTime": "update_time", "update_time": "update_time",
		"createTime": "create_time", "displayTime": "display_time", "hasCode2": "has_code2",
		"location.placeholder": "location.placeholder", "motionMedia.groupId": "motion_media.group_id",
		"ID": "id", "": "",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for in, want := range map[string]string{
		"7": "7", "-3": "-3", "0": "0", "2.0": "2", "2.50": "2.5", "1e2": "100", "1E-1": "0.1",
		"12345678901234567890": "12345678901234567890", "-0.0": "-0",
	} {
		if got := formatNumber(in); got != want {
			t.Errorf("formatNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	got := parseTemplate("/api/v1/memos/{memo}/reactions/{reaction}")
	want := []segment{{literal: "/api/v1/memos/"}, {param: "memo"}, {literal: "/reactions/"}, {param: "reaction"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The caller's Authorization goes upstream unchanged, the Access service
// token is added when configured and the caller sent a token, and nothing
// else is sent.
func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		access bool
		auth   string
		want   web.Header
	}{
		{"bearer", false, "Bearer memos_pat_abc", web.Header{"accept": "application/json", "authorization": "Bearer memos_pat_abc"}},
		{"unusual scheme kept as is", false, "bearer  x y", web.Header{"accept": "application/json", "authorization": "bearer  x y"}},
		{"anonymous", false, "", web.Header{"accept": "application/json"}},
		{"access token", true, "Bearer t", web.Header{"accept": "application/json", "authorization": "Bearer t",
			"cf-access-client-id": "id.access", "cf-access-client-secret": "shh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.access {
				cfg.AccessClientID, cfg.AccessClientSecret = "id.access", "shh"
			}
			doer := &fakeDoer{}
			c := newTable(cfg, doer)
			run(c, t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), tc.auth)
			reqs := doer.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			got := reqs[0].Header
			if len(got) != len(tc.want) {
				t.Errorf("headers %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("header %s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// An anonymous call never gets the Access service token: behind Access it is
// answered at once, without any request upstream (Access would refuse it,
// and the gateway must not lend its credentials to strangers).
func TestAnonymousBehindAccess(t *testing.T) {
	cfg := testConfig()
	cfg.AccessClientID, cfg.AccessClientSecret = "id.access", "shh"
	for _, auth := range []string{"", "Bearer ", "bearer", "  "} {
		doer := &fakeDoer{probes: true}
		c := newTable(cfg, doer)
		res, ok, _, _ := run(c, t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), auth)
		text := gjson.GetBytes(res, "content.0.text").Str
		if !ok || !gjson.GetBytes(res, "isError").Bool() || !strings.Contains(text, "behind Cloudflare Access") || strings.Contains(string(res), "shh") {
			t.Errorf("call with Authorization %q behind Access: %s", auth, res)
		}
		if reqs := doer.requests(); len(reqs) != 0 {
			t.Errorf("Authorization %q: %d upstream requests, want none: %v", auth, len(reqs), reqs[0].Header)
		}
	}
}

// Behind a service binding without MEMOS_URL, a placeholder host stands in.
func TestEndpointWithoutURL(t *testing.T) {
	doer := &fakeDoer{}
	c := newTable(testConfigWithoutURL(), doer)
	run(c, t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), "")
	if reqs := doer.requests(); len(reqs) != 1 || reqs[0].URL != "https://memos.invalid/api/v1/memos/a" {
		t.Errorf("requests %v", reqs)
	}
}

func testConfigWithoutURL() (c memos.Options) {
	c = testConfig()
	c.URL = ""
	return c
}

// Whatever strings a caller passes, an accepted call's URL has the route's
// shape: the same segments, plain ids, and only the declared query.
func FuzzPathArguments(f *testing.F) {
	for _, seed := range [][2]string{
		{"memos/abc", "memos/abc/reactions/7"}, {"abc", "7"}, {"..", "."}, {"a%2Fb", "x?y"},
		{"memos/../x", "memos/abc/reactions/../../x"}, {"a\nb", "#"}, {"notiz-ä", "é"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, memo, reaction string) {
		doer := &fakeDoer{}
		c := newTable(testConfig(), doer)
		args := `{"memo":` + string(gjson.AppendJSONString(nil, memo)) + `,"reaction":` + string(gjson.AppendJSONString(nil, reaction)) + `}`
		run(c, t.Context(), "memo_delete_memo_reaction", rawjson.Parse(args), "")
		// The delete's plan reads the memo's reactions first: that
		// list's route, or the reaction's own.
		for _, req := range doer.requests() {
			u, err := url.Parse(req.URL)
			if err != nil {
				t.Fatalf("URL %q: %v", req.URL, err)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			if len(segs) < 6 || len(segs) > 7 || segs[1] != "api" || segs[2] != "v1" || segs[3] != "memos" || segs[5] != "reactions" || len(segs) == 6 && req.Method != "GET" {
				t.Fatalf("%s %q does not have the route's shape", req.Method, req.URL)
			}
			for _, s := range segs[4:] {
				if s == "reactions" {
					continue
				}
				if s == "" || s == "." || s == ".." || strings.Contains(s, "%2F") || strings.Contains(s, "%2f") || strings.Contains(s, "%25") {
					t.Fatalf("URL %q has a suspicious id %q", req.URL, s)
				}
			}
			if u.RawQuery != "" || u.Fragment != "" || u.Host != "memos.example.com" {
				t.Fatalf("URL %q has a query, a fragment or another host", req.URL)
			}
		}
	})
}
