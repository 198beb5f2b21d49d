package harness

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// Worker is the gateway running under wrangler dev (workerd) on loopback.
type Worker struct {
	URL  string // base URL, e.g. http://127.0.0.1:40125
	proc *Process
}

// WorkerOptions configure StartWorker.
type WorkerOptions struct {
	Root string            // repository root (holds wrangler.toml, build/, node_modules/)
	Dir  string            // scratch folder for configuration, logs and state
	Vars map[string]string // Worker variables, passed with --var
	Port int               // 0 picks a free port
	// RepoConfig runs the repository's wrangler.toml as it is, build step
	// included, as `make dev` does. Otherwise the Worker runs from a copy of
	// build/ with the build step left out, so that a rebuild during a test
	// cannot reload it.
	RepoConfig bool
	// Config is TOML appended to the generated configuration, e.g. a
	// [[services]] binding. Not used with RepoConfig.
	Config string
	// Sidecars are configurations of further Workers that the same
	// wrangler dev runs next to this one, reachable through service
	// bindings (stand-ins for a tunnel or a Workers VPC service).
	Sidecars []string
}

// Wrangler returns the command that runs the pinned wrangler with the pinned
// Node (wrangler needs a newer Node than the machine may have).
func Wrangler(root string) (node string, args []string) {
	return filepath.Join(root, "node_modules", ".bin", "node"), []string{filepath.Join(root, "node_modules", "wrangler", "bin", "wrangler.js")}
}

// StartWorker runs the Worker under wrangler dev and waits until it answers.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	port := opts.Port
	if port == 0 {
		var err error
		if port, err = FreePort(); err != nil {
			return nil, err
		}
	}
	inspector, err := FreePort()
	if err != nil {
		return nil, err
	}
	config := filepath.Join(opts.Root, "wrangler.toml")
	if !opts.RepoConfig {
		if config, err = copyWorker(opts.Root, opts.Dir, opts.Config); err != nil {
			return nil, err
		}
	}
	node, args := Wrangler(opts.Root)
	args = append(args, "dev", "--config", config)
	for _, side := range opts.Sidecars {
		args = append(args, "--config", side)
	}
	args = append(args, "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--inspector-port", strconv.Itoa(inspector), "--persist-to", filepath.Join(opts.Dir, "wrangler-state"))
	names := make([]string, 0, len(opts.Vars))
	for k := range opts.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "--var", k+":"+opts.Vars[k])
	}
	env := []string{"WRANGLER_SEND_METRICS=false", "NO_COLOR=1"}
	proc, err := start(node, opts.Root, opts.Dir, env, args...)
	if err != nil {
		return nil, err
	}
	w := &Worker{URL: "http://127.0.0.1:" + strconv.Itoa(port), proc: proc}
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	if err := proc.waitHTTP(ctx, w.URL+"/healthz", http.StatusOK, http.StatusServiceUnavailable); err != nil {
		proc.Stop()
		return nil, err
	}
	return w, nil
}

// Stop ends wrangler and workerd.
func (w *Worker) Stop() { w.proc.Stop() }

// Log returns wrangler's output.
func (w *Worker) Log() string { return w.proc.Log() }

var (
	buildTable = regexp.MustCompile(`(?ms)^\[build\]\n.*?(^\[|\z)`)
	mainLine   = regexp.MustCompile(`(?m)^main = .*$`)
)

// copyWorker copies build/ into dir and writes a wrangler configuration that
// serves it: the repository's, without the build step, plus extra.
func copyWorker(root, dir, extra string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		return "", err
	}
	build := filepath.Join(dir, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return "", err
	}
	for _, name := range []string{"worker.mjs", "wasm_exec.js", "runtime.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(root, "build", name))
		if err != nil {
			return "", fmt.Errorf("%w (run make build first)", err)
		}
		if err := os.WriteFile(filepath.Join(build, name), b, 0o644); err != nil {
			return "", err
		}
	}
	config := buildTable.ReplaceAll(src, []byte("$1"))
	config = mainLine.ReplaceAll(config, []byte(`main = "build/worker.mjs"`))
	config = append(config, "\n"+extra...)
	path := filepath.Join(dir, "wrangler.toml")
	return path, os.WriteFile(path, config, 0o644)
}
