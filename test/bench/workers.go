package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// workerDir is a folder that `wrangler dev` and `wrangler deploy --dry-run`
// can run as it is: a Worker's files and a wrangler.toml without a build step.
// The gateway and the JavaScript baselines are all run this way, with the same
// wrangler flags, so that they differ only in the Worker.
type workerDir struct {
	name   string
	main   string // its main module
	config string // path of its wrangler.toml
	locks  bool   // it declares the memo locks' Durable Objects (a build with lease.mjs)
	// onDisk keeps its Durable Objects in SQLite files, as wrangler dev
	// and production do, rather than in memory; under workerd alone the
	// files are shared by every workerd of this folder, so only one may
	// run at a time.
	onDisk bool
}

var compatDate = regexp.MustCompile(`(?m)^compatibility_date\s*=\s*"([^"]+)"`)

// compatibilityDate returns the repository's compatibility date, which the
// baselines share so that they run under the same runtime behaviour.
func compatibilityDate(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		return "", err
	}
	m := compatDate.FindSubmatch(b)
	if m == nil {
		return "", errors.New("wrangler.toml has no compatibility_date")
	}
	return string(m[1]), nil
}

// gatewayWorker copies the built Worker (build/) into dir/gateway.
func gatewayWorker(root, dir, compat string) (workerDir, error) {
	files, err := workerFiles(filepath.Join(root, "build"))
	if err != nil {
		return workerDir{}, err
	}
	return writeWorker(dir, "gateway", "worker.mjs", compat, files, "")
}

// quietWorker is the gateway under an entry module that discards
// console.log before it starts the Go program: the gateway without its log
// line, whose cost under wrangler dev rows 3 and 4 show apart.
func quietWorker(root, dir, compat string) (workerDir, error) {
	files, err := workerFiles(filepath.Join(root, "build"))
	if err != nil {
		return workerDir{}, err
	}
	// Its Durable Object classes (the memo locks') are the entry's too.
	files["quiet.mjs"] = []byte("export { default } from \"./worker.mjs\";\nexport * from \"./worker.mjs\";\nconsole.log = () => {};\n")
	return writeWorker(dir, "quiet", "quiet.mjs", compat, files, "")
}

// workerFiles reads the Worker's files that `make build` wrote into build
// (the repository's build/, or a baseline's). An older build may have no
// driver.mjs, grants.mjs, lease.mjs, routes_gen.mjs or card.html.
func workerFiles(build string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, f := range []string{"worker.mjs", "driver.mjs", "grants.mjs", "lease.mjs", "routes_gen.mjs", "card.html", "wasm_exec.js", "runtime.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(build, f))
		if errors.Is(err, os.ErrNotExist) && (f == "driver.mjs" || f == "grants.mjs" || f == "lease.mjs" || f == "routes_gen.mjs" || f == "card.html") {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w (make build first)", err)
		}
		files[f] = b
	}
	return files, nil
}

// baselineWorker copies test/bench/workers/<name>.mjs, and the extra files
// it imports, into dir/name. Files ending in .bin are imported as bytes.
func baselineWorker(root, dir, compat, name string, extra map[string][]byte) (workerDir, error) {
	src, err := os.ReadFile(filepath.Join(root, "test", "bench", "workers", name+".mjs"))
	if err != nil {
		return workerDir{}, err
	}
	files := map[string][]byte{name + ".mjs": src}
	for k, v := range extra {
		files[k] = v
	}
	rules := "\n[[rules]]\ntype = \"Data\"\nglobs = [\"**/*.bin\"]\n"
	return writeWorker(dir, name, name+".mjs", compat, files, rules)
}

func writeWorker(dir, name, main, compat string, files map[string][]byte, more string) (workerDir, error) {
	wd := filepath.Join(dir, name)
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return workerDir{}, err
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(wd, f), b, 0o644); err != nil {
			return workerDir{}, err
		}
	}
	// A build with the memo locks exports their class, and its Worker
	// declares them as the shipped wrangler.toml does: without them
	// /healthz reports writes refused.
	_, locks := files["lease.mjs"]
	if locks {
		more += lockObjects
	}
	config := fmt.Sprintf("name = %q\nmain = %q\ncompatibility_date = %q\n%s", "bench-"+name, main, compat, more)
	path := filepath.Join(wd, "wrangler.toml")
	return workerDir{name: name, main: main, config: path, locks: locks}, os.WriteFile(path, []byte(config), 0o644)
}

// lockObjects is the wrangler configuration of the memo locks' Durable
// Objects, as the shipped wrangler.toml has it.
const lockObjects = `
[[durable_objects.bindings]]
name = "MEMO_LOCKS"
class_name = "MemoLock"

[[migrations]]
tag = "locks-v1"
new_sqlite_classes = ["MemoLock"]
`

// worker is a running Worker: `wrangler dev`, or workerd serving the
// deploy bundle.
type worker struct {
	*harness.Process
	name string
	URL  string
}

// dev runs `wrangler dev` for w on free loopback ports (HTTP and inspector,
// so that several can run at once) and returns at once; see waitReady.
func (w workerDir) dev(root string, vars map[string]string) (*worker, error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	inspector, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	state, err := os.MkdirTemp(filepath.Dir(w.config), "state-")
	if err != nil {
		return nil, err
	}
	node, args := harness.Wrangler(root)
	args = append(args, "dev", "--config", w.config, "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--inspector-port", strconv.Itoa(inspector), "--persist-to", state, "--log-level", "warn")
	for _, k := range harness.SortedKeys(vars) {
		args = append(args, "--var", k+":"+vars[k])
	}
	return w.launch(port, node, args, "WRANGLER_SEND_METRICS=false", "NO_COLOR=1")
}

// A configFormat is how workerd is given its configuration, the Worker's
// modules inside it.
type configFormat int

const (
	// binaryConfig is an encoded Cap'n Proto message (workerd serve
	// --binary), as wrangler dev gives workerd its configuration: the
	// modules are bytes in the message. Cloudflare's production runtime
	// loads Workers with server code of its own, not workerd's
	// configuration, so neither form is what it does; this one leaves out
	// what only a hand-written configuration costs, the parse below.
	binaryConfig configFormat = iota
	// textConfig is Cap'n Proto text that embeds each module's file
	// (embed "app.wasm"): workerd compiles it with Cap'n Proto's schema
	// parser at start, which takes time in proportion to the files' bytes.
	textConfig
)

func (f configFormat) String() string { return [...]string{"binary", "text"}[f] }

// workerd runs the runtime alone, without wrangler, on the bundle that
// `wrangler deploy --dry-run` wrote for w (see dryRun): what a deployment
// uploads, started in a new process and so in a new isolate.
func (w workerDir) workerd(root, compat string, vars map[string]string) (*worker, error) {
	return w.workerdWith(root, compat, vars, binaryConfig)
}

// workerdWith is workerd with the configuration in the given format.
func (w workerDir) workerdWith(root, compat string, vars map[string]string, format configFormat) (*worker, error) {
	return w.workerdFlags(root, compat, vars, format, nil)
}

// workerdFlags is workerdWith, with flags for V8 in the configuration
// (workerd's v8Flags).
func (w workerDir) workerdFlags(root, compat string, vars map[string]string, format configFormat, v8Flags []string) (*worker, error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	config, err := w.workerdConfig(root, compat, vars, format, v8Flags)
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--socket-addr", "http=127.0.0.1:" + strconv.Itoa(port), config}
	if format == binaryConfig {
		args = append(args[:1], append([]string{"--binary"}, args[1:]...)...)
	}
	return w.launch(port, filepath.Join(root, "node_modules", ".bin", "workerd"), args)
}

// workerdConfig writes w's workerd configuration for vars in the given
// format, once: later calls with the same vars reuse its file. The socket's
// address is given on the command line.
func (w workerDir) workerdConfig(root, compat string, vars map[string]string, format configFormat, v8Flags []string) (string, error) {
	bundle := filepath.Join(filepath.Dir(w.config), "dry-run")
	entries, err := os.ReadDir(bundle)
	if err != nil {
		return "", fmt.Errorf("%w (run wrangler deploy --dry-run first)", err)
	}
	// The bundle's main module is named after the Worker's, as .js.
	modules := []configModule{{Name: strings.TrimSuffix(w.main, filepath.Ext(w.main)) + ".js", Type: "esModule"}}
	for _, e := range entries {
		if kind := map[string]string{".wasm": "wasm", ".bin": "data"}[filepath.Ext(e.Name())]; kind != "" {
			modules = append(modules, configModule{Name: e.Name(), Type: kind})
		}
	}
	c := configFile{Address: "127.0.0.1:0", CompatibilityDate: compat, Bindings: []configBinding{}, Modules: modules, V8Flags: v8Flags}
	for _, k := range harness.SortedKeys(vars) {
		c.Bindings = append(c.Bindings, configBinding{Name: k, Text: vars[k]})
	}
	if w.locks {
		c.Objects = []configObject{{Binding: "MEMO_LOCKS", Class: "MemoLock"}}
	}
	if w.locks && w.onDisk {
		c.Storage = filepath.Join(filepath.Dir(w.config), "objects")
		if err := os.MkdirAll(c.Storage, 0o755); err != nil {
			return "", err
		}
	}
	for i := range c.Modules {
		c.Modules[i].Path = filepath.Join(bundle, c.Modules[i].Name)
	}
	desc, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(w.config), fmt.Sprintf("workerd-%s-%x.capnp", format, sha256.Sum256(desc)))
	if format == binaryConfig {
		path += ".bin"
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if format == textConfig {
		var text strings.Builder
		for _, m := range c.Modules {
			fmt.Fprintf(&text, "\n    (name = %q, %s = embed %q),", m.Name, m.Type, filepath.Join("dry-run", m.Name))
		}
		var flags, bindings, services, worker strings.Builder
		for _, f := range c.V8Flags {
			fmt.Fprintf(&flags, "%q, ", f)
		}
		for _, b := range c.Bindings {
			fmt.Fprintf(&bindings, "(name = %q, text = %q), ", b.Name, b.Text)
		}
		for _, o := range c.Objects {
			fmt.Fprintf(&bindings, "(name = %q, durableObjectNamespace = %q), ", o.Binding, o.Class)
			fmt.Fprintf(&worker, "  durableObjectNamespaces = [(className = %q, uniqueKey = %q, enableSql = true)],\n", o.Class, o.Class)
		}
		switch {
		case c.Storage != "":
			fmt.Fprintf(&services, "\n    (name = \"objects\", disk = (path = %q, writable = true)),", c.Storage)
			worker.WriteString("  durableObjectStorage = (localDisk = \"objects\"),\n")
		case len(c.Objects) > 0:
			worker.WriteString("  durableObjectStorage = (inMemory = void),\n")
		}
		return path, os.WriteFile(path, fmt.Appendf(nil, workerdText, flags.String(), services.String(), c.Address, text.String(), compat, bindings.String(), worker.String()), 0o644)
	}
	descPath := path + ".json"
	if err := os.WriteFile(descPath, desc, 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "node"), filepath.Join(root, "test", "bench", "capnp.mjs"), descPath, path)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("capnp.mjs: %v\n%s", err, b)
	}
	return path, nil
}

// configFile is what capnp.mjs reads: one Worker on one socket.
type configFile struct {
	Address           string          `json:"address"`
	CompatibilityDate string          `json:"compatibilityDate"`
	Bindings          []configBinding `json:"bindings"`
	Modules           []configModule  `json:"modules"`
	V8Flags           []string        `json:"v8Flags,omitempty"`
	Objects           []configObject  `json:"objects,omitempty"`
	Storage           string          `json:"storage,omitempty"` // the folder that holds the objects' SQLite files
}

// configObject is a Durable Object namespace of the Worker's, of a class
// its main module exports, bound under Binding.
type configObject struct {
	Binding string `json:"binding"`
	Class   string `json:"className"`
}

type configBinding struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type configModule struct {
	Name string `json:"name"`
	Type string `json:"type"` // esModule, wasm or data
	Path string `json:"path"`
}

// workerdText is a workerd configuration in Cap'n Proto text for one
// Worker on one socket, allowed to fetch from loopback (Memos).
const workerdText = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  v8Flags = [%s],
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),%s
  ],
  sockets = [(name = "http", address = %q, http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [%s
  ],
  compatibilityDate = %q,
  bindings = [%s],
%s);
`

// Stop ends the Worker's processes; a Worker never started is a no-op.
func (d *worker) Stop() {
	if d != nil {
		d.Process.Stop()
	}
}

func (w workerDir) launch(port int, name string, args []string, env ...string) (*worker, error) {
	logPath := filepath.Join(filepath.Dir(w.config), filepath.Base(name)+"-"+strconv.Itoa(port)+".log")
	p, err := harness.StartProcess(logPath, name, filepath.Dir(w.config), env, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, err)
	}
	return &worker{Process: p, name: w.name, URL: "http://127.0.0.1:" + strconv.Itoa(port)}, nil
}

// waitReady polls POST /mcp with body and header every few milliseconds
// until the Worker answers 200, and returns the time from the process start to that
// answer and how long that answering request itself took.
func (d *worker) waitReady(ctx context.Context, body string, header http.Header) (sinceStart, lastRequest time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		sent := time.Now()
		status, _, err := post(ctx, client, d.URL+"/mcp", body, header)
		if err == nil && status == 200 {
			return time.Since(d.Started), time.Since(sent), nil
		}
		select {
		case <-d.Done():
			return 0, 0, fmt.Errorf("%s exited; its output:\n%s", d.name, d.Log())
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("%s not ready: %w (last: %d %v); its output:\n%s", d.name, ctx.Err(), status, err, d.Log())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
