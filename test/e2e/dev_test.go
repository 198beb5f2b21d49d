//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// devstack is a running `make dev` program and what it printed.
type devstack struct {
	cmd   *exec.Cmd
	keys  io.WriteCloser    // the terminal's keyboard, under make
	lines map[string]string // "MCP URL", "Memos", "Sign in", "Token", "Worker log", "OAuth", "Health"
	mu    sync.Mutex
	out   strings.Builder
	done  chan struct{} // closed when the output has ended
}

// bannerKeys are the labels of the banner's lines that startDev records.
var bannerKeys = []string{"MCP URL", "Memos", "Sign in", "Token", "Worker log", "OAuth", "Health"}

// startDev runs `make dev` itself in a terminal when viaMake is set (a
// pseudo-terminal that util-linux script provides, so that Ctrl-C is a key
// as a user types it), else the program behind it, built here. It waits
// until the connection details are printed.
func startDev(t *testing.T, viaMake bool, env ...string) *devstack {
	t.Helper()
	return startDevUntil(t, viaMake, "Press Ctrl-C", env...)
}

// startDevUntil is startDev waiting for a line that starts with ready.
func startDevUntil(t *testing.T, viaMake bool, ready string, env ...string) *devstack {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// The session's folder, with its logs, goes after the program stops.
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, ".wrangler", "dev-"+strconv.Itoa(port))) })
	d := &devstack{lines: map[string]string{}, done: make(chan struct{})}
	if viaMake {
		// -e: script exits with make's status.
		d.cmd = exec.Command("script", "-qefc", "make --no-print-directory dev", "/dev/null")
		if d.keys, err = d.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	} else {
		d.cmd = exec.Command(buildProgram(t, "./test/devstack"))
	}
	d.cmd.Dir = root
	d.cmd.Env = append(os.Environ(), append(env, "PORT="+strconv.Itoa(port))...)
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stderr = d.cmd.Stdout
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL); d.cmd.Wait() })
	printed := make(chan struct{})
	go func() {
		defer close(d.done)
		seen := false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := strings.TrimSuffix(sc.Text(), "\r") // a terminal ends lines with \r\n
			d.mu.Lock()
			d.out.WriteString(line + "\n")
			if k, v, ok := strings.Cut(line, ":"); ok && slices.Contains(bannerKeys, k) {
				d.lines[k] = strings.TrimSpace(v)
			}
			d.mu.Unlock()
			if strings.HasPrefix(line, ready) && !seen {
				close(printed)
				seen = true
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-printed:
	case <-time.After(5 * time.Minute):
		t.Fatalf("make dev printed no line %q in time:\n%s", ready, d.output())
	}
	return d
}

// output is what the program has printed so far.
func (d *devstack) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// stop presses Ctrl-C (or sends its signal to the program run without a
// terminal), checks that make dev exits 0 without complaint, and that what
// it started is gone.
func (d *devstack) stop(t *testing.T, ports ...string) {
	t.Helper()
	if d.keys != nil {
		d.keys.Write([]byte{0x03}) // Ctrl-C
	} else {
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGINT)
	}
	done := make(chan error, 1)
	go func() { <-d.done; done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("make dev exited with %v:\n%s", err, d.output())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("make dev did not stop on Ctrl-C")
	}
	_, after, _ := strings.Cut(d.output(), "Stopping…")
	if strings.TrimSpace(after) != "" { // make's "*** [Makefile:…: dev] Error 1", for one
		t.Errorf("make dev printed more after Ctrl-C than that it stops:%s", after)
	}
	for _, hostport := range ports {
		if c, err := net.DialTimeout("tcp", hostport, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after make dev stopped", hostport)
		}
	}
}

// make dev as a newcomer runs it: through make, with its own Memos, whose
// sign-in it prints, and stopped with Ctrl-C.
func TestMakeDevStartsLocalMemos(t *testing.T) {
	d := startDev(t, true, "MEMOS_URL=")
	out := d.output()
	mcpURL, token := d.lines["MCP URL"], d.lines["Token"]
	if !strings.HasPrefix(mcpURL, "http://127.0.0.1:") || !strings.HasPrefix(token, "memos_pat_") {
		t.Fatalf("printed MCP URL %q, token %q; output:\n%s", mcpURL, token, out)
	}
	if !strings.Contains(out, "export MCP_URL="+mcpURL+" TOKEN="+token+"\n") {
		t.Errorf("no shell exports for the README's session:\n%s", out)
	}
	if !strings.Contains(out, `"Authorization": "Bearer `+token+`"`) {
		t.Errorf("the client configuration lacks the token:\n%s", out)
	}
	if !strings.Contains(out, "Token:     "+token+"\n           (new on every run") {
		t.Errorf("the banner does not say that the token changes every run:\n%s", out)
	}
	// The printed sign-in opens the printed Memos.
	var username, password string
	if _, err := fmt.Sscanf(d.lines["Sign in"], "username %s password %s", &username, &password); err != nil {
		t.Fatalf("no sign-in line (%v):\n%s", err, out)
	}
	creds, _ := json.Marshal(map[string]any{"passwordCredentials": map[string]string{"username": strings.TrimSuffix(username, ","), "password": password}})
	resp, err := http.Post(d.lines["Memos"]+"/api/v1/auth/signin", "application/json", bytes.NewReader(creds))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("signing in to %s with the printed username and password: %s", d.lines["Memos"], resp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connect(t, ctx, mcpURL, token, "")
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != len(registry.All()) {
		t.Fatalf("tools/list through make dev: %v (%d tools)", err, len(res.Tools))
	}
	base := strings.TrimSuffix(mcpURL, "/mcp")
	assertUpstreamReachable(t, base)
	// The local Memos has no web app and reports its version (the pinned
	// module's says "dev", a build stamped with its release that release):
	// the banner says so, and the health check calls it no mismatch.
	version := reportedVersion(t)
	if !strings.Contains(out, "it has no web app") || strings.Contains(out, `reports its version as "dev"`) != (version == "dev") ||
		!strings.HasPrefix(d.lines["Health"], "ok: Memos answers (version "+version+")") || !strings.HasPrefix(d.lines["OAuth"], "off") {
		t.Errorf("the banner misreads the local Memos or the configuration:\n%s", out)
	}
	d.stop(t, strings.TrimPrefix(base, "http://"), strings.TrimPrefix(d.lines["Memos"], "http://"))
	// The Worker's log stays where the banner said.
	if log, err := os.ReadFile(filepath.Join(root, d.lines["Worker log"])); err != nil || !strings.Contains(string(log), "/mcp") {
		t.Errorf("the Worker log %q: %v", d.lines["Worker log"], err)
	}
}

// Ctrl-C while make dev starts is a stop like any other: make dev exits 0
// and says only that it stops, not that a wait was canceled.
func TestMakeDevStopsQuietlyDuringStartUp(t *testing.T) {
	d := startDevUntil(t, true, "Starting a local Memos", "MEMOS_URL=")
	d.stop(t)
	if out := d.output(); strings.Contains(out, "MCP URL") || strings.Contains(out, "Memos:") {
		t.Errorf("make dev got as far as its banner before Ctrl-C arrived; the test shows nothing:\n%s", out)
	}
}

// A local Memos that dies under make dev stops it, saying so with the end
// of Memos' log, instead of leaving a banner that says "Health: ok".
func TestMakeDevSaysMemosExited(t *testing.T) {
	d := startDev(t, false, "MEMOS_URL=")
	_, port, _ := strings.Cut(strings.TrimPrefix(d.lines["Memos"], "http://"), ":")
	pid := 0
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), os.Getenv("MEMOS_BIN")+"\x00") && strings.Contains(string(b), "\x00--port\x00"+port+"\x00") {
			pid, _ = strconv.Atoi(filepath.Base(filepath.Dir(p)))
		}
	}
	if pid == 0 {
		t.Fatalf("no Memos process on port %q", port)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { <-d.done; done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		out := d.output()
		_, after, _ := strings.Cut(out, "Press Ctrl-C")
		if err == nil || !strings.Contains(after, "make dev: the local Memos ended on its own (signal: killed)") || !strings.Contains(after, filepath.Base(os.Getenv("MEMOS_BIN"))+".log") {
			t.Errorf("make dev after its Memos died: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("make dev went on after its Memos died:\n%s", d.output())
	}
	worker := strings.TrimPrefix(strings.TrimSuffix(d.lines["MCP URL"], "/mcp"), "http://")
	if c, err := net.DialTimeout("tcp", worker, time.Second); err == nil {
		c.Close()
		t.Errorf("the Worker at %s still answers after make dev stopped", worker)
	}
}

func TestMakeDevUsesMemosURL(t *testing.T) {
	d := startDev(t, false, "MEMOS_URL="+memos.URL)
	if got := d.lines["Memos"]; got != memos.URL {
		t.Errorf("make dev reports Memos at %q, want the given %q", got, memos.URL)
	}
	if out := d.output(); strings.Contains(out, "Starting a local Memos") || strings.HasPrefix(d.lines["Token"], "memos_pat_") || d.lines["Sign in"] != "" {
		t.Errorf("make dev started its own Memos although MEMOS_URL was set:\n%s", out)
	}
	if out := d.output(); !strings.Contains(out, `"Authorization": "Bearer <a personal access token of your Memos user>"`) {
		t.Errorf("the client configuration lacks a readable placeholder for the token:\n%s", out)
	}
	mcpURL := d.lines["MCP URL"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connect(t, ctx, mcpURL, memos.Token, "2025-11-25")
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != len(registry.All()) {
		t.Fatalf("tools/list through make dev: %v", err)
	}
	base := strings.TrimSuffix(mcpURL, "/mcp")
	assertUpstreamReachable(t, base)
	d.stop(t, strings.TrimPrefix(base, "http://"))
}

// assertUpstreamReachable checks that the Worker at base reaches its Memos.
func assertUpstreamReachable(t *testing.T, base string) {
	t.Helper()
	status, h := healthOf(t, base)
	if up, _ := h["upstream"].(map[string]any); status != 200 || up["reachable"] != true {
		t.Errorf("healthz: %d %v", status, h)
	}
}

// buildProgram builds a main package of the repository into a temporary
// folder and returns the binary's path.
func buildProgram(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(filepath.Join(root, pkg)))
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// The banner says what /healthz says: a configuration problem, or a Memos
// that does not answer as Memos, is printed with the setting to fix, not
// covered by the usual connection details alone.
func TestMakeDevBannerTellsProblems(t *testing.T) {
	down, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		env     []string
		health  string   // the start of the Health line
		details []string // lines of the banner's that name the problems
	}{
		{"TOOLS typo, READ_ONLY=yes, short OAUTH_SECRET", []string{"MEMOS_URL=" + memos.URL, "TOOLS=memo_lst_memos", "READ_ONLY=yes", "OAUTH_SECRET=c2hvcnQ="}, "misconfigured", []string{
			`- TOOLS entry "memo_lst_memos" matches no tool: did you mean memo_list_memos?`, `- READ_ONLY "yes" is not true or false`, "- OAUTH_SECRET is refused"}},
		{"plain http to another host", []string{"MEMOS_URL=http://memos.example.com"}, "misconfigured", []string{"- MEMOS_URL uses plain http to a non-loopback host"}},
		{"a path in MEMOS_URL", []string{"MEMOS_URL=" + memos.URL + "/api/v1"}, "degraded", []string{"set MEMOS_URL to the instance's base URL, without /api/v1"}},
		{"Memos down", []string{"MEMOS_URL=http://127.0.0.1:" + strconv.Itoa(down)}, "degraded", []string{"the Memos instance cannot be reached"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDev(t, false, tc.env...)
			out := d.output()
			if !strings.HasPrefix(d.lines["Health"], tc.health+":") {
				t.Errorf("the banner does not say %s:\n%s", tc.health, out)
			}
			for _, detail := range tc.details {
				if !strings.Contains(out, detail) {
					t.Errorf("the banner does not say %q:\n%s", detail, out)
				}
			}
			d.stop(t)
		})
	}
}

// A second make dev on a port in use stops before it starts anything, and
// says so, rather than print a URL whose answers come from the first.
func TestMakeDevRefusesBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd := exec.Command(buildProgram(t, "./test/devstack"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PORT="+port, "MEMOS_URL=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "port "+port+" on 127.0.0.1 is in use") || strings.Contains(string(out), "MCP URL") || strings.Contains(string(out), "Starting") {
		t.Errorf("make dev on a busy port: %v\n%s", err, out)
	}
}

// ALLOWED_HOSTS written as a URL stops make dev at once, before it starts
// anything, with what to write instead: the Worker would answer 403 at every
// path, its /healthz included, and make dev would wait for it in silence.
func TestMakeDevRefusesAllowedHostsURL(t *testing.T) {
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildProgram(t, "./test/devstack"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "MEMOS_URL=", "ALLOWED_HOSTS=https://mcp.example.com/")
	out, err := cmd.CombinedOutput()
	want := `make dev: ALLOWED_HOSTS entry "https://mcp.example.com/" is a URL: write the host name alone, mcp.example.com`
	if err == nil || !strings.Contains(string(out), want) || strings.Contains(string(out), "Starting") {
		t.Errorf("make dev with ALLOWED_HOSTS as a URL: %v\n%s", err, out)
	}
}

// A Worker that refuses the host it is reached at ends the wait for it at
// once, with its answer, instead of two minutes of 403s: make dev waits so
// for its Worker, whatever set ALLOWED_HOSTS.
func TestStartWorkerStopsAtRefusal(t *testing.T) {
	w, err := harness.StartWorker(context.Background(), harness.WorkerOptions{
		Root: root, Dir: t.TempDir(), Vars: map[string]string{"MEMOS_URL": memos.URL, "ALLOWED_HOSTS": "mcp.example.com"},
	})
	if err == nil {
		w.Stop()
		t.Fatal("a Worker that answers 403 at its /healthz was taken as ready")
	}
	if msg := err.Error(); !strings.Contains(msg, "answers 403 Forbidden at http://127.0.0.1:") || !strings.Contains(msg, "does not answer to host") {
		t.Errorf("the wait for a refusing Worker ended with %v", err)
	}
}

// make dev OAUTH=1 rehearses the hosted clients' sign-in: the Worker is its
// own authorization server with a secret made for the session (in the
// session's .dev.vars, never printed, never on a command line, gone after),
// and the command the banner prints goes through the consent page.
func TestMakeDevOAuth(t *testing.T) {
	d := startDev(t, false, "MEMOS_URL="+memos.URL, "OAUTH=1")
	out := d.output()
	base := strings.TrimSuffix(d.lines["MCP URL"], "/mcp")
	if !strings.HasPrefix(d.lines["OAuth"], "on.") || !strings.HasPrefix(d.lines["Health"], "ok:") {
		t.Fatalf("the banner does not say OAuth is on and healthy:\n%s", out)
	}
	resp, err := http.Get(base + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("authorization server metadata: %s", resp.Status)
	}
	session := filepath.Join(root, filepath.Dir(d.lines["Worker log"]))
	vars, err := os.ReadFile(filepath.Join(session, ".dev.vars"))
	_, secret, _ := strings.Cut(string(vars), "OAUTH_SECRET=")
	secret = strings.Trim(strings.TrimSpace(secret), `"`)
	if err != nil || len(secret) < 40 {
		t.Fatalf("no session secret in the session's .dev.vars: %v", err)
	}
	if strings.Contains(out, secret) {
		t.Errorf("make dev printed the session secret")
	}
	for _, cmdline := range processCommandLines(t) {
		if strings.Contains(cmdline, secret) {
			t.Errorf("the session secret is on a command line: %.200s", cmdline)
		}
	}
	// The banner's command, as a person runs it from the project folder.
	var command []string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "npx mcp-inspector "); ok {
			command = append([]string{"mcp-inspector"}, strings.Fields(c)...)
		}
	}
	if command == nil {
		t.Fatalf("no Inspector command in the banner:\n%s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	names := inspectorOAuth(t, ctx, "npx", append(command, "--format", "json")...)
	if len(names) != len(registryNames()) {
		t.Errorf("the Inspector listed %d tools through the consent page, want %d", len(names), len(registryNames()))
	}
	d.stop(t)
	if _, err := os.Stat(filepath.Join(session, ".dev.vars")); !os.IsNotExist(err) {
		t.Errorf("the session's .dev.vars outlives make dev: %v", err)
	}
	if log, err := os.ReadFile(filepath.Join(session, "wrangler.log")); err != nil || len(log) == 0 || strings.Contains(string(log), secret) {
		t.Errorf("the Worker log is not kept where the banner said, or holds the secret: %v", err)
	}
}

// processCommandLines returns the command line of every process this user
// can read.
func processCommandLines(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no process command lines to read: %v", err)
	}
	var lines []string
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			lines = append(lines, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return lines
}
