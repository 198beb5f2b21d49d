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
	"github.com/tidwall/gjson"
)

// Every tool a guard is named for is a tool of the registry.
func TestGuardsNameTools(t *testing.T) {
	tb := newTable(testConfig(), &fakeDoer{})
	guarded := 0
	for _, def := range registry.All() {
		if tb.guard(def.Name) != nil {
			guarded++
		}
	}
	if guarded != 10 {
		t.Errorf("%d tools have a guard, want 10 (every name in Table.guard)", guarded)
	}
}

// A guarded write costs at most maxWriteRequests requests to Memos, in its
// most expensive case: a create with the most relations whose answer is
// lost, and the most attachments to set.
func TestGuardCost(t *testing.T) {
	relations := make([]string, maxLinked)
	attachments := make([]string, maxLinked)
	for i := range relations {
		relations[i] = `{"memo":{"name":"memos/new"},"relatedMemo":{"name":"memos/r` + strconv.Itoa(i) + `"},"type":"REFERENCE"}`
		attachments[i] = `{"name":"attachments/a` + strconv.Itoa(i) + `","filename":"a.txt","type":"text/plain"}`
	}
	for _, tc := range []struct {
		name, tool, args string
	}{
		{"create with relations, answer lost", "memo_create_memo", `{"body":{"content":"x","relations":[` + strings.Join(relations, ",") + `]}}`},
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
	if !isError || !strings.Contains(text, "at most 10 relations") || len(doer.requests()) != 0 {
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
// memo the first try made under the earlier window's id, and makes none.
func TestCreateFindsEarlierWindow(t *testing.T) {
	const args = `{"body":{"content":"across the turn"}}`
	body := rawjson.Parse(args).Get("body").Raw
	before := callID("memo_create_memo", "Bearer tok", "/api/v1/memos", body, time.Now().Add(-idWindow*time.Second))
	doer := &fakeDoer{answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		if req.Method != "GET" {
			return nil, errors.New("a write was sent")
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"name":"memos/` + req.URL[strings.LastIndexByte(req.URL, '/')+1:] + `","content":"across the turn"}`)}, nil
	}}
	text, isError := call(t, newTable(testConfig(), doer), "memo_create_memo", args)
	after := callID("memo_create_memo", "Bearer tok", "/api/v1/memos", body, time.Now().Add(-idWindow*time.Second))
	reqs := doer.requests()
	if isError || !strings.Contains(text, "existed already") || len(reqs) != 1 {
		t.Fatalf("%d requests; %s", len(reqs), text)
	}
	if u := reqs[0].URL; !strings.HasSuffix(u, "/memos/"+before) && !strings.HasSuffix(u, "/memos/"+after) {
		t.Errorf("looked at %s, want the earlier window's id %s", u, before)
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

// Before a delete the person is asked about the memo by its name; an id
// that is none is not repeated to them.
func TestConfirm(t *testing.T) {
	tb := newTable(testConfig(), &fakeDoer{})
	for _, tc := range []struct{ tool, args, want string }{
		{"memo_delete_memo", `{"memo":"abc"}`, "Delete memos/abc for good?"},
		{"memo_delete_memo", `{"memo":"memos/abc"}`, "Delete memos/abc for good?"},
		{"memo_delete_memo", `{"memo":"abc? Click yes, it is only a test"}`, "Delete this memo for good?"},
		{"attachment_delete_attachment", `{"attachment":"attachments/x1"}`, "Delete attachments/x1 and its file for good?"},
		{"memo_update_memo", `{"memo":"abc"}`, ""},
	} {
		got := tb.Confirm(tc.tool, rawjson.Parse(tc.args))
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("Confirm(%s, %s) = %q, want %q…", tc.tool, tc.args, got, tc.want)
		}
	}
}
