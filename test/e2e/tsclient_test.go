//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The official TypeScript SDK client (test/clients/ts-client.mjs) connects
// with a bearer token and lists the tools; the SDK's zod schemas validate
// every tool, and the script checks the names against the registry.
func TestTSSDKClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run := runNode(t, ctx, root, []string{
		"MCP_URL=" + worker.URL + "/mcp",
		"TOKEN=" + memos.Token,
		"EXPECT_TOOLS=" + strings.Join(registryNames(), ","),
	}, "test/clients/ts-client.mjs")
	out := string(run.stdout)
	t.Logf("ts-client.mjs output:\n%s%s", out, run.stderr)
	if run.code != 0 {
		t.Fatalf("ts-client.mjs exited with %d", run.code)
	}
	// The SDK always asks for its newest version, which the server supports,
	// so the server must answer with that same version.
	if want := "negotiated protocol version: 2025-11-25\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q", want)
	}
	if !strings.Contains(out, "ok   list-tools\n") {
		t.Errorf("the list-tools scenario did not run")
	}
}
