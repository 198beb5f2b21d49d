package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	Vars map[string]string // Worker variables, passed with --var (secrets through .dev.vars)
	Port int               // 0 picks a free port
	// DevVars is the start of the .dev.vars file the Worker reads (the
	// lines of a person's own file), before the secrets of Vars.
	DevVars string
	// Config is TOML appended to the generated configuration, e.g. a
	// [[services]] binding.
	Config string
	// NoGrants leaves out the repository configuration's Durable Object
	// binding and migration, as a hand-edited wrangler.toml might.
	NoGrants bool
	// Sidecars are configurations of further Workers that the same
	// wrangler dev runs next to this one, reachable through service
	// bindings (stand-ins for a tunnel or a Workers VPC service).
	Sidecars []string
	// Front is the configuration of a Worker that wrangler dev serves on
	// the port instead of the gateway, reaching the gateway through a
	// service binding to "memos-mcp-edge" (a stand-in for a client that
	// hangs up, which wrangler dev cannot otherwise show the gateway).
	Front string
}

// Wrangler returns the command that runs the pinned wrangler with the pinned
// Node (wrangler needs a newer Node than the machine may have).
func Wrangler(root string) (node string, args []string) {
	return filepath.Join(root, "node_modules", ".bin", "node"), []string{filepath.Join(root, "node_modules", "wrangler", "bin", "wrangler.js")}
}

// StartWorker runs the Worker under wrangler dev and waits until it answers.
// Ports it chose itself that something else took before wrangler could
// bind them (another process's ephemeral port, say) are chosen afresh, up
// to portTries times.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	for try := 1; ; try++ {
		w, err := startWorker(ctx, opts)
		if err == nil || opts.Port != 0 || try == portTries || !strings.Contains(err.Error(), "Address already in use") {
			return w, err
		}
	}
}

// portTries bounds the starts of StartWorker.
const portTries = 3

func startWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
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
	// The Worker runs from a copy of build/ with the build step left out,
	// so that a rebuild meanwhile cannot reload it.
	vars := opts.Vars
	inline := map[string]string(nil)
	if opts.Front != "" {
		// --var sets the variables of the first configuration only.
		inline, vars = vars, nil
	}
	config, err := copyWorker(opts.Root, opts.Dir, opts.Config, inline, opts.NoGrants)
	if err != nil {
		return nil, err
	}
	if opts.Front == "" {
		// Secrets go where wrangler reads them without printing their
		// values: .dev.vars beside the configuration, not --var.
		var secrets map[string]string
		vars, secrets = splitSecrets(vars)
		if err := writeDevVars(filepath.Dir(config), opts.DevVars, secrets); err != nil {
			return nil, err
		}
	}
	node, args := Wrangler(opts.Root)
	args = append(args, "dev")
	if opts.Front != "" {
		args = append(args, "--config", opts.Front) // the first configuration is the one served
	}
	args = append(args, "--config", config)
	for _, side := range opts.Sidecars {
		args = append(args, "--config", side)
	}
	args = append(args, "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--inspector-port", strconv.Itoa(inspector), "--persist-to", filepath.Join(opts.Dir, "wrangler-state"))
	for _, k := range SortedKeys(vars) {
		args = append(args, "--var", k+":"+vars[k])
	}
	env := []string{"WRANGLER_SEND_METRICS=false", "NO_COLOR=1"}
	proc, err := StartProcess(filepath.Join(opts.Dir, "wrangler.log"), node, opts.Root, env, args...)
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

// Done is closed when wrangler has ended, stopped or not; ExitErr then
// says how.
func (w *Worker) Done() <-chan struct{} { return w.proc.Done() }

// ExitErr says how wrangler ended, once Done is closed.
func (w *Worker) ExitErr() error { return w.proc.ExitErr() }

// secretNames are the variables a deployment keeps as secrets.
var secretNames = []string{"OAUTH_SECRET", "OAUTH_SECRET_PREVIOUS", "CF_ACCESS_CLIENT_ID", "CF_ACCESS_CLIENT_SECRET"}

// splitSecrets returns vars without its secrets, and the secrets.
func splitSecrets(vars map[string]string) (plain, secrets map[string]string) {
	plain, secrets = map[string]string{}, map[string]string{}
	for k, v := range vars {
		if slices.Contains(secretNames, k) {
			secrets[k] = v
		} else {
			plain[k] = v
		}
	}
	return plain, secrets
}

// writeDevVars writes start and then secrets into dir/.dev.vars, as a
// person does for wrangler dev.
func writeDevVars(dir, start string, secrets map[string]string) error {
	if start == "" && len(secrets) == 0 {
		return nil
	}
	var b strings.Builder
	if start != "" {
		b.WriteString(strings.TrimSuffix(start, "\n") + "\n")
	}
	for _, k := range SortedKeys(secrets) {
		v, _ := json.Marshal(secrets[k])
		b.WriteString(k + "=" + string(v) + "\n")
	}
	return os.WriteFile(filepath.Join(dir, ".dev.vars"), []byte(b.String()), 0o600)
}

var (
	buildTable  = regexp.MustCompile(`(?ms)^\[build\]\n.*?(^\[|\z)`)
	grantTables = regexp.MustCompile(`(?ms)^\[\[(durable_objects\.bindings|migrations)\]\]\n.*?(^\[|\z)`)
	mainLine    = regexp.MustCompile(`(?m)^main = .*$`)
)

// SortedKeys returns the keys of m in order, for command lines and
// configurations that must come out the same each time.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// copyWorker copies build/ into dir and writes a wrangler configuration that
// serves it: the repository's, without the build step, with vars set in its
// [vars] table, plus extra.
func copyWorker(root, dir, extra string, vars map[string]string, noGrants bool) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		return "", err
	}
	build := filepath.Join(dir, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return "", err
	}
	for _, name := range []string{"worker.mjs", "driver.mjs", "grants.mjs", "lease.mjs", "wasm_exec.js", "runtime.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(root, "build", name))
		if err != nil {
			return "", fmt.Errorf("%w (run make build first)", err)
		}
		if err := os.WriteFile(filepath.Join(build, name), b, 0o644); err != nil {
			return "", err
		}
	}
	config := buildTable.ReplaceAll(src, []byte("$1"))
	if noGrants {
		for grantTables.Match(config) {
			config = grantTables.ReplaceAll(config, []byte("$2"))
		}
	}
	config = mainLine.ReplaceAll(config, []byte(`main = "build/worker.mjs"`))
	for _, k := range SortedKeys(vars) {
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k) + ` = .*\n`)
		config = line.ReplaceAll(config, nil)
		value, _ := json.Marshal(vars[k]) // a JSON string is a TOML basic string here
		config = bytes.Replace(config, []byte("[vars]\n"), []byte("[vars]\n"+k+" = "+string(value)+"\n"), 1)
	}
	config = append(config, "\n"+extra...)
	path := filepath.Join(dir, "wrangler.toml")
	return path, os.WriteFile(path, config, 0o644)
}
