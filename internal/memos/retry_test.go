package memos

import (
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// rateLimited is Memos v0.31's answer over a rate limit (gRPC gateway:
// RESOURCE_EXHAUSTED with ErrorInfo RATE_LIMITED and RetryInfo).
func rateLimited(retryAfter, delay string) *web.Response {
	h := web.Header{"content-type": "application/json"}
	if retryAfter != "" {
		h["retry-after"] = retryAfter
	}
	return &web.Response{Status: 429, Header: h, Body: []byte(`{"code":8,"message":"too many requests, try again later","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMITED","domain":"memos.api.v1","metadata":{"limit":"30","remaining":"0","retry_after_seconds":"` + strings.TrimSuffix(delay, "s") + `","scope":"signin_ip","window_seconds":"900"}},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}`)}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		resp *web.Response
		want time.Duration
		ok   bool
	}{
		{name: "seconds", resp: rateLimited("42", "42s"), want: 42 * time.Second, ok: true},
		{name: "HTTP date", resp: &web.Response{Status: 429, Header: web.Header{"retry-after": "Tue, 01 Dec 2026 12:01:30 GMT"}}, want: 90 * time.Second, ok: true},
		{name: "obsolete date form", resp: &web.Response{Status: 429, Header: web.Header{"retry-after": "Tuesday, 01-Dec-26 12:00:10 GMT"}}, want: 10 * time.Second, ok: true},
		{name: "date in the past", resp: &web.Response{Status: 429, Header: web.Header{"retry-after": "Tue, 01 Dec 2026 11:00:00 GMT"}}, want: 0, ok: true},
		{name: "days", resp: &web.Response{Status: 429, Header: web.Header{"retry-after": "999999999999999999999"}}, want: maxRetryAfter, ok: true},
		{name: "no field: RetryInfo", resp: rateLimited("", "7.5s"), want: 7500 * time.Millisecond, ok: true},
		{name: "garbage field: RetryInfo", resp: rateLimited("soon", "3s"), want: 3 * time.Second, ok: true},
		{name: "ErrorInfo only", resp: &web.Response{Status: 429, Body: []byte(`{"code":8,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMITED","metadata":{"retry_after_seconds":"12"}}]}`)}, want: 12 * time.Second, ok: true},
		{name: "nothing said", resp: &web.Response{Status: 429, Body: []byte(`<html>slow down</html>`)}, ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := retryAfter(tc.resp, now); got != tc.want || ok != tc.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// The account calls of the consent step say what Memos answered: a refusal
// of the credentials, its rate limit with the wait, or its challenge.
func TestAccountErrors(t *testing.T) {
	challenge := func(status int) *web.Response {
		return &web.Response{Status: status, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":9,"message":"challenge token is required","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CHALLENGE_REQUIRED","domain":"memos.api.v1","metadata":{}}]}`)}
	}
	for _, tc := range []struct {
		name      string
		resp      *web.Response
		refused   bool
		wait      time.Duration
		challenge bool
		text      string // a part of the message
	}{
		{name: "wrong password", resp: &web.Response{Status: 400, Body: []byte(`{"code":3,"message":"unmatched username and password","details":[]}`)}, refused: true},
		{name: "rate limited", resp: rateLimited("42", "42s"), wait: 42 * time.Second, text: "429 Too Many Requests: too many requests, try again later (retry after 42 seconds)"},
		{name: "challenge required", resp: challenge(400), challenge: true, text: "asks for a challenge (a captcha)"},
		{name: "challenge required over Connect's status", resp: challenge(412), challenge: true, text: "asks for a challenge"},
		{name: "Access refuses the service token", resp: &web.Response{Status: 403, Header: web.Header{"content-type": "text/html"}, Body: []byte("<html>Forbidden</html>")}, text: "403 Forbidden: Cloudflare Access answered instead of Memos"},
		{name: "Memos down", resp: &web.Response{Status: 502, Header: web.Header{"content-type": "text/html"}, Body: []byte("<html>bad gateway</html>")}, text: "502 Bad Gateway from the proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := New(testOptions(), &fakeDoer{resp: tc.resp}).SignIn(t.Context(), "alice", "password")
			e, ok := AsError(err)
			if !ok || e.Refused != tc.refused {
				t.Fatalf("SignIn: %#v, refused %v", err, tc.refused)
			}
			if e.Wait != tc.wait || e.Challenge != tc.challenge || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("%q: wait %v, challenge %v", err, e.Wait, e.Challenge)
			}
		})
	}
}
