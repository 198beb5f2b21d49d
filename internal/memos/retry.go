package memos

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Memos v0.31 refuses a request over one of its rate limits with HTTP 429,
// a Retry-After field in seconds, and a JSON error (gRPC RESOURCE_EXHAUSTED)
// whose details hold a google.rpc.ErrorInfo of reason RATE_LIMITED and a
// google.rpc.RetryInfo with the same delay. Where the instance has a
// challenge (a captcha) configured, a password sign-in without its token is
// refused with HTTP 400 (FAILED_PRECONDITION) and an ErrorInfo of reason
// CHALLENGE_REQUIRED. Both come from server/router/api/v1/ratelimit.go in
// Memos' tree.

// maxRetryAfter bounds the wait the gateway passes on: a longer one is
// reported as this long.
const maxRetryAfter = 24 * time.Hour

// maxDetails bounds how many entries of an error's details are looked at.
const maxDetails = 8

// retryAfter returns the wait a 429 asks for: the Retry-After field
// (delta-seconds or an HTTP date), else the RetryInfo of Memos' JSON error.
func retryAfter(resp *web.Response, now time.Time) (time.Duration, bool) {
	if d, ok := parseRetryAfter(resp.Header.Get("retry-after"), now); ok {
		return d, true
	}
	var wait time.Duration
	found := false
	eachDetail(resp.Body, func(kind string, d rawjson.Value) {
		switch {
		case found:
		case kind == "google.rpc.RetryInfo":
			wait, found = parseDelay(d.Get("retryDelay").Str)
		case kind == "google.rpc.ErrorInfo":
			if d, ok := parseRetryAfter(d.Get("metadata").Get("retry_after_seconds").Str, now); ok {
				wait, found = d, true
			}
		}
	})
	return min(wait, maxRetryAfter), found
}

// parseRetryAfter reads a Retry-After value (RFC 9110 section 10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 64 {
		return 0, false
	}
	if digits(v) {
		if len(v) > 9 { // more than 31 years: no Memos means it
			return maxRetryAfter, true
		}
		n, _ := number(v)
		return min(time.Duration(n)*time.Second, maxRetryAfter), true
	}
	if t, ok := parseHTTPDate(v); ok {
		return min(max(t.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// challengeRequired reports whether an error answer is Memos asking for a
// challenge token (a captcha), which the gateway cannot solve.
func challengeRequired(body []byte) bool {
	found := false
	eachDetail(body, func(kind string, d rawjson.Value) {
		found = found || kind == "google.rpc.ErrorInfo" && d.Get("reason").Str == "CHALLENGE_REQUIRED"
	})
	return found
}

// eachDetail calls f with the type name and value of the first details of a
// gRPC-style JSON error ({"code":…,"message":…,"details":[{"@type":…}]}).
func eachDetail(body []byte, f func(kind string, detail rawjson.Value)) {
	body = bytes.TrimSpace(body)
	if !bytes.Contains(body, []byte(`"details"`)) || !rawjson.ValidBytes(body) {
		return
	}
	n := 0
	rawjson.ParseBytes(body).Get("details").ForEach(func(_, d rawjson.Value) bool {
		kind := d.Get("@type").Str
		f(kind[strings.LastIndexByte(kind, '/')+1:], d)
		n++
		return n < maxDetails
	})
}

// waitText says how long to wait, for a message: "42 seconds".
func waitText(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s <= 1 {
		return "1 second"
	}
	return strconv.FormatInt(s, 10) + " seconds"
}
