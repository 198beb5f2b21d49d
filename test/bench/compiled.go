package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
)

// compiledCode is `go run ./test/bench -compiled DIR…`: the machine code
// V8 makes in workerd from a cold start to the first /mcp answer (tools/list),
// for each build named and for the empty Go program, with the code bytes of
// the wasm functions Liftoff compiled, the ones TurboFan compiled and the
// JavaScript's. It has no noise: it counts what the first answer runs. wasm
// is compiled lazily, one function at its first call, so the Liftoff bytes
// follow the code that the start and the first request run, which is what
// a cold start spends most of its compile time on (docs/design.md). V8
// writes what it compiles to /tmp/perf-PID.map (--perf-basic-prof); Linux
// only. A build folder that holds app.named.wasm (`make wasmsize` writes
// one into build/) gets the names of its largest functions listed.
func compiledCode(ctx context.Context, builds []string, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	type target struct {
		name  string
		dir   workerDir
		vars  map[string]string
		names map[uint32]string
	}
	var targets []target
	for i, build := range builds {
		wd, err := env.prepare(i, build)
		if err != nil {
			return err
		}
		names, err := funcNames(filepath.Join(build, "app.named.wasm"))
		if err != nil {
			return err
		}
		targets = append(targets, target{build, wd, env.gatewayVars(), names})
	}
	empty, _, err := emptyGoWorker(env.root, env.dir, env.compat)
	if err != nil {
		return err
	}
	if _, _, err := dryRun(env.root, empty); err != nil {
		return err
	}
	targets = append(targets, target{"empty Go program", empty, map[string]string{"ANSWER_BYTES": "64"}, nil})
	header := mcpHeaders(env.memos.Token)
	fmt.Fprintln(w, "machine code made by V8 in workerd from a cold start to the first /mcp answer (tools/list)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| build | wasm, Liftoff: functions | code | wasm, TurboFan: functions | code | JavaScript: code |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var listed []string
	for _, t := range targets {
		wk, err := t.dir.workerdFlags(env.root, env.compat, t.vars, binaryConfig, []string{"--perf-basic-prof"})
		if err != nil {
			return err
		}
		_, _, err = wk.waitReady(ctx, listBody, header)
		mapPath := fmt.Sprintf("/tmp/perf-%d.map", wk.Pid())
		var code []codeObject
		if err == nil {
			code, err = readPerfMap(mapPath)
		}
		wk.Stop()
		os.Remove(mapPath)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		var lift, turbo tierTotal
		var js int64
		for _, c := range code {
			switch c.tier {
			case "liftoff":
				lift.add(c)
			case "turbofan":
				turbo.add(c)
			case "":
				js += int64(c.size)
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s |\n", t.name, lift.funcs, kb(lift.bytes), turbo.funcs, kb(turbo.bytes), kb(js))
		if t.names != nil {
			listed = append(listed, largestLiftoff(t.name, code, t.names, 25))
		}
	}
	for _, l := range listed {
		fmt.Fprint(w, "\n", l)
	}
	return nil
}

// A codeObject is one entry of V8's perf map: a wasm function (its index
// and the tier that compiled it) or a piece of JavaScript (tier "").
type codeObject struct {
	size int
	fn   uint32
	tier string // liftoff, turbofan, or "" for JavaScript
}

type tierTotal struct {
	funcs int
	bytes int64
}

func (t *tierTotal) add(c codeObject) { t.funcs, t.bytes = t.funcs+1, t.bytes+int64(c.size) }

// wasmCode matches the names V8 gives wasm functions in its perf map.
var wasmCode = regexp.MustCompile(`^JS:wasm-function\[(\d+)\]-\d+-(liftoff|turbofan)`)

// readPerfMap reads the wasm functions and the JavaScript of a perf map
// ("address size name" lines, size in hex), leaving out V8's stubs and the
// wrappers between wasm and JavaScript. Code that V8 replaced is still
// listed: a wasm function appears once per tier that compiled it.
func readPerfMap(path string) ([]codeObject, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (the flag --perf-basic-prof writes it; is /tmp writable?)", err)
	}
	defer f.Close()
	var out []codeObject
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 {
			continue
		}
		size, err := strconv.ParseUint(fields[1], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		switch m := wasmCode.FindStringSubmatch(fields[2]); {
		case m != nil:
			n, _ := strconv.ParseUint(m[1], 10, 32)
			out = append(out, codeObject{size: int(size), fn: uint32(n), tier: m[2]})
		case strings.HasPrefix(fields[2], "JS:") && !strings.Contains(fields[2], "wasm"):
			out = append(out, codeObject{size: int(size)})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New(path + " lists no code")
	}
	return out, nil
}

// funcNames reads the function names of a wasm with a name section, or
// returns nil when there is no such file.
func funcNames(path string) (map[uint32]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sections, err := wasmbin.Sections(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := map[uint32]string{}
	for _, s := range sections {
		r := s.Body
		if s.ID == wasmbin.SectionCustom && r.Name() == "name" {
			r.FuncNames(names)
		}
		if r.Err != nil {
			return nil, fmt.Errorf("%s: %w", path, r.Err)
		}
	}
	return names, nil
}

// largestLiftoff lists the n largest functions Liftoff compiled.
func largestLiftoff(build string, code []codeObject, names map[uint32]string, n int) string {
	var lift []codeObject
	for _, c := range code {
		if c.tier == "liftoff" {
			lift = append(lift, c)
		}
	}
	sort.Slice(lift, func(i, j int) bool { return lift[i].size > lift[j].size })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the %d largest functions Liftoff compiled (their names from app.named.wasm, which must be the same build with its names)\n\n", build, min(n, len(lift)))
	fmt.Fprintln(&b, "| code | function |")
	fmt.Fprintln(&b, "|---|---|")
	for _, c := range lift[:min(n, len(lift))] {
		name, ok := names[c.fn]
		if !ok {
			name = fmt.Sprintf("(function %d)", c.fn)
		}
		fmt.Fprintf(&b, "| %s | %s |\n", kb(int64(c.size)), name)
	}
	return b.String()
}
