package upstream

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

func TestVersionMismatch(t *testing.T) {
	pinned := registry.MemosVersion() // v0.30.0
	for instance, warns := range map[string]bool{
		pinned:                          false,
		strings.TrimPrefix(pinned, "v"): false,
		"dev":                           false,
		"":                              false,
		"0.31.0":                        true,
		"v0.29.1":                       true,
	} {
		if got := VersionMismatch(instance); (got != "") != warns {
			t.Errorf("VersionMismatch(%q) = %q", instance, got)
		}
	}
	if w := VersionMismatch("0.31.0"); !strings.Contains(w, "runs Memos 0.31.0 but the tools were built for 0.30.0") {
		t.Errorf("mismatch text %q", w)
	}
}

// Tool calls learn the instance's version once, beside their own request,
// and a mismatch is logged once.
func TestCallsLearnVersionOnce(t *testing.T) {
	var logs bytes.Buffer
	defer logline.SetOutput(nil)
	logline.SetOutput(&logs)
	doer := &fakeDoer{probes: true, answer: func(_ context.Context, req *web.Request) (*web.Response, error) {
		body := `{}`
		if strings.HasSuffix(req.URL, profilePath) {
			body = `{"version":"0.31.0"}`
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}, nil
	}}
	c := New(testConfig(), doer)
	for range 3 {
		c.Call(context.Background(), "auth_get_current_user", rawjson.Value{}, "Bearer t")
	}
	profiles := 0
	for _, r := range doer.requests() {
		if strings.HasSuffix(r.URL, profilePath) {
			profiles++
		}
	}
	if profiles != 1 || len(doer.requests()) != 4 {
		t.Errorf("%d profile requests among %d, want 1 among 4", profiles, len(doer.requests()))
	}
	if n := strings.Count(logs.String(), `"msg":"version mismatch"`); n != 1 {
		t.Errorf("%d mismatch log lines, want 1:\n%s", n, logs.String())
	}
}
