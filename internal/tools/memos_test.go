package tools

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// The tests here run tools through the Memos client and check what its
// outcomes become: errors the MCP handler reads, and the release learnt.

// rateLimited is Memos v0.31's answer over a rate limit (gRPC gateway:
// RESOURCE_EXHAUSTED with RetryInfo).
func rateLimited(retryAfter, delay string) *web.Response {
	h := web.Header{"content-type": "application/json"}
	if retryAfter != "" {
		h["retry-after"] = retryAfter
	}
	return &web.Response{Status: 429, Header: h, Body: []byte(`{"code":8,"message":"too many requests, try again later","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}`)}
}

// A tool call Memos answered 429 is a tool error that starts with the status
// and says when to retry, and reports the wait for the endpoint's
// Retry-After.
func TestToolCallRateLimited(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *web.Response
		text string
		wait time.Duration
	}{
		{name: "Memos v0.31", resp: rateLimited("42", "42s"), text: "429 Too Many Requests: too many requests, try again later (retry after 42 seconds)", wait: 42 * time.Second},
		{name: "under a second", resp: rateLimited("", "0.2s"), text: "429 Too Many Requests: too many requests, try again later (retry after 1 second)", wait: time.Second},
		{name: "a proxy's 429 without a wait", resp: &web.Response{Status: 429, Body: []byte(`{"message":"slow down"}`)}, text: "429 Too Many Requests: slow down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok, refused, wait := run(newTable(testConfig(), &fakeDoer{resp: tc.resp}), t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), "Bearer t")
			r := gjson.ParseBytes(res)
			if !ok || refused || wait != tc.wait || !r.Get("isError").Bool() || r.Get("content.0.text").Str != tc.text {
				t.Errorf("%s, wait %v", res, wait)
			}
		})
	}
}

// A hand-written tool reads Memos through the same path as MCP's resources
// and completions: Memos refusing the credentials, and its rate limit with
// the wait, reach the endpoint as they do from a generated tool.
func TestHandwrittenToolRelaysMemos(t *testing.T) {
	refusal := &web.Response{Status: 401, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":16,"message":"authentication required"}`)}
	for _, tc := range []struct {
		name    string
		resp    *web.Response
		text    string
		refused bool
		wait    time.Duration
	}{
		{name: "refused credentials", resp: refusal, text: "401 Unauthorized: authentication required", refused: true},
		{name: "rate limited", resp: rateLimited("42", "42s"), text: "429 Too Many Requests: too many requests, try again later (retry after 42 seconds)", wait: 42 * time.Second},
		{name: "a page instead of JSON", resp: &web.Response{Status: 200, Header: web.Header{"content-type": "text/html"}, Body: []byte("<html></html>")},
			text: "the upstream answered with an HTML page instead of Memos' API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok, refused, wait := run(newTable(testConfig(), &fakeDoer{resp: tc.resp}), t.Context(), "memo_search", rawjson.Parse(`{"scope":"all"}`), "Bearer t")
			r := gjson.ParseBytes(res)
			if !ok || refused != tc.refused || wait != tc.wait || !r.Get("isError").Bool() || !strings.HasPrefix(r.Get("content.0.text").Str, tc.text) {
				t.Errorf("%s, refused %v, wait %v", res, refused, wait)
			}
		})
	}
}

// Tool calls learn the instance's version once, and a mismatch is logged
// once: an instance of a release the build lacks is also asked the route
// that places it.
func TestCallsLearnVersionOnce(t *testing.T) {
	var logs bytes.Buffer
	defer logline.SetOutput(nil)
	logline.SetOutput(&logs)
	doer := &fakeDoer{probes: true, answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		body := `{}`
		if strings.HasSuffix(req.URL, profilePath) {
			body = `{"version":"0.32.0"}`
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}, nil
	}}
	c := newTable(testConfig(), doer)
	for range 3 {
		run(c, context.Background(), "auth_get_current_user", rawjson.Value{}, "Bearer t")
	}
	profiles := 0
	for _, r := range doer.requests() {
		if strings.HasSuffix(r.URL, profilePath) {
			profiles++
		}
	}
	if profiles != 1 || len(doer.requests()) != 5 {
		t.Errorf("%d profile requests among %d, want 1 among 5", profiles, len(doer.requests()))
	}
	if n := strings.Count(logs.String(), `"msg":"version mismatch"`); n != 1 {
		t.Errorf("%d mismatch log lines, want 1:\n%s", n, logs.String())
	}
}
