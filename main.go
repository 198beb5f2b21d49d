// Command memos-mcp-edge is an MCP server for a Memos instance. Built with
// GOOS=js GOARCH=wasm it runs as a Cloudflare Worker; built natively it
// serves the same handler on a loopback port.
package main

import (
	"log"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/bridge"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/mcp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/server"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/upstream"
)

// version is the gateway's release, reported as serverInfo.version.
const version = "0.1.0"

func main() {
	cfg, cfgErr := config.Load(bridge.Getenv, bridge.HasBinding)
	if cfgErr != nil {
		log.Printf("configuration: %v", cfgErr)
	}
	if len(cfg.AllowedHosts) == 0 {
		cfg.AllowedHosts = bridge.DefaultHosts()
	}
	tools := upstream.New(cfg, bridge.Fetcher{Binding: cfg.MemosService, MaxBytes: cfg.MaxRespBytes})
	h := server.New(server.Options{
		Config:    cfg,
		ConfigErr: cfgErr,
		MCP: mcp.NewHandler(mcp.Options{
			Name: "memos-mcp-edge", Version: version, Tools: tools, AllowedOrigins: cfg.AllowedOrigins,
			MaxBodyBytes: cfg.MaxBodyBytes, MaxResponseBytes: cfg.MaxRespBytes,
		}),
		MemosVersion:    registry.MemosVersion(),
		ToolCount:       len(registry.All()),
		Probe:           tools.Health,
		StartupMillis:   bridge.StartupMillis,
		WasmMemoryBytes: bridge.WasmMemoryBytes,
		AccessLog:       bridge.LogWriter(),
	})
	log.Fatal(bridge.Serve(h, cfg.MaxBodyBytes))
}
