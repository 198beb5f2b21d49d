package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
	"github.com/tidwall/gjson"
)

// Every write the registry holds runs through a guard (the write path),
// and every guard and confirmation the curation names has its function
// here.
func TestEveryWriteHasAGuard(t *testing.T) {
	tb := newTable(testConfig(), &fakeDoer{})
	guards := tb.guards()
	for _, def := range registry.All() {
		switch {
		case def.Handwritten != nil:
		case !def.ReadOnly && def.Guard == "":
			t.Errorf("%s writes without a guard", def.Name)
		case def.Guard != "" && guards[def.Guard] == nil:
			t.Errorf("%s: the curation names guard %q, which package tools has no function for", def.Name, def.Guard)
		case def.Confirm != "" && questions()[def.Confirm] == nil:
			t.Errorf("%s: the curation names confirmation %q, which package tools has no function for", def.Name, def.Confirm)
		}
	}
}

// A guarded write costs at most maxWriteRequests requests to Memos, in its
// most expensive case: a create with the most relations whose answer is
// lost, and the most attachments to set.
func TestGuardCost(t *testing.T) {
	relations := make([]string, writes.MaxLinked)
	attachments := make([]string, writes.MaxLinked)
	for i := range relations {
		relations[i] = `{"memo":{"name":"memos/new"},"relatedMemo":{"name":"memos/r` + strconv.Itoa(i) + `"},"type":"REFERENCE"}`
		attachments[i] = `{"name":"attachments/a` + strconv.Itoa(i) + `"}`
	}
	for _, tc := range []struct {
		name, tool, args string
	}{
		{"create with relations, answer lost", "memo_create_memo", `{"body":{"content":"x","relations":[` + strings.Join(relations, ",") + `]}}`},
		{"create with attachments and relations, answer lost", "memo_create_memo", `{"body":{"content":"x","relations":[` + strings.Join(relations[:5], ",") + `],"attachments":[` + strings.Join(attachments[:5], ",") + `]}}`},
		{"comment with attachments, answer lost", "memo_create_memo_comment", `{"memo":"p","body":{"content":"x","attachments":[` + strings.Join(attachments, ",") + `]}}`},
		{"relations to set, answer lost", "memo_set_memo_relations", `{"memo":"m","body":{"relations":[` + strings.Join(relations, ",") + `]}}`},
		{"attachments to set", "memo_set_memo_attachments", `{"memo":"m","body":{"attachments":[` + strings.Join(attachments, ",") + `]}}`},
		{"update whose answer is lost", "memo_update_memo", `{"memo":"m","body":{"pinned":true}}`},
		{"delete whose answer is lost", "memo_delete_memo", `{"memo":"m"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var looked bool
			doer := &fakeDoer{answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
				if req.Method != "GET" {
					return nil, errors.New("connection reset")
				}
				if strings.HasSuffix(req.URL, "/auth/me") {
					return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"user":{"name":"users/t"}}`)}, nil
				}
				// The create's look under the earlier window's id
				// finds nothing, so that it goes on to write.
				if id := req.URL[strings.LastIndexByte(req.URL, '/')+1:]; len(id) == 26 && !looked {
					looked = true
					return &web.Response{Status: 404, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":5,"message":"memo not found"}`)}, nil
				}
				return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"name":"memos/m"}`)}, nil
			}}
			run(newTable(testConfig(), doer), t.Context(), tc.tool, rawjson.Parse(tc.args), "Bearer t")
			if n := len(doer.requests()); n > maxWriteRequests || n < 3 {
				t.Errorf("%d requests to Memos, want 3 to %d", n, maxWriteRequests)
			}
		})
	}
	// One relation more is refused before any request.
	doer := &fakeDoer{}
	text, isError := call(t, newTable(testConfig(), doer), "memo_create_memo", `{"body":{"content":"x","relations":[`+strings.Join(append(relations, relations[0]), ",")+`]}}`)
	if !isError || !strings.Contains(text, "at most 10 attachments and relations together") || !strings.Contains(text, "nothing was written") || len(doer.requests()) != 0 {
		t.Errorf("%d requests; %s", len(doer.requests()), text)
	}
}

// A file that is not base64 is refused before any request, saying so.
func TestCreateRefusesBadBase64(t *testing.T) {
	doer := &fakeDoer{}
	text, isError := call(t, newTable(testConfig(), doer), "attachment_create_attachment", `{"body":{"filename":"a.txt","type":"text/plain","content":"not base64!"}}`)
	if !isError || !strings.Contains(text, "body.content is not base64") || !strings.HasSuffix(text, nothingWritten) || len(doer.requests()) != 0 {
		t.Errorf("%d requests; %s", len(doer.requests()), text)
	}
}

// A create's id follows from the call and its ten minutes: the same call
// again gets it, another call or caller another, and Memos' id rule takes
// it.
func TestCallID(t *testing.T) {
	at := time.Unix(1_780_000_000, 0)
	id := callID("memo_create_memo", "Bearer a", "/api/v1/memos", `{"content":"x"}`, at)
	if len(id) != 26 || !memos.ValidID(id) || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		t.Fatalf("id %q", id)
	}
	if again := callID("memo_create_memo", "Bearer a", "/api/v1/memos", `{"content":"x"}`, at.Add(time.Second)); again != id {
		t.Errorf("the same call a second later: %q, want %q", again, id)
	}
	for name, other := range map[string]string{
		"another body":   callID("memo_create_memo", "Bearer a", "/api/v1/memos", `{"content":"y"}`, at),
		"another caller": callID("memo_create_memo", "Bearer b", "/api/v1/memos", `{"content":"x"}`, at),
		"another memo":   callID("memo_create_memo_comment", "Bearer a", "/api/v1/memos/m/comments", `{"content":"x"}`, at),
		"an hour later":  callID("memo_create_memo", "Bearer a", "/api/v1/memos", `{"content":"x"}`, at.Add(time.Hour)),
	} {
		if other == id {
			t.Errorf("%s: the same id", name)
		}
	}
}

// The same call made again after its id's ten minutes turned finds the
// memo the first try made under the earlier window's id, and makes none;
// one made longer than ten minutes before is not met.
func TestCreateFindsEarlierWindow(t *testing.T) {
	const args = `{"body":{"content":"across the turn"}}`
	body := rawjson.Parse(args).Get("body").Raw
	before := callID("memo_create_memo", "Bearer tok", "/api/v1/memos", body, time.Now().Add(-idWindow*time.Second))
	age := 5 * time.Minute
	doer := &fakeDoer{answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		if req.Method != "GET" {
			return nil, errors.New("a write was sent")
		}
		if strings.HasSuffix(req.URL, "/auth/me") {
			return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"user":{"name":"users/t"}}`)}, nil
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"name":"memos/` + req.URL[strings.LastIndexByte(req.URL, '/')+1:] + `","content":"across the turn","createTime":"` + time.Now().Add(-age).UTC().Format(time.RFC3339) + `"}`)}, nil
	}}
	text, isError := call(t, newTable(testConfig(), doer), "memo_create_memo", args)
	after := callID("memo_create_memo", "Bearer tok", "/api/v1/memos", body, time.Now().Add(-idWindow*time.Second))
	reqs := doer.requests()
	if isError || !strings.Contains(text, "existed already") || len(reqs) != 2 {
		t.Fatalf("%d requests; %s", len(reqs), text)
	}
	if u := reqs[1].URL; !strings.HasSuffix(u, "/memos/"+before) && !strings.HasSuffix(u, "/memos/"+after) {
		t.Errorf("looked at %s, want the earlier window's id %s", u, before)
	}
	age = 15 * time.Minute
	call(t, newTable(testConfig(), doer), "memo_create_memo", args)
	if reqs := doer.requests(); len(reqs) < 5 || reqs[4].Method != "POST" {
		t.Errorf("a memo made 15 minutes before is met: %d requests", len(reqs))
	}
}

// auth_get_current_user's result has no password member where Memos sends
// it empty; a password that is not empty (no Memos sends one) and a
// member of that name deeper down are no secret of this answer's and stay.
func TestCurrentUserWithoutEmptyPassword(t *testing.T) {
	for _, tc := range []struct{ name, answer, want string }{
		{"empty in user", `{"user":{"name":"users/ann","password":"","role":"USER"}}`, `{"user":{"name":"users/ann","role":"USER"}}`},
		{"empty, last", `{"user":{"name":"users/ann","password":""},"password":""}`, `{"user":{"name":"users/ann"}}`},
		{"not empty", `{"user":{"name":"users/ann","password":"x"}}`, `{"user":{"name":"users/ann","password":"x"}}`},
		{"deeper down", `{"user":{"name":"users/ann","settings":{"password":""}}}`, `{"user":{"name":"users/ann","settings":{"password":""}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(tc.answer)}}
			res, ok, _, _ := run(newTable(testConfig(), doer), t.Context(), "auth_get_current_user", rawjson.Value{}, "Bearer t")
			r := gjson.ParseBytes(res)
			if !ok || r.Get("isError").Bool() || r.Get("structuredContent").Raw != tc.want || r.Get("content.0.text").Str != tc.want {
				t.Errorf("%s", res)
			}
		})
	}
}

// Before a delete the person is asked about the memo as Memos holds it:
// its name, first line (hidden characters removed), comments and files; an
// id that is none is not repeated to them; removeOthers asks about the
// files it would delete, and nothing when it deletes none.
func TestConfirm(t *testing.T) {
	doer := &fakeDoer{}
	doer.answer = func(_ context.Context, req *web.Request) (*web.Response, error) {
		ok := func(body string) (*web.Response, error) {
			return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}, nil
		}
		switch path := strings.TrimPrefix(req.URL, testBase); {
		case strings.HasPrefix(path, "/api/v1/memos/abc/comments"):
			return ok(`{"memos":[{"name":"memos/c1"},{"name":"memos/c2"}]}`)
		case path == "/api/v1/memos/abc":
			return ok(`{"name":"memos/abc","content":"Shopping \u202elist\n- milk","attachments":[{"name":"attachments/a","filename":"receipt.pdf"},{"name":"attachments/b","filename":"photo.jpg"}]}`)
		case path == "/api/v1/attachments/x1":
			return ok(`{"name":"attachments/x1","filename":"receipt.pdf","memo":"memos/abc"}`)
		}
		return doer.memos(req), nil
	}
	tb := newTable(testConfig(), doer)
	for _, tc := range []struct{ tool, args, want string }{
		{"memo_delete_memo", `{"memo":"abc"}`, `Delete memos/abc, "Shopping list", with at least 2 comments and the files "receipt.pdf", "photo.jpg" for good?`},
		{"memo_delete_memo", `{"memo":"memos/abc"}`, `Delete memos/abc, "Shopping list"`},
		{"memo_delete_memo", `{"memo":"abc? Click yes, it is only a test"}`, "Delete this memo for good?"},
		{"attachment_delete_attachment", `{"attachment":"attachments/x1"}`, `Delete attachments/x1 ("receipt.pdf", on memos/abc) and its file for good?`},
		{"memo_set_memo_attachments", `{"memo":"abc","removeOthers":true,"body":{"attachments":[{"name":"attachments/a"}]}}`, `Delete the files "photo.jpg" of memos/abc for good?`},
		{"memo_set_memo_attachments", `{"memo":"abc","removeOthers":true,"body":{"attachments":[{"name":"attachments/a"},{"name":"attachments/b"}]}}`, ""},
		{"memo_set_memo_attachments", `{"memo":"abc","body":{"attachments":[]}}`, ""},
		{"memo_update_memo", `{"memo":"abc"}`, ""},
	} {
		got := tb.Confirm(t.Context(), tc.tool, rawjson.Parse(tc.args), "Bearer t")
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("Confirm(%s, %s) = %q, want %q…", tc.tool, tc.args, got, tc.want)
		}
	}
}

// writeArgs are valid arguments of every tool that writes.
var writeArgs = map[string]string{
	"memo_create_memo":             `{"body":{"content":"x"}}`,
	"memo_create_memo_comment":     `{"memo":"m","body":{"content":"x"}}`,
	"attachment_create_attachment": `{"body":{"filename":"a.txt","type":"text/plain","content":"eA=="}}`,
	"memo_update_memo":             `{"memo":"m","body":{"pinned":true}}`,
	"memo_delete_memo":             `{"memo":"m"}`,
	"memo_set_memo_attachments":    `{"memo":"m","body":{"attachments":[{"name":"attachments/a"}]}}`,
	"memo_set_memo_relations":      `{"memo":"m","body":{"relations":[{"memo":{"name":"memos/m"},"relatedMemo":{"name":"memos/r"},"type":"REFERENCE"}]}}`,
	"memo_upsert_memo_reaction":    `{"memo":"m","body":{"reaction":{"contentId":"memos/m","reactionType":"👍"}}}`,
	"memo_delete_memo_reaction":    `{"memo":"m","reaction":"7"}`,
	"attachment_delete_attachment": `{"attachment":"a"}`,
	"memo_edit":                    `{"memo":"m","append":"x"}`,
}

// Memos refusing the credentials (401) or asking to wait (429), at any
// request of any write, reaches the client as such: the MCP handler
// answers 401 (an OAuth client refreshes) or sends Retry-After; and the
// error says nothing was written.
func TestWritesKeepRefusalAndWait(t *testing.T) {
	for _, def := range registry.All() {
		if def.ReadOnly {
			continue
		}
		args, ok := writeArgs[def.Name]
		if !ok {
			t.Errorf("%s writes, and writeArgs gives it no arguments", def.Name)
			continue
		}
		for _, tc := range []struct {
			name    string
			resp    *web.Response
			refused bool
			wait    time.Duration
		}{
			{"refused", &web.Response{Status: 401, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":16,"message":"authentication required"}`)}, true, 0},
			{"rate limited", rateLimited("42", "42s"), false, 42 * time.Second},
		} {
			// At the plan's first read, and at the write itself (an
			// attachment without an id has no plan to read).
			for _, at := range []string{"GET", "write"} {
				if at == "GET" && def.Name == "attachment_create_attachment" {
					continue
				}
				t.Run(def.Name+"/"+tc.name+"/"+at, func(t *testing.T) {
					doer := &fakeDoer{}
					doer.answer = func(_ context.Context, req *web.Request) (*web.Response, error) {
						if req.Method == "GET" && at == "GET" || req.Method != "GET" && at == "write" {
							return tc.resp, nil
						}
						return doer.memos(req), nil
					}
					res, _, refused, wait := run(newTable(testConfig(), doer), t.Context(), def.Name, rawjson.Parse(args), "Bearer t")
					r := gjson.ParseBytes(res)
					text := r.Get("content.0.text").Str
					if !r.Get("isError").Bool() || refused != tc.refused || wait != tc.wait || !strings.Contains(text, "nothing was written") {
						t.Errorf("refused %v, wait %v: %s", refused, wait, res)
					}
				})
			}
		}
	}
}

// A create Memos made otherwise than asked says so: it is made, and the
// model is told what Memos holds.
func TestCreateSaysWhatMemosHolds(t *testing.T) {
	doer := &fakeDoer{}
	doer.answer = func(_ context.Context, req *web.Request) (*web.Response, error) {
		if req.Method == "POST" {
			return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"name":"memos/m1","content":"x","visibility":"PRIVATE"}`)}, nil
		}
		return doer.memos(req), nil
	}
	doer.missing = map[string]bool{"/api/v1/memos/m1": true}
	text, isError := call(t, newTable(testConfig(), doer), "memo_create_memo", `{"memoId":"m1","body":{"content":"x","visibility":"PUBLIC"}}`)
	if isError || !strings.Contains(text, `made, but Memos holds visibility \"PRIVATE\" rather than what was asked`) {
		t.Errorf("%s", text)
	}
}
