//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// nodeRun is one finished run of a Node program.
type nodeRun struct {
	stdout, stderr []byte
	code           int // exit status; -1 if it was killed
}

// runNode runs a JavaScript file of the repository or of node_modules with
// the pinned Node 22 (node_modules/.bin/node; the machine's own Node may be
// older than the MCP tools need), in dir, with env added to the test's
// environment. The clients are run from their installed files, never through
// npx, so nothing is fetched at test time.
func runNode(t *testing.T, ctx context.Context, dir string, env []string, script string, args ...string) nodeRun {
	t.Helper()
	node := filepath.Join(root, "node_modules", ".bin", "node")
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(root, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"NO_COLOR=1", "FORCE_COLOR=0"}, env...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	run := nodeRun{stdout: stdout.Bytes(), stderr: stderr.Bytes(), code: cmd.ProcessState.ExitCode()}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s: %v\nstdout:\n%s\nstderr:\n%s", script, err, run.stdout, run.stderr)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish: %v\nstdout:\n%s\nstderr:\n%s", script, ctx.Err(), run.stdout, run.stderr)
	}
	return run
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// plain drops terminal color codes, which some tools print whatever NO_COLOR says.
func plain(b []byte) string { return ansiEscape.ReplaceAllString(string(b), "") }
