//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
)

// inspector is the MCP Inspector's command (v2, pinned in package.json); with
// --cli it runs one request and exits.
const inspector = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

// inspectorExits are the Inspector CLI's documented exit statuses.
var inspectorExits = map[int]string{
	1: "usage or unexpected error",
	3: "authorization required (401/403)",
	4: "server unreachable",
	5: "tool error",
	6: "--strict found an error-severity schema portability problem",
}

// The Inspector lists the tools in both protocol eras: legacy (initialize,
// 2025-11-25) and modern (server/discover, 2026-07-28 headers and _meta).
// --strict lints every inputSchema and outputSchema for portability and exits
// 6 on an error; warnings are printed on stderr and logged here.
func TestInspectorListsToolsStrict(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// A fresh HOME keeps the Inspector's catalog and client files out
			// of the user's.
			home := t.TempDir()
			run := runNode(t, ctx, home, []string{"HOME=" + home}, inspector,
				"--cli", worker.URL+"/mcp",
				"--transport", "http",
				"--protocol-era", era,
				"--method", "tools/list",
				"--strict",
				"--format", "json",
				"--header", "Authorization: Bearer "+memos.Token,
			)
			if len(run.stderr) > 0 {
				t.Logf("inspector stderr:\n%s", run.stderr)
			}
			if run.code != 0 {
				t.Fatalf("inspector exited with %d (%s)\nstdout:\n%.2000s", run.code, inspectorExits[run.code], run.stdout)
			}
			got, err := inspectorToolNames(run.stdout)
			if err != nil {
				t.Fatalf("inspector output is not one JSON object: %v\n%.2000s", err, run.stdout)
			}
			if want := registryNames(); !slices.Equal(got, want) {
				t.Errorf("tools/list names:\n got %v\nwant %v", got, want)
			}
			if len(got) != len(registry.All()) {
				t.Errorf("tools/list has %d tools, want %d", len(got), len(registry.All()))
			}
			t.Logf("inspector (%s era) listed %d tools, --strict exit 0", era, len(got))
		})
	}
}

// inspectorToolNames reads the tool names of the Inspector CLI's JSON
// output of tools/list.
func inspectorToolNames(stdout []byte) ([]string, error) {
	var out struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range out.Result.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}
