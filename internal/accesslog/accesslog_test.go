package accesslog

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fill   func(e *Entry)
		status int
		want   map[string]string
		absent []string
	}{
		{name: "tool call", status: 200, fill: func(e *Entry) {
			e.SetCall("2026-07-28", "tools/call")
			e.SetTool("memo_get_memo")
			e.SetUpstream(404)
			e.SetOutcome(ToolError)
			e.SetOutcome(OK) // the first outcome wins
		}, want: map[string]string{"path": "/mcp", "status": "200", "era": "2026-07-28", "method": "tools/call", "tool": "memo_get_memo", "upstreamStatus": "404", "outcome": "tool_error"}},
		{name: "refusal without a call", status: 403, fill: func(*Entry) {},
			want: map[string]string{"status": "403", "outcome": "refused"}, absent: []string{"era", "method", "tool", "upstreamStatus"}},
		{name: "server error", status: 503, fill: func(*Entry) {}, want: map[string]string{"outcome": "server_error"}},
		{name: "protocol error", status: 200, fill: func(e *Entry) { e.SetCall("2025-06-18", "nope"); e.SetOutcome(ProtocolError) },
			want: map[string]string{"outcome": "protocol_error", "era": "2025-06-18"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, e := Start(context.Background(), "/mcp")
			if From(ctx) != e {
				t.Fatal("From does not return the started entry")
			}
			tc.fill(e)
			var buf bytes.Buffer
			e.Write(&buf, tc.status)
			line := buf.String()
			if bytes.Count(buf.Bytes(), []byte("\n")) != 1 || !gjson.Valid(line) {
				t.Fatalf("not one JSON line: %q", line)
			}
			for k, v := range tc.want {
				if got := gjson.Get(line, k).String(); got != v {
					t.Errorf("%s = %q, want %q in %s", k, got, v, line)
				}
			}
			for _, k := range tc.absent {
				if gjson.Get(line, k).Exists() {
					t.Errorf("%s present in %s", k, line)
				}
			}
			if !gjson.Get(line, "durationMs").Exists() {
				t.Errorf("no duration in %s", line)
			}
		})
	}
}

// Code below the server may run without an entry.
func TestNilEntry(t *testing.T) {
	e := From(context.Background())
	e.SetCall("x", "y")
	e.SetTool("t")
	e.SetUpstream(200)
	e.SetOutcome(OK)
}

func TestAppendMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{8999 * time.Microsecond, "9"},
		{250 * time.Microsecond, "0.3"},
		{12340 * time.Microsecond, "12.3"},
		{1500 * time.Millisecond, "1500"},
		{49 * time.Microsecond, "0"},
	} {
		t.Run(tc.d.String(), func(t *testing.T) {
			if got := string(appendMillis(nil, tc.d)); got != tc.want {
				t.Errorf("appendMillis(%v) = %s, want %s", tc.d, got, tc.want)
			}
		})
	}
}
