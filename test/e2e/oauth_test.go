//go:build e2e

package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// oauthSecret is the OAUTH_SECRET of the gateways these tests start.
const oauthSecret = "e2e-oauth-secret-e2e-oauth-secret-e2e-0001"

// startOAuthGateway runs a gateway that is its own authorization server.
func startOAuthGateway(t *testing.T, vars map[string]string) *harness.Worker {
	t.Helper()
	all := map[string]string{"MEMOS_URL": memos.URL, "OAUTH_SECRET": oauthSecret, "OAUTH_ALLOW_LOOPBACK_CLIENTS": "true"}
	for k, v := range vars {
		all[k] = v
	}
	return startGateway(t, harness.WorkerOptions{Vars: all})
}

// The TypeScript SDK client completes the whole authorization flow against
// the Worker, headlessly (test/clients/ts-oauth.mjs plays the person at the
// consent page), then lists and calls tools with the access token and
// refreshes it: once registering with DCR, once naming a client document
// served from loopback (CIMD).
func TestTSSDKOAuth(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	for _, mode := range []string{"dcr", "cimd"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			run := runNode(t, ctx, root, []string{
				"MCP_URL=" + gw.URL + "/mcp", "MODE=" + mode, "ACCESS=write",
				"MEMOS_USERNAME=" + memos.Username, "MEMOS_PASSWORD=" + memos.Password,
				"EXPECT_TOOLS=" + strconv.Itoa(len(registryNames())),
			}, "test/clients/ts-oauth.mjs")
			out := string(run.stdout)
			t.Logf("ts-oauth.mjs output:\n%s%s", out, run.stderr)
			if run.code != 0 {
				t.Fatalf("ts-oauth.mjs exited with %d", run.code)
			}
			for _, step := range []string{"authorize", "tools", "write", "refresh"} {
				if !strings.Contains(out, "ok   "+step) {
					t.Errorf("step %s did not pass", step)
				}
			}
		})
	}
}
