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
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
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
	printConnection(os.Stdout, worker.URL+"/mcp", memosURL, signIn, token)
	<-ctx.Done()
	// Stopping on purpose is a success: make dev exits 0, quietly.
	fmt.Println("\nStopping…")
	return nil
}

func printConnection(w io.Writer, mcpURL, memosURL, signIn, token string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MCP URL:   "+mcpURL)
	fmt.Fprintln(w, "Memos:     "+memosURL)
	if signIn != "" {
		fmt.Fprintln(w, "Sign in:   "+signIn)
	}
	shown := token
	if token == "" {
		shown = "<a personal access token of your Memos user>"
		fmt.Fprintln(w, "Token:     use a personal access token from your Memos settings")
	} else {
		fmt.Fprintln(w, "Token:     "+token)
	}
	fmt.Fprintln(w, "\n"+clientConfigs(mcpURL, "Bearer "+shown))
	fmt.Fprintln(w, "For the README's curl examples:")
	fmt.Fprintf(w, "export MCP_URL=%s TOKEN=%s\n", mcpURL, cmp.Or(token, "YOUR_TOKEN"))
	fmt.Fprintln(w, "\nPress Ctrl-C to stop.")
}

// clientConfigs is the configuration of each kind of client, in the shapes
// the README's "Connect a client" shows (a test holds the two together):
// VS Code reads "servers" and wants the transport named, Cursor and most
// other clients read "mcpServers" and find the transport from "url".
func clientConfigs(mcpURL, authorization string) string {
	headers := map[string]string{"Authorization": authorization}
	var b strings.Builder
	fmt.Fprintf(&b, "Claude Code:\n  claude mcp add --transport http memos %s --header %q\n", mcpURL, "Authorization: "+authorization)
	b.WriteString("Cursor (~/.cursor/mcp.json) and most clients:\n")
	writeJSON(&b, map[string]any{"mcpServers": map[string]any{"memos": map[string]any{"url": mcpURL, "headers": headers}}})
	b.WriteString("VS Code (.vscode/mcp.json):\n")
	writeJSON(&b, map[string]any{"servers": map[string]any{"memos": map[string]any{"type": "http", "url": mcpURL, "headers": headers}}})
	return b.String()
}

// writeJSON writes v indented, with "<" and ">" as they are: the placeholder
// token is for a person to read, not for an HTML page.
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
