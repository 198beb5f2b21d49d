package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/notebook"
)

// profileKinds is `go run ./test/bench -cpu -profile KIND…` (Linux, with
// perf): row 11's request kinds whose names start with a KIND, each
// sampled with `perf record` while the gateway of build/ serves cpuRounds
// of it under workerd alone, after warmRounds. V8 names the code it makes
// (--perf-basic-prof); a wasm function's name comes from
// build/app.named.wasm (`make wasmsize` writes it), the same build with its
// names. The report gives each kind's samples by where they fall (Go's
// code by package, JavaScript, the runtime's own code, the kernel) and its
// heaviest Go functions.
func profileKinds(ctx context.Context, prefixes []string, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	build := filepath.Join(env.root, "build")
	names, err := funcNames(filepath.Join(build, "app.named.wasm"))
	if err != nil {
		return err
	}
	if names == nil {
		return fmt.Errorf("no %s: run make wasmsize first", filepath.Join(build, "app.named.wasm"))
	}
	b := &bench{root: env.root, dir: env.dir, memos: env.memos, vars: env.gatewayVars()}
	if b.gateway, err = gatewayWorker(b.root, b.dir, env.compat); err != nil {
		return err
	}
	if _, _, err := dryRun(b.root, b.gateway); err != nil {
		return err
	}
	progress("seeding a notebook of %d memos", notebookMemos)
	if err := notebook.Seed(ctx, b.memos.URL, b.memos.Token); err != nil {
		return err
	}
	memo, err := b.cpuMemo(ctx)
	if err != nil {
		return err
	}
	wd := b.gateway
	wd.onDisk = true
	wk, err := wd.workerdFlags(b.root, env.compat, b.vars, binaryConfig, []string{"--perf-basic-prof"})
	if err != nil {
		return err
	}
	defer wk.Stop()
	defer os.Remove(fmt.Sprintf("/tmp/perf-%d.map", wk.Pid()))
	token := b.memos.Token
	if _, _, err := wk.waitReady(ctx, listBody, mcpHeaders(token)); err != nil {
		return err
	}
	for _, k := range cpuKinds(memo) {
		if !slicesHasPrefix(prefixes, k.name) {
			continue
		}
		c := mcpCall(k.name, wk.URL+"/mcp", token, k.body, isResult)
		interleave(ctx, 0, warmRounds, c)
		data := filepath.Join(env.dir, "perf-"+strconv.Itoa(wk.Pid())+"-"+regexp.MustCompile(`\W+`).ReplaceAllString(k.name, "_")+".data")
		rec := exec.Command("perf", "record", "-F", "2000", "-g", "-p", strconv.Itoa(wk.Pid()), "-o", data)
		var recOut bytes.Buffer
		rec.Stdout, rec.Stderr = &recOut, &recOut
		if err := rec.Start(); err != nil {
			return fmt.Errorf("perf record: %w", err)
		}
		lat := interleave(ctx, cpuRounds, 0, c)
		rec.Process.Signal(syscall.SIGINT)
		rec.Wait() // ended by the signal; its data file says whether it recorded
		if _, err := os.Stat(data); err != nil {
			return fmt.Errorf("perf record: %v\n%s", err, recOut.Bytes())
		}
		if lat[0].errors > 0 {
			return fmt.Errorf("%s failed %d times: %v", k.name, lat[0].errors, lat[0].firstErr)
		}
		rep, err := exec.Command("perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym", "-g", "none", "--percent-limit", "0").Output()
		if err != nil {
			return fmt.Errorf("perf report: %w", err)
		}
		fmt.Fprintf(w, "%s: %d requests sampled at 2 kHz, workerd's threads\n\n%s\n", k.name, cpuRounds, samplesByPlace(rep, names))
	}
	return nil
}

// slicesHasPrefix reports whether s starts with one of prefixes.
func slicesHasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// perfLine is a line of `perf report --sort sym`: its share and symbol,
// [.] for user space and [k] for the kernel.
var perfLine = regexp.MustCompile(`^\s*([0-9.]+)%\s+\[([.k])\]\s+(.*?)\s*$`)

// samplesByPlace sums a perf report's shares by where they fall and lists
// the heaviest Go functions.
func samplesByPlace(report []byte, names map[uint32]string) string {
	places := map[string]float64{}
	funcs := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(report))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := perfLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		share, _ := strconv.ParseFloat(m[1], 64)
		sym := m[3]
		switch w := wasmCode.FindStringSubmatch(sym); {
		case m[2] == "k":
			places["the kernel"] += share
		case w != nil:
			n, _ := strconv.ParseUint(w[1], 10, 32)
			name := names[uint32(n)]
			places["Go: "+goPackage(name)] += share
			funcs[shortName(name)] += share
		case strings.HasPrefix(sym, "JS:") || strings.HasPrefix(sym, "LazyCompile:") || strings.HasPrefix(sym, "Function:"):
			places["JavaScript (the entry module, the driver, the runtime's JavaScript)"] += share
		default:
			places["the runtime's own code (workerd, V8: HTTP, streams, compiling, collecting)"] += share
		}
	}
	var b strings.Builder
	b.WriteString("| where | share of samples |\n|---|---|\n")
	for _, p := range sortedByShare(places, 14) {
		fmt.Fprintf(&b, "| %s | %.1f%% |\n", p, places[p])
	}
	b.WriteString("\n| Go function | share |\n|---|---|\n")
	for _, f := range sortedByShare(funcs, 12) {
		fmt.Fprintf(&b, "| %s | %.1f%% |\n", f, funcs[f])
	}
	return b.String()
}

// goPackage is the package of a Go function as the name section spells it,
// with "_" for "/", "-" and "." in the path ("internal_runtime_maps.…",
// "golang.org_x_crypto_blake2b.…"); the gateway's own lose the module.
func goPackage(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	name = shortName(name)
	host := ""
	for _, h := range []string{"golang.org_", "github.com_"} {
		if rest, ok := strings.CutPrefix(name, h); ok {
			host, name = h, rest // a module path's host
		}
	}
	pkg, _, _ := strings.Cut(name, ".")
	return host + pkg
}

// shortName drops the gateway's module from a function's name.
func shortName(name string) string {
	return strings.TrimPrefix(name, "github.com_memos_mcp_edge_memos_mcp_edge_")
}

// sortedByShare returns the n keys of m with the largest values.
func sortedByShare(m map[string]float64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	return keys[:min(n, len(keys))]
}
