package web

import (
	"testing"
	"time"
)

func TestRequestURLParts(t *testing.T) {
	for _, tc := range []struct{ url, host, path string }{
		{url: "https://h.example.com/mcp", host: "h.example.com", path: "/mcp"},
		{url: "https://H.Example.com", host: "h.example.com", path: "/"},
		{url: "https://h.example.com/a/b?c=d#e", host: "h.example.com", path: "/a/b"},
		{url: "http://127.0.0.1:8787/healthz?x=y", host: "127.0.0.1:8787", path: "/healthz"},
		{url: "http://[::1]:8787?q", host: "[::1]:8787", path: "/"},
		{url: "/relative?q", host: "", path: "/relative"},
	} {
		r := &Request{URL: tc.url}
		if got := r.Host(); got != tc.host {
			t.Errorf("Host of %q = %q, want %q", tc.url, got, tc.host)
		}
		if got := r.Path(); got != tc.path {
			t.Errorf("Path of %q = %q, want %q", tc.url, got, tc.path)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "1", time.Nanosecond: "1", time.Second: "1", time.Second + time.Millisecond: "2", 42 * time.Second: "42"} {
		if got := RetryAfter(d); got != want {
			t.Errorf("RetryAfter(%v) = %s, want %s", d, got, want)
		}
	}
}
