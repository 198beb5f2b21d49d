//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
)

// registryNames are the tool names of the release the Worker serves the
// test's Memos, sorted as tools/list serves them.
func registryNames() []string {
	var names []string
	for _, t := range served().Tools() {
		names = append(names, t.Name)
	}
	return names
}

// connect opens a go-sdk client session to url at the given protocol
// version ("" = the client's newest, 2026-07-28).
func connect(t *testing.T, ctx context.Context, url, token, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "memos-mcp-edge-e2e", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: bearer(token), DisableStandaloneSSE: true, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (version %q): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestGoSDKListsToolsInEveryVersion(t *testing.T) {
	for _, tc := range []struct {
		name, version, negotiated string
	}{
		{name: "2026-07-28 (client default)", version: "", negotiated: "2026-07-28"},
		{name: "2025-11-25", version: "2025-11-25", negotiated: "2025-11-25"},
		{name: "2025-06-18", version: "2025-06-18", negotiated: "2025-06-18"},
		{name: "2025-03-26", version: "2025-03-26", negotiated: "2025-03-26"},
		{name: "2024-11-05", version: "2024-11-05", negotiated: "2024-11-05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, tc.version)
			init := cs.InitializeResult()
			if init.ProtocolVersion != tc.negotiated {
				t.Errorf("negotiated %q, want %q", init.ProtocolVersion, tc.negotiated)
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "memos-mcp-edge" {
				t.Errorf("serverInfo = %+v, want name memos-mcp-edge", init.ServerInfo)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
				if tool.InputSchema == nil || (tool.OutputSchema == nil) != textOnly(t, tool.Name) || tool.Description == "" {
					t.Errorf("tool %s lacks a schema or a description, or has an output schema though it answers in text alone", tool.Name)
				}
			}
			if want := registryNames(); !slices.Equal(got, want) {
				t.Errorf("tools/list names:\n got %v\nwant %v", got, want)
			}
			if len(got) != len(registry.All()) {
				t.Errorf("tools/list has %d tools, want %d", len(got), len(registry.All()))
			}
		})
	}
}
