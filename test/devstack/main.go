// Command devstack is `make dev`: it runs the Worker under wrangler dev on
// 127.0.0.1 and prints how to connect an MCP client. With MEMOS_URL set the
// Worker uses that instance; without it, devstack first starts a local Memos
// (the pinned release, fresh data folder, first user and token made through
// its API) and prints how to sign in to it. Ctrl-C stops everything it
// started and exits 0.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "make dev: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer takeTerminal()()
	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(cmp.Or(os.Getenv("PORT"), "8787"))
	if err != nil {
		return fmt.Errorf("PORT: %w", err)
	}
	dir, err := os.MkdirTemp("", "memos-mcp-edge-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	memosURL, token, signIn := os.Getenv("MEMOS_URL"), "", ""
	if memosURL == "" {
		bin, err := harness.MemosBinary()
		if err != nil {
			return err
		}
		fmt.Println("Starting a local Memos (fresh data folder)…")
		memos, err := harness.StartMemos(ctx, bin, dir)
		if err != nil {
			return err
		}
		defer memos.Stop()
		memosURL, token = memos.URL, memos.Token
		signIn = "username " + memos.Username + ", password " + memos.Password
	}
	// Served on loopback: answer only to loopback host names (DNS rebinding).
	vars := map[string]string{"MEMOS_URL": memosURL, "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}
	for _, name := range []string{"ALLOWED_ORIGINS", "ALLOWED_HOSTS", "MEMOS_ALLOW_HTTP", "MAX_BODY_BYTES", "MAX_RESPONSE_BYTES", "UPSTREAM_TIMEOUT_MS", "READ_ONLY", "TOOLS"} {
		if v := os.Getenv(name); v != "" {
			vars[name] = v
		}
	}
	fmt.Println("Starting the Worker under wrangler dev…")
	worker, err := harness.StartWorker(ctx, harness.WorkerOptions{Root: root, Dir: dir, Vars: vars, Port: port, RepoConfig: true})
	if err != nil {
		return err
	}
	defer worker.Stop()
	printConnection(worker.URL+"/mcp", memosURL, signIn, token)
	<-ctx.Done()
	// Stopping on purpose is a success: make dev exits 0, quietly.
	fmt.Println("\nStopping…")
	return nil
}

func printConnection(mcpURL, memosURL, signIn, token string) {
	fmt.Println()
	fmt.Println("MCP URL:   " + mcpURL)
	fmt.Println("Memos:     " + memosURL)
	if signIn != "" {
		// Open Memos in a browser to see what the agent did.
		fmt.Println("Sign in:   " + signIn)
	}
	shown := token
	if token == "" {
		shown = "<a personal access token of your Memos user>"
		fmt.Println("Token:     use a personal access token from your Memos settings")
	} else {
		fmt.Println("Token:     " + token)
	}
	config := map[string]any{"mcpServers": map[string]any{"memos": map[string]any{
		"type":    "http",
		"url":     mcpURL,
		"headers": map[string]string{"Authorization": "Bearer " + shown},
	}}}
	b, _ := json.MarshalIndent(config, "", "  ")
	fmt.Println("\nClient configuration (Claude Code .mcp.json, Cursor, VS Code and others):")
	fmt.Println(string(b))
	fmt.Println("\nFor the README's shell session:")
	fmt.Printf("export MCP_URL=%s TOKEN=%s\n", mcpURL, cmp.Or(token, "YOUR_TOKEN"))
	fmt.Println("\nPress Ctrl-C to stop.")
}
