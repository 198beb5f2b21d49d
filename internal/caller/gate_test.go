package caller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// limited is Memos' 429 as the client reports it.
var limited = &memos.Error{Status: 429, Msg: "429 Too Many Requests: too many requests, try again later", Wait: 41500 * time.Millisecond}

func TestAuthorize(t *testing.T) {
	memos := map[string]string{"good": "users/alice"}
	var asked int
	check := func(_ context.Context, token string) (string, error) {
		asked++
		switch token {
		case "busy":
			return "", limited
		case "far":
			return "", errDown
		}
		if u, ok := memos[token]; ok {
			return u, nil
		}
		return "", refusal
	}
	for _, tc := range []struct {
		name, header string
		forwarded    string // the Authorization sent on
		status       int    // of the refusal; 0 for none
		code         string // the error of the body and the challenge
		retryAfter   string
		asked        int // checks of Memos
	}{
		{name: "no header", header: "", asked: 0},
		{name: "scheme alone", header: "Bearer ", asked: 0},
		{name: "accepted token", header: "Bearer good", forwarded: "Bearer good", asked: 1},
		{name: "lower-case scheme", header: "bearer good", forwarded: "Bearer good", asked: 1},
		{name: "made-up token", header: "Bearer not-a-real-token", status: 401, code: "invalid_token", asked: 1},
		{name: "another scheme", header: "Basic Z29vZA==", status: 401, code: "invalid_request", asked: 0},
		{name: "two tokens", header: "Bearer good, Bearer good", status: 401, code: "invalid_request", asked: 0},
		{name: "a token without its scheme", header: "memos_pat_good", status: 401, code: "invalid_request", asked: 0},
		{name: "Memos unreachable", header: "Bearer far", status: 503, code: "temporarily_unavailable", asked: 1},
		{name: "Memos rate-limits the check", header: "Bearer busy", status: 429, code: "temporarily_unavailable", retryAfter: "42", asked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = 0
			v := New(check, Options{})
			req := &web.Request{Method: "POST", URL: "https://gw.example/mcp", Header: web.Header{"authorization": tc.header}}
			got, readOnly, refusal := v.Authorize(t.Context(), req)
			if asked != tc.asked || readOnly {
				t.Errorf("%d checks of Memos (want %d), read-only %v", asked, tc.asked, readOnly)
			}
			if tc.status == 0 {
				if refusal != nil || got != tc.forwarded {
					t.Errorf("forwarded %q, refusal %v; want %q", got, refusal, tc.forwarded)
				}
				return
			}
			if refusal == nil || got != "" {
				t.Fatalf("forwarded %q with no refusal; want %d", got, tc.status)
			}
			body := string(refusal.Body)
			if refusal.Status != tc.status || gjson.Get(body, "error").Str != tc.code || gjson.Get(body, "error_description").Str == "" ||
				refusal.Header.Get("retry-after") != tc.retryAfter || refusal.Header.Get("content-type") != "application/json" {
				t.Errorf("%d %s %v", refusal.Status, body, refusal.Header)
			}
			if challenge := refusal.Header.Get("www-authenticate"); (tc.status == 401) != strings.HasPrefix(challenge, `Bearer error="`+tc.code+`", error_description="`) {
				t.Errorf("challenge %q", challenge)
			}
			if strings.Contains(body, "Z29vZA") || strings.Contains(body, "not-a-real") {
				t.Errorf("the answer echoes the credentials: %s", body)
			}
		})
	}
}

// Revoked takes the token a tool call found refused as refused and answers
// 401; the next request is refused without reaching Memos.
func TestRevoked(t *testing.T) {
	memos := map[string]string{"good": "users/alice"}
	asked := 0
	v := New(func(_ context.Context, token string) (string, error) {
		asked++
		if u, ok := memos[token]; ok {
			return u, nil
		}
		return "", refusal
	}, Options{})
	req := &web.Request{Method: "POST", URL: "https://gw.example/mcp", Header: web.Header{"authorization": "Bearer good"}}
	v.Authorize(t.Context(), req)
	delete(memos, "good")
	resp := v.Revoked(req)
	if resp.Status != 401 || !strings.Contains(resp.Header.Get("www-authenticate"), `error="invalid_token"`) {
		t.Errorf("Revoked: %d %v", resp.Status, resp.Header)
	}
	if _, _, refusal := v.Authorize(t.Context(), req); refusal == nil || refusal.Status != 401 || asked != 1 {
		t.Errorf("the next request: %v after %d checks, want 401 without asking Memos again", refusal, asked)
	}
	anonymous := &web.Request{Method: "POST", URL: "https://gw.example/mcp", Header: web.Header{}}
	if resp := v.Revoked(anonymous); resp != nil {
		t.Errorf("Revoked of an anonymous request: %d, want nil (the tool's error result stays)", resp.Status)
	}
}

// Ahead admits a request before its check ends only for a token Memos
// accepted before whose acceptance has run out but is still remembered:
// it asks Memos once, the request's own Verify waits for that answer
// rather than ask again, and wait gives Authorize's verdict. A token never
// accepted, one whose acceptance stands, and one forgotten wait for
// Authorize, with nothing asked, as does a request that does not only
// read.
func TestAhead(t *testing.T) {
	m, c := newMemos(map[string]string{"good": "users/alice"}), newClock()
	v := New(m.check, Options{Now: c.Now})
	ahead := func(token string) (context.Context, string, func() *web.Response, bool) {
		return v.Ahead(t.Context(), &web.Request{Method: "POST", URL: "https://gw.example/mcp", Header: web.Header{"authorization": "Bearer " + token}}, func() bool { return true })
	}
	for _, token := range []string{"good", "made-up"} {
		if _, _, _, ok := ahead(token); ok || m.calls() != 0 {
			t.Fatalf("%s, never checked: ahead %v after %d checks; want neither", token, ok, m.calls())
		}
	}
	v.Verify(t.Context(), "good")
	v.Verify(t.Context(), "made-up")
	if _, _, _, ok := ahead("good"); ok {
		t.Error("an acceptance that stands went ahead")
	}
	c.advance(DefaultAccepted)
	writes := func() bool { return false }
	if _, _, _, ok := v.Ahead(t.Context(), &web.Request{Header: web.Header{"authorization": "Bearer good"}}, writes); ok || m.calls() != 2 {
		t.Errorf("a request that writes: ahead %v after %d checks; want neither", ok, m.calls())
	}
	ctx, auth, wait, ok := ahead("good")
	if !ok || auth != "Bearer good" {
		t.Fatalf("a caller back from a pause: ahead %v with %q", ok, auth)
	}
	if user, err := v.Verify(ctx, "good"); user != "users/alice" || err != nil || m.calls() != 3 {
		t.Errorf("the request's own Verify: %q, %v after %d checks; want the one check of Ahead (3)", user, err, m.calls())
	}
	if refusal := wait(); refusal != nil {
		t.Errorf("wait: %d %s", refusal.Status, refusal.Body)
	}
	if _, err := v.Verify(t.Context(), "good"); err != nil || m.calls() != 3 {
		t.Errorf("after the check: %v after %d checks; want it to stand", err, m.calls())
	}
	c.advance(DefaultAccepted)
	delete(m.users, "good") // deleted in Memos while the caller paused
	if _, _, wait, ok := ahead("good"); !ok || wait() == nil || wait().Status != 401 {
		t.Error("a token deleted during the pause was not refused")
	}
	if _, _, _, ok := ahead("good"); ok {
		t.Error("a refused token went ahead")
	}
	m.users["good"] = "users/alice"
	v.Verify(t.Context(), "good")
	c.advance(DefaultAccepted + DefaultStale)
	if _, _, _, ok := ahead("good"); ok {
		t.Error("an acceptance past Stale went ahead")
	}
	if _, _, _, ok := v.Ahead(t.Context(), &web.Request{Header: web.Header{"authorization": "Basic Z29vZA=="}}, func() bool { return true }); ok {
		t.Error("another scheme went ahead")
	}
}
