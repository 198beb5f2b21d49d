// Package harness starts the real parts that the end-to-end tests and
// `make dev` run against: a fresh Memos instance and the Worker under
// wrangler dev, each on a free loopback port, and stops every process it
// started.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Process is a started child process with its own process group, so that
// stopping it also stops what it spawned (wrangler starts workerd).
type Process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error     // how it ended ("exit status 1", "signal: killed"), once exited is closed
	Started time.Time // when the process was started
}

// start runs name with args in dir, its output going to a log file in logDir.
func start(name, dir, logDir string, env []string, args ...string) (*Process, error) {
	return StartProcess(filepath.Join(logDir, filepath.Base(name)+".log"), name, dir, env, args...)
}

// StartProcess runs name with args in dir, in its own process group, its
// output going to the file logPath.
func StartProcess(logPath, name, dir string, env []string, args ...string) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	started := time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{name: filepath.Base(name), cmd: cmd, logPath: logPath, exited: make(chan struct{}), Started: started}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// Stop ends the process group: SIGTERM, then SIGKILL after a grace period.
func (p *Process) Stop() {
	if p == nil || p.Exited() {
		return
	}
	pgid := -p.cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	// Children may outlive the leader; the group is killed either way.
	syscall.Kill(pgid, syscall.SIGKILL)
	<-p.exited
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.exited }

// ExitErr says how the process ended ("exit status 1", "signal: killed"),
// or nil for a clean exit, once Done is closed.
func (p *Process) ExitErr() error {
	<-p.exited
	return p.waitErr
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Log returns what the process has printed so far.
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// waitHTTP polls url until it answers with one of the given statuses, the
// process exits, or ctx ends. A 403 ends the wait at once: it is a refusal
// that waiting does not change (the Worker's host guard, for one).
func (p *Process) waitHTTP(ctx context.Context, url string, statuses ...int) error {
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		if resp, err := client.Get(url); err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
			resp.Body.Close()
			for _, s := range statuses {
				if resp.StatusCode == s {
					return nil
				}
			}
			if resp.StatusCode == http.StatusForbidden {
				return fmt.Errorf("%s answers %s at %s: %s", p.name, resp.Status, url, body)
			}
		}
		if p.Exited() {
			return fmt.Errorf("%s exited before it was ready; its output:\n%s", p.name, p.Log())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %w; its output:\n%s", p.name, url, ctx.Err(), p.Log())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// RepoRoot returns the repository's top folder: the nearest parent of the
// working directory that holds wrangler.toml.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "wrangler.toml")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no wrangler.toml above the working directory")
		}
		dir = parent
	}
}

// envList turns a map into KEY=VALUE entries.
func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}
