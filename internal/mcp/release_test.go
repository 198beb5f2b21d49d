package mcp

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// releaseTools serves one tool in each of two releases, old in release 0
// and new in release 1, and places the instance in release.
type releaseTools struct {
	release atomic.Int32
	asked   atomic.Int32 // calls of Release
}

func (r *releaseTools) Release(context.Context) int {
	r.asked.Add(1)
	return int(r.release.Load())
}

func (*releaseTools) ListJSON(release int) []byte {
	return []byte(`[{"name":"` + [...]string{"old", "new"}[release] + `","inputSchema":{"type":"object"}}]`)
}

func (*releaseTools) Confirm(context.Context, string, rawjson.Value, string) string { return "" }

func (*releaseTools) Call(_ context.Context, name string, _ rawjson.Value, _ string) ([]byte, error) {
	if name != "old" && name != "new" {
		return nil, errors.New("unknown tool")
	}
	return []byte(`{"content":[{"type":"text","text":"ran ` + name + `"}]}`), nil
}

// Each request is served the tools of the release the instance runs, as
// the tools place it, asked once per request: the list and the tools a
// call may name follow a move of the instance to another release.
func TestToolsOfTheInstanceRelease(t *testing.T) {
	tools := &releaseTools{}
	h := NewHandler(Options{Name: "s", Version: "1", MaxBodyBytes: 4096, MaxResponseBytes: 4096, Tools: tools})
	post := func(body string) string {
		resp := h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body),
			Header: web.Header{"content-type": "application/json", "mcp-protocol-version": "2025-03-26"}})
		return string(resp.Body)
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
	}
	for _, tc := range []struct {
		release   int32
		want, not string
	}{
		{0, "old", "new"},
		{1, "new", "old"},
		{0, "old", "new"},
	} {
		tools.release.Store(tc.release)
		if got := post(list); !strings.Contains(got, `"name":"`+tc.want+`"`) || strings.Contains(got, `"name":"`+tc.not+`"`) {
			t.Errorf("release %d: tools/list %s", tc.release, got)
		}
		if got := post(call(tc.want)); !strings.Contains(got, "ran "+tc.want) {
			t.Errorf("release %d: %s: %s", tc.release, tc.want, got)
		}
		if got := post(call(tc.not)); !strings.Contains(got, `unknown tool: \"`+tc.not+`\"`) {
			t.Errorf("release %d: %s: %s", tc.release, tc.not, got)
		}
	}
	tools.asked.Store(0)
	post("[" + list + "," + call("old") + "," + call("old") + "]")
	if n := tools.asked.Load(); n != 1 {
		t.Errorf("a batch of three asked the release %d times, want once", n)
	}
}
