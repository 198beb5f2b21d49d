// Command devstack is `make dev`: it runs the Worker under wrangler dev on
// 127.0.0.1 and prints how to connect an MCP client, then what the Worker's
// /healthz says of its configuration and of Memos. With MEMOS_URL set the
// Worker uses that instance; without it, devstack first starts a local Memos
// (the pinned release, fresh data folder, first user and token made through
// its API) and prints how to sign in to it. OAUTH=1 turns OAuth on with a
// secret made for the session. Ctrl-C stops everything it started and exits
// 0, during start-up too; the logs stay in the session's folder until the
// next run on that port. A local Memos or wrangler that ends on its own
// stops make dev, with the end of its log.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

func main() {
	// A closed terminal (SIGHUP) stops everything too, rather than leave
	// Memos and wrangler running without it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx)
	stopped := ctx.Err() != nil
	stop()
	if err != nil && stopped {
		// Ctrl-C during start-up: the error is only the wait it cut short
		// ("context canceled"), and stopping on purpose is a success.
		fmt.Println("\nStopping…")
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "make dev: %v\n", err)
		os.Exit(1)
	}
}

// forwarded are the settings make dev passes from its environment to the
// Worker besides MEMOS_URL: every setting of the README's configuration
// table. The secrets among them reach the Worker through the session's
// .dev.vars, never a command line.
var forwarded = []string{"ALLOWED_HOSTS", "ALLOWED_ORIGINS", "CARDS", "CF_ACCESS_CLIENT_ID", "CF_ACCESS_CLIENT_SECRET", "LOCKDOWN",
	"MAX_BODY_BYTES", "MAX_RESPONSE_BYTES", "MEMOS_ALLOW_HTTP", "MEMOS_SERVICE", "OAUTH_ACCEPT_MEMOS_TOKENS",
	"OAUTH_ALLOW_LOOPBACK_CLIENTS", "OAUTH_SECRET", "OAUTH_SECRET_PREVIOUS", "READ_ONLY", "TIMEZONE", "TOOLS", "UPSTREAM_TIMEOUT_MS"}

func run(ctx context.Context) error {
	defer takeTerminal()()
	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(cmp.Or(os.Getenv("PORT"), "8787"))
	if err != nil {
		return fmt.Errorf("PORT: %w", err)
	}
	oauth, err := oauthWanted(os.Getenv("OAUTH"))
	if err != nil {
		return err
	}
	if err := portFree(port); err != nil {
		return err
	}
	if err := hostsServed(os.Getenv("ALLOWED_HOSTS")); err != nil {
		return err
	}
	// The session's folder holds the logs, Memos' data and wrangler's
	// state; the next run on this port starts it afresh.
	rel := filepath.Join(".wrangler", "dev-"+strconv.Itoa(port))
	dir := filepath.Join(root, rel)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The Worker reads its secrets from the session's .dev.vars: gone when
	// the session ends.
	defer os.Remove(filepath.Join(dir, ".dev.vars"))

	memosURL, token, signIn, memosNote := os.Getenv("MEMOS_URL"), "", "", ""
	var memos *harness.Memos // the local one, when make dev starts it
	if memosURL == "" {
		bin, err := harness.MemosBinary()
		if err != nil {
			return err
		}
		fmt.Println("Starting a local Memos (fresh data folder)…")
		if memos, err = harness.StartMemos(ctx, bin, dir); err != nil {
			return err
		}
		defer memos.Stop()
		memosURL, token = memos.URL, memos.Token
		signIn = "username " + memos.Username + ", password " + memos.Password
		memosNote = strings.TrimPrefix(filepath.Base(bin), "memos-")
	}
	// Served on loopback: answer only to loopback host names (DNS rebinding).
	vars := map[string]string{"MEMOS_URL": memosURL, "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}
	for _, name := range forwarded {
		if v := os.Getenv(name); v != "" {
			vars[name] = v
		}
	}
	own, err := os.ReadFile(filepath.Join(root, ".dev.vars"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if oauth && vars["OAUTH_SECRET"] == "" && !setsVar(own, "OAUTH_SECRET") {
		vars["OAUTH_SECRET"] = sessionSecret()
	}
	fmt.Println("Starting the Worker under wrangler dev…")
	worker, err := harness.StartWorker(ctx, harness.WorkerOptions{Root: root, Dir: dir, Vars: vars, Port: port, DevVars: string(own)})
	if err != nil {
		return err
	}
	defer worker.Stop()
	h, err := fetchHealth(ctx, worker.URL)
	if err != nil {
		return err
	}
	mcpURL := worker.URL + "/mcp"
	if memosNote != "" {
		memosNote = localMemosNote(memosNote, h.Upstream.MemosVersion)
	}
	printConnection(os.Stdout, mcpURL, memosURL, signIn, memosNote, token)
	fmt.Println("Worker log: " + filepath.Join(rel, "wrangler.log"))
	fmt.Println()
	printOAuth(os.Stdout, h.OAuth, mcpURL, signIn != "")
	printHealth(os.Stdout, h)
	fmt.Println("\nPress Ctrl-C to stop.")
	var memosDone <-chan struct{} // never closed without a local Memos
	if memos != nil {
		memosDone = memos.Done()
	}
	select {
	case <-ctx.Done():
	case <-memosDone:
		return exited("the local Memos", memos.ExitErr(), root, memos.LogPath())
	case <-worker.Done():
		return exited("the Worker (wrangler dev)", worker.ExitErr(), root, filepath.Join(dir, "wrangler.log"))
	}
	// Stopping on purpose is a success: make dev exits 0, quietly.
	fmt.Println("\nStopping…")
	return nil
}

// exited is the error of a part that ended on its own while make dev was
// running: the banner's "Health: ok" no longer holds, and the end of its
// log usually says why.
func exited(what string, how error, root, logPath string) error {
	shown, err := filepath.Rel(root, logPath)
	if err != nil {
		shown = logPath
	}
	b, _ := os.ReadFile(logPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	tail := strings.Join(lines[max(0, len(lines)-10):], "\n  ")
	if how == nil {
		how = errors.New("exit status 0")
	}
	return fmt.Errorf("%s ended on its own (%v), and make dev cannot go on without it; the end of its log (%s):\n  %s\nStopping everything: run make dev again", what, how, shown, tail)
}

// oauthWanted reads OAUTH: "1" or "true" turns OAuth on for the session.
func oauthWanted(v string) (bool, error) {
	switch v {
	case "":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("OAUTH=%q: use OAUTH=1 to turn OAuth on for this session", v)
}

// portFree refuses a port that something already listens on: wrangler
// would fail to bind it, and the answers at the printed URL would come
// from that other program (often an earlier make dev).
func portFree(port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is in use (another make dev?): stop that program, or choose another port, e.g. PORT=%d make dev", port, port+1)
	}
	return ln.Close()
}

// hostsServed refuses an ALLOWED_HOSTS that would make the Worker answer
// 403 at every path of the address make dev prints, /healthz included: a
// mistake config.AllowedHosts finds, or a list without 127.0.0.1. Otherwise
// make dev would wait for a health check that cannot answer.
func hostsServed(raw string) error {
	if raw == "" {
		return nil
	}
	hosts, err := config.AllowedHosts(raw)
	if err != nil {
		return err
	}
	if !slices.Contains(hosts, "127.0.0.1") {
		return errors.New("ALLOWED_HOSTS does not list 127.0.0.1, the host make dev serves on: add it, e.g. ALLOWED_HOSTS=localhost,127.0.0.1")
	}
	return nil
}

// localMemosNote tells what the local Memos (the build called name) is:
// built here without its web app; one built from Memos' Go module, as
// make dev's own is, reports its version as "dev" (reported).
func localMemosNote(name, reported string) string {
	note := "           (Memos " + name + " built here: it has no web app, so the sign-in works\n" +
		"           with its API and the OAuth consent page"
	if reported == "dev" {
		note += ", and it reports its version as \"dev\""
	}
	return note + ")"
}

// setsVar reports whether a .dev.vars file sets name.
func setsVar(file []byte, name string) bool {
	sc := bufio.NewScanner(bytes.NewReader(file))
	for sc.Scan() {
		k, _, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == name {
			return true
		}
	}
	return false
}

// sessionSecret is an OAUTH_SECRET for one make dev session: 32 random
// bytes, as `openssl rand -base64 32` makes.
func sessionSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// health is what the banner shows of the Worker's /healthz.
type health struct {
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
	OAuth    bool     `json:"oauth"`
	Upstream struct {
		Reachable    bool   `json:"reachable"`
		MemosVersion string `json:"memosVersion"`
		Problem      string `json:"problem"`
	} `json:"upstream"`
	Registry struct {
		MemosVersion string `json:"memosVersion"`
		Tools        int    `json:"tools"`
	} `json:"registry"`
}

// fetchHealth asks the Worker's /healthz, as a person checking it would.
func fetchHealth(ctx context.Context, base string) (health, error) {
	var h health
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/healthz", nil)
	if err != nil {
		return h, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return h, fmt.Errorf("the Worker's /healthz: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(body, &h); err != nil || h.Status == "" {
		return h, fmt.Errorf("the Worker's /healthz answered %s: %.200s", resp.Status, body)
	}
	return h, nil
}

// printHealth writes the status /healthz reports and every problem in it.
func printHealth(w io.Writer, h health) {
	switch h.Status {
	case "ok":
		fmt.Fprintf(w, "Health:    ok: Memos answers (version %s); %d tools, built for Memos %s\n",
			cmp.Or(h.Upstream.MemosVersion, "unknown"), h.Registry.Tools, h.Registry.MemosVersion)
	case "misconfigured":
		fmt.Fprintln(w, "Health:    misconfigured: /mcp answers 503 until you fix this:")
		for _, e := range h.Errors {
			fmt.Fprintln(w, "           - "+e)
		}
	default: // degraded: Memos' problem, or writes refused
		problems := h.Errors
		if h.Upstream.Problem != "" {
			problems = append(problems, h.Upstream.Problem)
		}
		fmt.Fprintln(w, "Health:    "+h.Status+": "+cmp.Or(strings.Join(problems, "; "), "see /healthz"))
	}
}

// printOAuth says whether OAuth is on and, when it is, how to try the
// consent page with a client on this machine.
func printOAuth(w io.Writer, on bool, mcpURL string, localMemos bool) {
	if !on {
		fmt.Fprintln(w, "OAuth:     off (make dev OAUTH=1 turns it on, with a secret made for this run)")
		return
	}
	fmt.Fprintln(w, "OAuth:     on. Try the consent page with the MCP Inspector, which opens it in your browser (or prints its address):")
	fmt.Fprintf(w, "             npx mcp-inspector --cli %s --transport http --method tools/list\n", mcpURL)
	who := "your Memos username and password"
	if localMemos {
		who = "the username and password above"
	}
	fmt.Fprintln(w, "           Sign in there with "+who+". Claude.ai and ChatGPT need a public https URL: deploy.")
}

// printConnection writes how to reach the Worker and Memos; memosNote, when
// set, says what the local Memos is.
func printConnection(w io.Writer, mcpURL, memosURL, signIn, memosNote, token string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MCP URL:   "+mcpURL)
	fmt.Fprintln(w, "Memos:     "+memosURL)
	if signIn != "" {
		fmt.Fprintln(w, "Sign in:   "+signIn)
	}
	if memosNote != "" {
		fmt.Fprintln(w, memosNote)
	}
	shown := token
	if token == "" {
		shown = "<a personal access token of your Memos user>"
		fmt.Fprintln(w, "Token:     use a personal access token from your Memos settings")
	} else {
		fmt.Fprintln(w, "Token:     "+token)
		fmt.Fprintln(w, "           (new on every run, as the local Memos starts afresh: configurations pasted from an earlier run get invalid_token)")
	}
	fmt.Fprintln(w, "\n"+clientConfigs(mcpURL, "Bearer "+shown))
	fmt.Fprintln(w, "For the README's curl examples:")
	fmt.Fprintf(w, "export MCP_URL=%s TOKEN=%s\n", mcpURL, cmp.Or(token, "YOUR_TOKEN"))
	fmt.Fprintln(w, "The MCP Inspector's command line, with the token:")
	fmt.Fprintf(w, "npx mcp-inspector --cli %s --transport http --method tools/list --header \"Authorization: Bearer %s\"\n", mcpURL, cmp.Or(token, "YOUR_TOKEN"))
	fmt.Fprintln(w, "A client that sends no token still connects and lists the tools; its first tool call answers")
	fmt.Fprintln(w, "401 Unauthorized: authentication required. Then its configuration lacks the Authorization header.")
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
