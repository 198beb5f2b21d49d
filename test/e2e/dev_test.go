//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// devstack is a running `make dev` program and what it printed.
type devstack struct {
	cmd   *exec.Cmd
	lines map[string]string // "MCP URL", "Memos", "Token"
	out   strings.Builder
}

// startDev builds and runs the program behind `make dev` and waits until it
// prints its connection details.
func startDev(t *testing.T, env ...string) *devstack {
	t.Helper()
	bin := buildProgram(t, "./test/devstack")
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	d := &devstack{cmd: exec.Command(bin), lines: map[string]string{}}
	d.cmd.Dir = root
	d.cmd.Env = append(os.Environ(), append(env, "PORT="+strconv.Itoa(port))...)
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stderr = d.cmd.Stdout
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill(); d.cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			d.out.WriteString(line + "\n")
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "MCP URL" || k == "Memos" || k == "Token") {
				d.lines[k] = strings.TrimSpace(v)
			}
			if strings.HasPrefix(line, "Press Ctrl-C") {
				close(ready)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-ready:
	case <-time.After(3 * time.Minute):
		t.Fatalf("make dev printed no connection details in time:\n%s", d.out.String())
	}
	return d
}

// stop interrupts the program as Ctrl-C does and checks that what it started
// is gone.
func (d *devstack) stop(t *testing.T, ports ...string) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("make dev exited with %v:\n%s", err, d.out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("make dev did not stop on Ctrl-C")
	}
	for _, hostport := range ports {
		if c, err := net.DialTimeout("tcp", hostport, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after make dev stopped", hostport)
		}
	}
}

func TestMakeDevStartsLocalMemos(t *testing.T) {
	d := startDev(t, "MEMOS_URL=")
	mcpURL, token := d.lines["MCP URL"], d.lines["Token"]
	if !strings.HasPrefix(mcpURL, "http://127.0.0.1:") || !strings.HasPrefix(token, "memos_pat_") {
		t.Fatalf("printed MCP URL %q, token %q; output:\n%s", mcpURL, token, d.out.String())
	}
	if !strings.Contains(d.out.String(), "export MCP_URL="+mcpURL+" TOKEN="+token+"\n") {
		t.Errorf("no shell exports for the README's session:\n%s", d.out.String())
	}
	if !strings.Contains(d.out.String(), `"Authorization": "Bearer `+token+`"`) {
		t.Errorf("the client configuration lacks the token:\n%s", d.out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connect(t, ctx, mcpURL, token, "")
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 20 {
		t.Fatalf("tools/list through make dev: %v (%d tools)", err, len(res.Tools))
	}
	base := strings.TrimSuffix(mcpURL, "/mcp")
	assertUpstreamReachable(t, base)
	d.stop(t, strings.TrimPrefix(base, "http://"), strings.TrimPrefix(d.lines["Memos"], "http://"))
}

func TestMakeDevUsesMemosURL(t *testing.T) {
	d := startDev(t, "MEMOS_URL="+memos.URL)
	if got := d.lines["Memos"]; got != memos.URL {
		t.Errorf("make dev reports Memos at %q, want the given %q", got, memos.URL)
	}
	if strings.Contains(d.out.String(), "Starting a local Memos") || strings.HasPrefix(d.lines["Token"], "memos_pat_") {
		t.Errorf("make dev started its own Memos although MEMOS_URL was set:\n%s", d.out.String())
	}
	mcpURL := d.lines["MCP URL"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connect(t, ctx, mcpURL, memos.Token, "2025-11-25")
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 20 {
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
