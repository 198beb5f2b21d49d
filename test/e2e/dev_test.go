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
	lines map[string]string // "MCP URL", "Memos", "Sign in", "Token"
	mu    sync.Mutex
	out   strings.Builder
	done  chan struct{} // closed when the output has ended
}

// startDev runs `make dev` itself in a terminal when viaMake is set (a
// pseudo-terminal that util-linux script provides, so that Ctrl-C is a key
// as a user types it), else the program behind it, built here. It waits
// until the connection details are printed.
func startDev(t *testing.T, viaMake bool, env ...string) *devstack {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
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
	ready := make(chan struct{})
	go func() {
		defer close(d.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := strings.TrimSuffix(sc.Text(), "\r") // a terminal ends lines with \r\n
			d.mu.Lock()
			d.out.WriteString(line + "\n")
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "MCP URL" || k == "Memos" || k == "Sign in" || k == "Token") {
				d.lines[k] = strings.TrimSpace(v)
			}
			d.mu.Unlock()
			if strings.HasPrefix(line, "Press Ctrl-C") {
				close(ready)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-ready:
	case <-time.After(5 * time.Minute):
		t.Fatalf("make dev printed no connection details in time:\n%s", d.output())
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
	d.stop(t, strings.TrimPrefix(base, "http://"), strings.TrimPrefix(d.lines["Memos"], "http://"))
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
