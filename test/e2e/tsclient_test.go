//go:build e2e

package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The official TypeScript SDK client (test/clients/ts-client.mjs) connects
// with a bearer token and runs every scenario of the script against the shared
// Worker and the real Memos: list-tools (the SDK's zod schemas validate every
// tool; the names are checked against the registry), tools (the successful
// calls of tools_test.go, all 20 generated tools, each structuredContent
// validated by the SDK against the tool's outputSchema, since listTools ran first on that
// client), finder (the hand-written tools; an image attachment comes back
// as image content), tool-errors (an unknown memo; a bad token refused at
// connect) and resources (memos and an attachment listed and read, the
// templates, the prompts, a tag argument completed). Any SDK validation
// error fails its scenario and makes the script exit non-zero.
func TestTSSDKClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	views, key := savedViews()
	run := runNode(t, ctx, root, []string{
		"MCP_URL=" + worker.URL + "/mcp",
		"TOKEN=" + memos.Token,
		"EXPECT_TOOLS=" + strings.Join(registryNames(), ","),
		"VIEWS_TOOL=" + views, "VIEWS_KEY=" + key,
		"REACTION_CONTENT_ID=" + strconv.FormatBool(reactionTakesContentID(t)),
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
	for _, scenario := range []string{"list-tools", "tools", "finder", "tool-errors", "resources"} {
		if !strings.Contains(out, "ok   "+scenario+"\n") {
			t.Errorf("the %s scenario did not pass", scenario)
		}
	}
}
