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
	if guarded != 7 {
		t.Errorf("%d tools have a guard, want 7 (every name in Table.guard)", guarded)
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
			doer := &fakeDoer{answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
				if req.Method != "GET" {
					return nil, errors.New("connection reset")
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
