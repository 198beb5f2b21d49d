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
	URL     string // base URL, e.g. http://127.0.0.1:40125
	TwinURL string // with WorkerOptions.Twin: the base URL of the second copy
	proc    *Process
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
	// Twin runs a second copy of the gateway in the same wrangler dev, a
	// Worker of its own (so an isolate of its own) that binds the first's
	// Durable Objects, as two isolates of a deployment share them: the
	// grants and the memo locks. It answers at TwinURL; a Worker in front
	// serves the port and passes each request to one of the two.
	Twin bool
	// ColdTwin, with Twin, leaves the twin untouched until the test's
	// first request: its Go program starts on that request (a cold
	// start), not on the harness's wait for /healthz.
	ColdTwin bool
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
	if opts.Twin && opts.Front != "" {
		return nil, fmt.Errorf("harness: a gateway with a twin has a front of its own")
	}
	if opts.Front != "" || opts.Twin {
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
	var twin string
	if opts.Twin {
		var front string
		if front, twin, err = writeTwin(config); err != nil {
			return nil, err
		}
		args = append(args, "--config", front)
	}
	args = append(args, "--config", config)
	if twin != "" {
		args = append(args, "--config", twin)
	}
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
	if opts.Twin {
		w.TwinURL = w.URL + twinPrefix
	}
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	for _, base := range []string{w.URL, w.TwinURL} {
		// The twin is loaded with the gateway, by the same workerd.
		if base == "" || base == w.TwinURL && opts.ColdTwin {
			continue
		}
		if err := proc.waitHTTP(ctx, base+"/healthz", http.StatusOK, http.StatusServiceUnavailable); err != nil {
			proc.Stop()
			return nil, err
		}
	}
	return w, nil
}

// twinPrefix is the path under which the front Worker of a gateway with a
// twin passes requests to the twin, without the prefix.
const twinPrefix = "/twin"

// twinFront is that front Worker: it passes every request to the gateway,
// or, under /twin (twinPrefix), to its twin.
const twinFront = `export default {
  fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname !== "/twin" && !url.pathname.startsWith("/twin/")) return env.GATEWAY.fetch(request);
    url.pathname = url.pathname.slice("/twin".length) || "/";
    return env.TWIN.fetch(new Request(url, request));
  },
};
`

// writeTwin writes, beside the gateway's configuration, those of the front
// Worker and of the twin: the gateway's own, renamed, its Durable Object
// bindings naming the gateway's classes (script_name) and without the
// migrations, which belong to the Worker that defines the classes.
func writeTwin(config string) (front, twin string, err error) {
	src, err := os.ReadFile(config)
	if err != nil {
		return "", "", err
	}
	dir := filepath.Dir(config)
	for migrationTable.Match(src) {
		src = migrationTable.ReplaceAll(src, []byte("$1"))
	}
	// The Worker's name is the first name line; the bindings' come later.
	at := nameLine.FindIndex(src)
	if at == nil {
		return "", "", fmt.Errorf("%s names no Worker", config)
	}
	src = append(append(slices.Clip(src[:at[0]]), `name = "memos-mcp-edge-twin"`...), src[at[1]:]...)
	src = classLine.ReplaceAll(src, []byte("$0\nscript_name = \"memos-mcp-edge\""))
	front, twin = filepath.Join(dir, "front.toml"), filepath.Join(dir, "twin.toml")
	frontConfig := "name = \"gateway-front\"\nmain = \"twin-front.mjs\"\n" + string(compatLine.Find(src)) + "\n\n" +
		"[[services]]\nbinding = \"GATEWAY\"\nservice = \"memos-mcp-edge\"\n\n[[services]]\nbinding = \"TWIN\"\nservice = \"memos-mcp-edge-twin\"\n"
	for path, b := range map[string][]byte{front: []byte(frontConfig), twin: src, filepath.Join(dir, "twin-front.mjs"): []byte(twinFront)} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return "", "", err
		}
	}
	return front, twin, nil
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
	buildTable     = regexp.MustCompile(`(?ms)^\[build\]\n.*?(^\[|\z)`)
	grantTables    = regexp.MustCompile(`(?ms)^\[\[(durable_objects\.bindings|migrations)\]\]\n.*?(^\[|\z)`)
	migrationTable = regexp.MustCompile(`(?ms)^\[\[migrations\]\]\n.*?(^\[|\z)`)
	nameLine       = regexp.MustCompile(`(?m)^name = .*$`)
	classLine      = regexp.MustCompile(`(?m)^class_name = .*$`)
	compatLine     = regexp.MustCompile(`(?m)^compatibility_date = .*$`)
	mainLine       = regexp.MustCompile(`(?m)^main = .*$`)
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
	for _, name := range []string{"worker.mjs", "driver.mjs", "grants.mjs", "lease.mjs", "routes_gen.mjs", "card.html", "wasm_exec.js", "runtime.mjs", "app.wasm"} {
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
