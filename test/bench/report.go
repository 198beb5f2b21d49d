package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// environment says where and with what a run was measured.
type environment struct {
	date, machine                 string
	goVersion, node, wrangler, wd string
	memos                         string
}

func describe(root string) environment {
	e := environment{
		date:      time.Now().UTC().Format("2006-01-02"),
		machine:   fmt.Sprintf("%s, %d cores, %s/%s", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH),
		goVersion: runtime.Version(),
		memos:     strings.TrimPrefix(filepath.Base(os.Getenv("MEMOS_BIN")), "memos-"),
	}
	if b, err := os.ReadFile(filepath.Join(root, "node_modules", "wrangler", "package.json")); err == nil {
		e.wrangler = gjson.GetBytes(b, "version").String()
	}
	bin := filepath.Join(root, "node_modules", ".bin")
	if out, err := exec.Command(filepath.Join(bin, "node"), "--version").Output(); err == nil {
		e.node = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command(filepath.Join(bin, "workerd"), "--version").Output(); err == nil {
		e.wd = strings.TrimSpace(string(out))
	}
	return e
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// goal is one of the project's performance goals with its measured figure.
type goal struct {
	what, figure string
	met          bool
	measured     bool // false when the figure could not be measured in this build
}

// perTool is a list's bytes per tool.
func (r *results) perTool(bytes, tools int) float64 { return float64(bytes) / float64(max(tools, 1)) }

func (r *results) goals() []goal {
	p50 := func(s latency) float64 { return float64(s.p50()) }
	within := func(what string, limit float64, g, base float64) goal {
		return goal{what: what, measured: true, met: g <= limit*base,
			figure: fmt.Sprintf("%s vs %s = %s", ms(time.Duration(g)), ms(time.Duration(base)), ratio(g, base))}
	}
	gs := []goal{
		{what: "wasm ≤ 1.1 MB gzip -9 (app.wasm), and the upload as wrangler counts it", measured: true,
			met:    r.wasm.gzip <= 1.1e6 && r.uploadGz <= 1.1e6,
			figure: fmt.Sprintf("%s / %s; the upload as wrangler counts it: %s gzip", mb(r.wasm.raw), mb(r.wasm.gzip), mb(r.uploadGz))},
		{what: "tools/list payload per tool ≤ 50% of Memos' built-in", measured: r.listTools > 0 && r.builtinTools > 0,
			met: r.listTools > 0 && r.builtinTools > 0 && r.perTool(r.listBytes, r.listTools) <= 0.5*r.perTool(r.builtinN, r.builtinTools),
			figure: fmt.Sprintf("%s for %d tools vs %s for %d = %.1f%% per tool", kb(int64(r.listBytes)), r.listTools, kb(int64(r.builtinN)), r.builtinTools,
				100*r.perTool(r.listBytes, r.listTools)/r.perTool(r.builtinN, r.builtinTools))},
		{what: "Go instance start ≤ 50 ms", measured: true, met: r.goStart.p50() <= 50*time.Millisecond,
			figure: fmt.Sprintf("median %s over %d new isolates", ms(r.goStart.p50()), len(r.goStart))},
		within("cold start to first answer ≤ 1.3× the empty Go program's, workerd alone (binary configuration)", 1.3, float64(r.coldGo.p50()), float64(r.coldEmpty.p50())),
		within("cold start to first answer below the empty Go program's that asks Memos once before it answers, workerd alone (binary configuration)", 1, float64(r.coldGo.p50()), float64(r.coldCheck.p50())),
	}
	// The empty Go program's own ratio to the floor is the bridge's and
	// the runtime's; the gateway's work may add 0.1 to it.
	emptyRatio := p50(r.listEmpty[alone]) / p50(r.listFloor[alone])
	gs = append(gs, within(fmt.Sprintf("tools/list p50 ≤ the empty Go program's ratio to the JavaScript floor's + 0.1 (%.2f×), workerd alone", emptyRatio+0.1),
		emptyRatio+0.1, p50(r.list[alone]), p50(r.listFloor[alone])))
	call := goal{what: "tools/call p50 ≤ 1.15× the JavaScript proxy's, workerd alone", figure: "not measured: " + r.callProblem}
	if r.callWorks {
		call = within(call.what, 1.15, p50(r.getMemo[alone]), p50(r.proxy[alone]))
		// What any Go program pays through the bridge, for the note on
		// what the goal would need.
		call.figure += "; a Go program that only forwards the call: " + ratio(p50(r.forward), p50(r.proxy[alone]))
	}
	gs = append(gs, call)
	big := goal{what: fmt.Sprintf("tools/call memo_list_memos of %d memos p50 ≤ 1.15× the JavaScript proxy's, workerd alone", bigListMemos),
		figure: "not measured: " + r.callProblem}
	if r.callWorks {
		big = within(big.what, 1.15, p50(r.bigList), p50(r.bigProxy))
	}
	init, native := r.cpu.Methods["initialize"].InGoUs, r.native["initialize"].nsPerOp/1e3
	growth := float64(r.memAfter.wasmBytes)/float64(r.memWarm.wasmBytes) - 1
	gs = append(gs, r.cpuGoals()...)
	return append(gs, big, r.taskGoal(),
		goal{what: "Go CPU per initialize in wasm (Node, fetch stubbed) ≤ 10× native", measured: native > 0, met: init <= 10*native,
			figure: fmt.Sprintf("%.1f µs vs %.1f µs = %s", init, native, ratio(init, native))},
		goal{what: "zero errors at 32 concurrent clients", measured: true, met: r.throughput.errors == 0,
			figure: fmt.Sprintf("%d errors in %d requests (%s)", r.throughput.errors, r.throughput.requests, r.mixName)},
		r.throughputGoal(),
		goal{what: "memory after 20,000 requests within +10% of after warm-up", measured: r.memWarm.reportedOK,
			met: r.memWarm.reportedOK && growth <= 0.10,
			figure: fmt.Sprintf("wasm memory %s → %s (%+.1f%%); Go HeapSys %s → %s", mb(r.memWarm.wasmBytes), mb(r.memAfter.wasmBytes), 100*growth,
				mb(r.memWarm.heapSys), mb(r.memAfter.heapSys))},
	)
}

// throughputGoal compares row 5 with the baseline build's, when there is one.
func (r *results) throughputGoal() goal {
	g := goal{what: "throughput at 32 clients ≥ the baseline build's in the same run", figure: "not measured: run make bench BASELINE=<commit>"}
	if r.baseline != "" {
		g.measured, g.met = true, r.throughput.perSecond() >= r.baselineLoad.perSecond()
		g.figure = fmt.Sprintf("%.0f req/s vs %.0f req/s (commit %s)", r.throughput.perSecond(), r.baselineLoad.perSecond(), r.baseline)
	}
	return g
}

func (r *results) rows() [][]string {
	t := [][]string{{"#", "measure", "memos-mcp-edge", "baseline", "ratio"}}
	add := func(cells ...string) { t = append(t, cells) }
	p50 := func(s sample) float64 { return float64(s.p50()) }

	add("1", "wasm size, raw / gzip -9", mb(r.wasm.raw)+" / "+mb(r.wasm.gzip),
		"empty Go program: "+mb(r.emptyGo.raw)+" / "+mb(r.emptyGo.gzip), ratio(float64(r.wasm.gzip), float64(r.emptyGo.gzip))+" (gzip)")
	add("1", "… upload of the empty Go program's Worker, total / gzip", "", mb(r.emptyUp)+" / "+mb(r.emptyUpGz), "")
	add("1", "memo card (card.html: a module of the upload, imported when first read), raw / gzip -9", kb(r.card.raw)+" / "+kb(r.card.gzip), "", "")
	add("1", "upload, `wrangler deploy --dry-run`, total / gzip", mb(r.upload)+" / "+mb(r.uploadGz),
		"JavaScript Worker: "+kb(r.floorUp)+" / "+kb(r.floorUpGz), "")
	add("2", "cold start: new workerd with the deploy bundle (binary configuration) → first /mcp answer", r.coldGo.String(),
		"JavaScript Worker: "+r.coldJS.String(), ratio(p50(r.coldGo), p50(r.coldJS)))
	add("2", "… of which: first accepted request → its answer", r.firstGo.String(), "JavaScript Worker: "+r.firstJS.String(), ratio(p50(r.firstGo), p50(r.firstJS)))
	add("2", "cold start, same, against the empty Go program", r.coldGo.String(), "empty Go program: "+r.coldEmpty.String(), ratio(p50(r.coldGo), p50(r.coldEmpty)))
	add("2", "… of which: first accepted request → its answer", r.firstGo.String(), "empty Go program: "+r.firstEmpty.String(), ratio(p50(r.firstGo), p50(r.firstEmpty)))
	add("2", "cold start, same, against the empty Go program asking Memos once (`GET /api/v1/auth/me`) before it answers", r.coldGo.String(),
		"empty Go program, one upstream request: "+r.coldCheck.String(), ratio(p50(r.coldGo), p50(r.coldCheck)))
	add("2", "… of which: first accepted request → its answer", r.firstGo.String(), "empty Go program, one upstream request: "+r.firstCheck.String(), ratio(p50(r.firstGo), p50(r.firstCheck)))
	add("2", "cold start, same, workerd's text configuration (modules embedded), against the empty Go program", r.coldGoText.String(),
		"empty Go program: "+r.coldEmptyText.String(), ratio(p50(r.coldGoText), p50(r.coldEmptyText)))
	add("2", "cold start: new `wrangler dev` → first /mcp answer", r.devGo.String(),
		"JavaScript Worker: "+r.devJS.String(), ratio(p50(r.devGo), p50(r.devJS)))
	add("2", "Go instance start (instantiate + init until ready), in the entry module", r.goStart.String(),
		fmt.Sprintf("same wasm under Node, one start: %.1f ms (+ %.1f ms compile)", r.cpu.StartMs, r.cpu.CompileMs), "")
	add("3", fmt.Sprintf("tools/list payload (%d tools)", r.listTools), kb(int64(r.listBytes)), fmt.Sprintf("Memos' built-in /mcp: %s (%d tools)", kb(int64(r.builtinN)), r.builtinTools),
		ratio(r.perTool(r.listBytes, r.listTools), r.perTool(r.builtinN, r.builtinTools))+" per tool")
	add("3", "tools/list payload, 2026-07-28: without / with MCP Apps declared (the memo card named)", kb(int64(r.listModern[0]))+" / "+kb(int64(r.listModern[1])),
		"", ratio(float64(r.listModern[1]), float64(r.listModern[0])))
	for rt, name := range runtimeName {
		add("3", "tools/list latency, "+name, r.list[rt].String(), "JavaScript Worker, same bytes: "+r.listFloor[rt].String(),
			ratio(p50(r.list[rt].sample), p50(r.listFloor[rt].sample)))
		add("3", "… against the empty Go program, same bytes, "+name, "", r.listEmpty[rt].String(),
			ratio(p50(r.list[rt].sample), p50(r.listEmpty[rt].sample)))
		if rt == dev {
			add("3", "… the gateway with its log line discarded (console.log a no-op), wrangler dev", r.listQuiet.String(),
				"JavaScript Worker, same bytes: "+r.listFloor[dev].String(), ratio(p50(r.listQuiet.sample), p50(r.listFloor[dev].sample)))
		}
	}
	for rt, name := range runtimeName {
		gw, rat := "not measured: "+r.callProblem, ""
		if r.callWorks {
			gw, rat = r.getMemo[rt].String(), ratio(p50(r.getMemo[rt].sample), p50(r.proxy[rt].sample))
		}
		add("4", "tools/call memo_get_memo latency, "+name, gw, "JavaScript proxy Worker: "+r.proxy[rt].String(), rat)
		if rt == alone && r.callWorks {
			add("4", "… against a Go program that only forwards the call, through the same entry module and bridge (the empty Go program, FORWARD_URL), workerd alone", "",
				r.forward.String(), ratio(p50(r.getMemo[alone].sample), p50(r.forward.sample)))
		}
		if rt == dev && r.callWorks {
			add("4", "… the gateway with its log line discarded, wrangler dev", r.getMemoQuiet.String(),
				"JavaScript proxy Worker: "+r.proxy[dev].String(), ratio(p50(r.getMemoQuiet.sample), p50(r.proxy[dev].sample)))
		}
	}
	vs := func(l latency) string {
		if !r.callWorks {
			return ""
		}
		return ratio(p50(r.getMemo[dev].sample), p50(l.sample))
	}
	add("4", "… Memos' built-in /mcp, same call (not gated; ratio to wrangler dev)", "", r.builtin.String(), vs(r.builtin))
	add("4", "… REST GET /api/v1/memos/{id} (not gated; ratio to wrangler dev)", "", r.rest.String(), vs(r.rest))
	th, base, vsBase := r.throughput, "", ""
	if r.baseline != "" {
		bl := r.baselineLoad
		base = fmt.Sprintf("commit %s: %.0f req/s, %s, %d errors", r.baseline, bl.perSecond(), bl.latency.withTail(), bl.errors)
		vsBase = ratio(th.perSecond(), bl.perSecond())
	}
	add("5", fmt.Sprintf("throughput, %d clients × %s (%s)", th.clients, loadDuration, r.mixName),
		fmt.Sprintf("%.0f req/s, %s, %d errors", th.perSecond(), th.latency.withTail(), th.errors), base, vsBase)
	for _, m := range cpuMethods {
		w, n := r.cpu.Methods[m], r.native[m]
		note := ""
		if w.IsError {
			note = " (tool error path)"
		}
		add("6", "Go CPU per "+strings.ReplaceAll(m, "_", "/")+note+", wasm under Node, fetch stubbed",
			fmt.Sprintf("%.1f µs in Go; process %.0f µs CPU, %.0f µs wall", w.InGoUs, w.CPUUs, w.WallUs),
			fmt.Sprintf("native: %.1f µs, %.0f B, %.0f allocs per op", n.nsPerOp/1e3, n.bytesPerOp, n.allocsPerOp),
			ratio(w.InGoUs*1e3, n.nsPerOp))
	}
	if r.callWorks {
		add("8", fmt.Sprintf("tools/call memo_list_memos, %d memos (%s from Memos), workerd alone", bigListMemos, kb(int64(r.bigBytes))),
			r.bigList.String(), "JavaScript proxy Worker: "+r.bigProxy.String(), ratio(p50(r.bigList.sample), p50(r.bigProxy.sample)))
	}
	growth := func(a, b int64) string { return fmt.Sprintf("%+.1f%%", 100*(float64(b)/float64(a)-1)) }
	add("7", fmt.Sprintf("wasm memory, after warm-up → after %d requests", r.memLoad.requests),
		mb(r.memWarm.wasmBytes)+" → "+mb(r.memAfter.wasmBytes), "", growth(r.memWarm.wasmBytes, r.memAfter.wasmBytes))
	add("7", "Go heap allocated, garbage included (HeapAlloc), same points", mb(r.memWarm.heapAlloc)+" → "+mb(r.memAfter.heapAlloc),
		fmt.Sprintf("%d GC cycles between", r.memAfter.gcCycles-r.memWarm.gcCycles), growth(r.memWarm.heapAlloc, r.memAfter.heapAlloc))
	add("7", "Go heap obtained from the runtime (HeapSys), same points", mb(r.memWarm.heapSys)+" → "+mb(r.memAfter.heapSys),
		"", growth(r.memWarm.heapSys, r.memAfter.heapSys))
	add("10", "memo lock per write: acquire + release storing a note, its Durable Object in SQLite on disk, workerd alone", r.lock.String(),
		"the same two requests, answered by the Worker in front of it: "+r.lockSelf.String(), ratio(p50(r.lock.sample), p50(r.lockSelf.sample)))
	if r.callWorks {
		add("10", "… against tools/call memo_get_memo (one Memos request), workerd alone", "", r.getMemo[alone].String(),
			ratio(p50(r.lock.sample), p50(r.getMemo[alone].sample)))
	}
	r.cpuRows(add)
	return t
}

func (r *results) print(w io.Writer) {
	e := r.env
	fmt.Fprintf(w, "\nmake bench, %s: %s; Go %s, Node %s, wrangler %s (%s), Memos %s; all on loopback.\n",
		e.date, e.machine, e.goVersion, e.node, e.wrangler, e.wd, e.memos)
	fmt.Fprintln(w, "Latencies: median (p99, sample size) over keep-alive connections, each row interleaved with its baseline.")
	fmt.Fprintln(w)
	writeTable(w, r.rows())
	fmt.Fprintln(w)
	gt := [][]string{{"goal", "measured", "met"}}
	for _, g := range r.goals() {
		met := "missed"
		switch {
		case !g.measured:
			met = "not measured"
		case g.met:
			met = "met"
		}
		gt = append(gt, []string{g.what, g.figure, met})
	}
	writeTable(w, gt)
	fmt.Fprintln(w, "\nWhat a task costs the model (row 9): one find call, then memo_get_memo on each hit (memo_list_memo_comments where the answer")
	fmt.Fprintln(w, "is in a comment) until every fact has been seen;")
	fmt.Fprintf(w, "bytes are whole answers as sent. A notebook of %d memos; the built-in's find call is its best single filtered memo_list_memos.\n\n", notebookMemos)
	writeTable(w, r.taskRows())
	if r.memLoad.errors > 0 || r.throughput.errors > 0 {
		fmt.Fprintf(w, "\nfirst load error: %v\n", firstNonNil(r.throughput.firstErr, r.memLoad.firstErr))
	}
	for _, l := range []latency{r.list[0], r.list[1], r.listFloor[0], r.listFloor[1], r.listEmpty[0], r.listEmpty[1], r.listQuiet, r.getMemoQuiet, r.getMemo[0], r.getMemo[1],
		r.proxy[0], r.proxy[1], r.forward, r.bigList, r.bigProxy, r.builtin, r.rest} {
		if l.firstErr != nil {
			fmt.Fprintf(w, "latency error: %v\n", l.firstErr)
		}
	}
}

func firstNonNil(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// writeTable prints a Markdown table with padded columns.
func writeTable(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(row []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range row {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, n := range width {
		sep[i] = strings.Repeat("-", n)
	}
	line(sep)
	for _, row := range rows[1:] {
		line(row)
	}
}
