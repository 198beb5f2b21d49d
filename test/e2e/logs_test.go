//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The Worker writes one JSON line per request with what was done (era,
// method, tool, Memos' status, outcome), and no argument value ever reaches
// its log.
func TestAccessLogLines(t *testing.T) {
	const sentinel = "arg-value-sentinel-7f3a"
	c := newTools(t, memos.Token)
	created := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "logged? " + sentinel}})
	c.ok("memo_list_memos", map[string]any{"filter": `content.contains("` + sentinel + `")`, "pageSize": 3})
	c.fails("memo_get_memo", map[string]any{"memo": sentinel})
	c.ok("memo_delete_memo", map[string]any{"memo": str(created, "name")})

	var lines []gjson.Result
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines = lines[:0]
		for _, l := range strings.Split(worker.Log(), "\n") {
			if i := strings.Index(l, `{"msg":"request"`); i >= 0 && gjson.Valid(l[i:]) {
				lines = append(lines, gjson.Parse(l[i:]))
			}
		}
		if hasLine(lines, "memo_delete_memo", "ok") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // wrangler relays the Worker's output asynchronously
	}
	for _, want := range []struct{ tool, outcome string }{
		{"memo_create_memo", "ok"}, {"memo_list_memos", "ok"}, {"memo_get_memo", "tool_error"}, {"memo_delete_memo", "ok"},
	} {
		if !hasLine(lines, want.tool, want.outcome) {
			t.Errorf("no access log line for %s with outcome %s", want.tool, want.outcome)
		}
	}
	// Other tests share this Worker, so its log holds their calls too.
	notFound := false
	for _, l := range lines {
		notFound = notFound || l.Get("tool").Str == "memo_get_memo" && l.Get("upstreamStatus").Int() == 404
		if era := l.Get("era").Str; l.Get("tool").Exists() && (era == "" || era == "other" || l.Get("method").Str != "tools/call") {
			t.Errorf("a tool call line lacks its era or method: %s", l.Raw)
		}
	}
	if !notFound {
		t.Error("no line records Memos' 404 for the failed get")
	}
	if strings.Contains(worker.Log(), sentinel) {
		t.Errorf("an argument value reached the Worker's log")
	}
}

func hasLine(lines []gjson.Result, tool, outcome string) bool {
	for _, l := range lines {
		if l.Get("tool").Str == tool && l.Get("outcome").Str == outcome {
			return true
		}
	}
	return false
}
