package memos

import (
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// A caller's PATCH carries its JSON body, the caller's Authorization and
// the route template for the log; an answer that is not JSON is an *Error,
// as for a read.
func TestCallerPatch(t *testing.T) {
	doer := &fakeDoer{resp: &web.Response{Status: 200, Body: []byte(`{"name":"memos/a"}`)}}
	m := New(testOptions(), doer).As("Bearer t")
	body, err := m.Patch(t.Context(), "/api/v1/memos/{memo}", "/api/v1/memos/a?updateMask=content", []byte(`{"content":"x"}`))
	if err != nil || string(body) != `{"name":"memos/a"}` {
		t.Fatalf("Patch = %s, %v", body, err)
	}
	r := doer.requests()[0]
	if r.Method != "PATCH" || r.URL != "https://memos.example.com/api/v1/memos/a?updateMask=content" || string(r.Body) != `{"content":"x"}` ||
		r.Header["content-type"] != "application/json" || r.Header["authorization"] != "Bearer t" {
		t.Errorf("request %s %s %s %v", r.Method, r.URL, r.Body, r.Header)
	}
	doer.resp = &web.Response{Status: 200, Body: nil}
	if _, err := m.Patch(t.Context(), "/api/v1/memos/{memo}", "/api/v1/memos/a", []byte(`{}`)); err == nil {
		t.Error("an empty answer to a PATCH is success")
	} else if _, ok := AsError(err); !ok {
		t.Errorf("error %T, want an *Error", err)
	}
}
