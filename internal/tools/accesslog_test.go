package tools

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// A tool call records its tool, Memos' status and its outcome, and never an
// argument value or the token.
func TestCallAccessLog(t *testing.T) {
	notFound := &web.Response{Status: 404, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":5,"message":"memo not found"}`)}
	for _, tc := range []struct {
		name, args string
		resp       *web.Response
		hangUp     bool // the client goes away while Memos is asked
		want       map[string]string
	}{
		{name: "success", args: `{"memo":"secret-memo-id"}`, want: map[string]string{"tool": "memo_get_memo", "upstreamStatus": "200", "outcome": "ok"}},
		{name: "Memos refuses", args: `{"memo":"secret-memo-id"}`, resp: notFound, want: map[string]string{"upstreamStatus": "404", "outcome": "tool_error"}},
		{name: "invalid arguments", args: `{"memo":"secret-memo-id","bogus":1}`, want: map[string]string{"tool": "memo_get_memo", "outcome": "tool_error", "upstreamStatus": ""}},
		{name: "client gone", args: `{"memo":"secret-memo-id"}`, hangUp: true, want: map[string]string{"tool": "memo_get_memo", "outcome": "cancelled", "upstreamStatus": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, entry := accesslog.Start(context.Background(), "/mcp")
			doer := &fakeDoer{resp: tc.resp}
			if tc.hangUp {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				doer.answer = func(ctx context.Context, _ *web.Request) (*web.Response, error) {
					cancel()
					return nil, ctx.Err()
				}
			}
			run(newTable(testConfig(), doer), ctx, "memo_get_memo", rawjson.Parse(tc.args), "Bearer secret-token")
			var buf bytes.Buffer
			entry.Write(&buf, 200)
			line := buf.String()
			for k, v := range tc.want {
				if got := gjson.Get(line, k).String(); got != v {
					t.Errorf("%s = %q, want %q: %s", k, got, v, line)
				}
			}
			if strings.Contains(line, "secret") {
				t.Errorf("the log line carries an argument value or the token: %s", line)
			}
		})
	}
}
