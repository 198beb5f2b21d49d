package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// results is everything one run measured.
type results struct {
	env environment

	wasm, emptyGo       wasmSize
	emptyUp, emptyUpGz  int64  // the empty Go program's Worker, same
	upload, uploadGz    int64  // the gateway, wrangler deploy --dry-run
	floorUp, floorUpGz  int64  // the JavaScript floor Worker, same
	coldGo, coldJS      sample // new workerd → first /mcp answer
	firstGo, firstJS    sample // the request that got the first answer
	coldEmpty           sample // the same for the empty Go program
	firstEmpty          sample
	coldCheck           sample // the empty Go program asking Memos once first
	firstCheck          sample
	coldGoText          sample // the gateway's, with workerd's text configuration
	coldEmptyText       sample // the empty Go program's, same
	devGo, devJS        sample // new wrangler dev → first /mcp answer
	devFirstGo          sample
	devFirstJS          sample
	goStart             sample // startupMs of each new isolate
	listBytes, builtinN int
	// listModern is the tools/list payload of a 2026-07-28 client without
	// and with MCP Apps declared (the memo card named in _meta).
	listModern [2]int
	card       wasmSize // the memo card, card.html
	// listTools and builtinTools are how many tools each list holds: the
	// goal is per tool, the gateway serving tools Memos' server lacks.
	listTools, builtinTools int
	list, listFloor         [2]latency // by runtime: dev, alone
	listEmpty               [2]latency
	listQuiet               latency // the gateway without its log line, wrangler dev
	getMemoQuiet            latency
	callWorks               bool
	callProblem             string
	getMemo, proxy          [2]latency
	forward                 latency // the empty Go program forwarding the call, workerd alone
	builtin, rest           latency
	bigBytes                int     // Memos' answer for the big list
	bigList, bigProxy       latency // row 8, workerd alone
	lock, lockSelf          latency // row 10: a write's lock, and the same requests without the object
	mixName                 string
	memWarm, memAfter       instanceMemory
	memLoad                 load
	throughput              load
	baseline                string // the commit of the baseline build, if any
	baselineDir             string // its build folder
	baselineLoad            load   // row 5 on it
	cpu                     wasmCPU
	native                  map[string]nativeBench
	tasks                   []taskCost // row 9
	cpuKinds                []kindCPU  // row 11
	proxyCPU                time.Duration
	forwardCPU              time.Duration // row 11: the Go forwarder's GET
}

// bench holds the parts of a run.
type bench struct {
	root, dir string
	memos     *harness.Memos
	memo      string // name of the memo that tools/call reads
	memoJSON  []byte // Memos' answer for it
	gateway   workerDir
	empty     workerDir // the empty Go program, through the same entry module
	proxy     workerDir // the JavaScript proxy
	quiet     workerDir // the gateway with console.log discarded
	vars      map[string]string
}

func run(ctx context.Context) (*results, error) {
	env, err := startSideBySide(ctx)
	if err != nil {
		return nil, err
	}
	defer env.stop()
	root, dir, compat := env.root, env.dir, env.compat
	b := &bench{root: root, dir: dir, memos: env.memos}
	if b.gateway, err = gatewayWorker(root, dir, compat); err != nil {
		return nil, err
	}
	r := &results{env: describe(root), baseline: os.Getenv("BASELINE"), baselineDir: os.Getenv("BASELINE_BUILD")}
	if (r.baseline == "") != (r.baselineDir == "") {
		return nil, errors.New("BASELINE and BASELINE_BUILD go together: run make bench BASELINE=<commit>")
	}
	if err := b.seed(ctx); err != nil {
		return nil, err
	}

	b.vars = env.gatewayVars()

	floor, err := b.warmRows(ctx, r, compat)
	if err != nil {
		return nil, err
	}
	if err := b.coldStarts(ctx, r, floor, compat); err != nil {
		return nil, err
	}

	if err := b.taskRow(ctx, r, compat); err != nil {
		return nil, err
	}
	if err := b.cpuRow(ctx, r, compat); err != nil {
		return nil, err
	}
	if r.callWorks {
		if err := b.bigListRow(ctx, r, compat); err != nil {
			return nil, err
		}
	}
	if r.lock, r.lockSelf, err = lockCost(ctx, root, dir, compat); err != nil {
		return nil, err
	}

	progress("row 6: Go CPU per request in wasm under Node (%d per kind), then natively (go test -bench)", cpuIterations)
	if r.cpu, err = runWasmCPU(root, filepath.Dir(b.gateway.config), b.memoJSON, cpuIterations); err != nil {
		return nil, err
	}
	if r.native, err = runNativeBench(root); err != nil {
		return nil, err
	}
	return r, nil
}

// seed creates memos through the API, so that reads and lists have data,
// and keeps the first one for tools/call.
func (b *bench) seed(ctx context.Context) error {
	client := &http.Client{Timeout: 30 * time.Second}
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + b.memos.Token}}
	for i := range seedMemos {
		body := `{"content":"Bench memo ` + strconv.Itoa(i) + ` #bench\n\n- [ ] a task\n- [x] a done task","visibility":"PRIVATE"}`
		status, answer, err := post(ctx, client, b.memos.URL+"/api/v1/memos", body, header)
		if err != nil || status != 200 {
			return fmt.Errorf("create memo: %d %v %.200s", status, err, answer)
		}
		if i == 0 {
			b.memo = gjson.GetBytes(answer, "name").String()
		}
	}
	status, answer, err := get(ctx, client, b.memos.URL+"/api/v1/"+b.memo, b.memos.Token)
	if err != nil || status != 200 {
		return fmt.Errorf("read memo %s: %d %v %.200s", b.memo, status, err, answer)
	}
	b.memoJSON = answer
	return nil
}

// seedBigList creates bigListMemos memos of about 1 KB each, four at a time,
// for row 8, and returns the size of Memos' answer listing them in one page.
func (b *bench) seedBigList(ctx context.Context) (int, error) {
	client := keepAlive(4)
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + b.memos.Token}}
	filler := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 17) // 969 bytes
	next := make(chan int)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for i := range next {
				body := `{"content":"List memo ` + strconv.Itoa(i) + ` #list\n\n` + filler + `","visibility":"PRIVATE"}`
				if status, answer, err := post(ctx, client, b.memos.URL+"/api/v1/memos", body, header); err != nil || status != 200 {
					errs <- fmt.Errorf("create memo: %d %v %.200s", status, err, answer)
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for i := 0; i < bigListMemos && err == nil; i++ {
		select {
		case next <- i:
		case err = <-errs:
		}
	}
	close(next)
	for range 4 {
		if e := <-errs; err == nil {
			err = e
		}
	}
	if err != nil {
		return 0, err
	}
	status, answer, err := get(ctx, client, b.memos.URL+"/api/v1/memos?pageSize="+strconv.Itoa(bigListMemos), b.memos.Token)
	if err == nil && status == 200 {
		err = isMemoList(bigListMemos)(answer)
	}
	if err != nil || status != 200 {
		return 0, fmt.Errorf("list %d memos: %d %v", bigListMemos, status, err)
	}
	return len(answer), nil
}

// runtimes are the two ways each Worker runs in rows 3 and 4: under
// `wrangler dev`, as the tests and `make dev` run it, and under workerd
// alone on the deploy bundle, without wrangler's local proxy in front.
const (
	dev = iota
	alone
)

var runtimeName = [...]string{dev: "wrangler dev", alone: "workerd alone"}

// workers are the Workers of rows 3, 4 and 8, under each runtime.
type workers struct {
	gateway, floor, proxy, empty [2]*worker
	quiet                        *worker // under wrangler dev only
	forward                      *worker // the empty Go program forwarding memo_get_memo, workerd alone
}

func (ws *workers) stop() {
	for _, w := range [][2]*worker{ws.gateway, ws.floor, ws.proxy, ws.empty} {
		w[dev].Stop()
		w[alone].Stop()
	}
	ws.quiet.Stop()
	ws.forward.Stop()
}

// warmRows starts the long-running Workers and measures on them: the
// tools/list payloads, row 1 (whose dry runs write the bundles workerd
// runs), rows 3 and 4 under both runtimes, then rows 7 and 5 on the gateway
// under wrangler dev.
func (b *bench) warmRows(ctx context.Context, r *results, compat string) (floor workerDir, err error) {
	token := b.memos.Token
	var ws workers
	defer ws.stop()
	progress("starting the gateway under wrangler dev")
	if ws.gateway[dev], err = b.gateway.dev(b.root, b.vars); err != nil {
		return floor, err
	}
	if _, _, err := ws.gateway[dev].waitReady(ctx, listBody, mcpHeaders(token)); err != nil {
		return floor, err
	}
	gwURL := ws.gateway[dev].URL + "/mcp"
	client := keepAlive(1)
	status, payload, err := post(ctx, client, gwURL, listBody, mcpHeaders(token))
	if err != nil || status != 200 {
		return floor, fmt.Errorf("gateway tools/list: %d %v", status, err)
	}
	r.listBytes = len(payload)
	r.listTools = int(gjson.GetBytes(payload, "result.tools.#").Int())
	status, builtin, err := post(ctx, client, b.memos.URL+"/mcp", listBody, mcpHeaders(token))
	if err != nil || status != 200 || gjson.GetBytes(builtin, "result.tools.#").Int() == 0 {
		return floor, fmt.Errorf("Memos' built-in tools/list: %d %v %.200s", status, err, builtin)
	}
	for i, caps := range []string{`{}`, appsCaps} {
		if status, p, err := post(ctx, client, gwURL, modernListBody(caps), modernHeaders(token)); err == nil && status == 200 {
			r.listModern[i] = len(p)
		}
	}
	r.builtinN = len(builtin)
	r.builtinTools = int(gjson.GetBytes(builtin, "result.tools.#").Int())
	_, answer, err := post(ctx, client, gwURL, getMemoBody(b.memo), mcpHeaders(token))
	if err == nil {
		err = isMemo(b.memo)(answer)
	}
	r.callWorks = err == nil
	if err != nil {
		r.callProblem = err.Error()
		progress("tools/call does not work in this build (%v): row 4 leaves the gateway out, the load mix is tools/list only", err)
	}

	if floor, err = baselineWorker(b.root, b.dir, compat, "floor", map[string][]byte{"payload.bin": payload}); err != nil {
		return floor, err
	}
	proxy, err := baselineWorker(b.root, b.dir, compat, "proxy", nil)
	if err != nil {
		return floor, err
	}
	b.proxy = proxy
	if b.empty, r.emptyGo, err = emptyGoWorker(b.root, b.dir, compat); err != nil {
		return floor, err
	}
	if b.quiet, err = quietWorker(b.root, b.dir, compat); err != nil {
		return floor, err
	}
	progress("row 1: sizes (wasm, empty Go program, wrangler deploy --dry-run)")
	if err := b.sizes(r, floor, proxy); err != nil {
		return floor, err
	}

	progress("starting the baselines under wrangler dev, and all four Workers under workerd alone")
	memosVars := map[string]string{"MEMOS_URL": b.memos.URL}
	emptyVars := map[string]string{"ANSWER_BYTES": strconv.Itoa(len(payload))}
	starts := []struct {
		w    **worker
		dir  workerDir
		vars map[string]string
		body string
	}{
		{&ws.floor[dev], floor, nil, listBody},
		{&ws.proxy[dev], proxy, memosVars, getMemoBody(b.memo)},
		{&ws.empty[dev], b.empty, emptyVars, listBody},
		{&ws.quiet, b.quiet, b.vars, listBody},
		{&ws.gateway[alone], b.gateway, b.vars, listBody},
		{&ws.floor[alone], floor, nil, listBody},
		{&ws.proxy[alone], proxy, memosVars, getMemoBody(b.memo)},
		{&ws.empty[alone], b.empty, emptyVars, listBody},
		{&ws.forward, b.empty, map[string]string{"FORWARD_URL": b.memos.URL}, getMemoBody(b.memo)},
	}
	for i, s := range starts {
		if i < 4 {
			*s.w, err = s.dir.dev(b.root, s.vars)
		} else {
			*s.w, err = s.dir.workerd(b.root, compat, s.vars)
		}
		if err != nil {
			return floor, err
		}
	}
	for _, s := range starts {
		if _, _, err := (*s.w).waitReady(ctx, s.body, mcpHeaders(token)); err != nil {
			return floor, err
		}
	}

	if err := b.latencyRows(ctx, r, &ws, len(payload)); err != nil {
		return floor, err
	}
	// Only the gateway under wrangler dev takes the load rows.
	for _, w := range [][2]*worker{ws.floor, ws.proxy, ws.empty} {
		w[dev].Stop()
		w[alone].Stop()
	}
	ws.gateway[alone].Stop()
	ws.quiet.Stop()
	ws.forward.Stop()
	return floor, b.loadRows(ctx, r, ws.gateway[dev].URL)
}

// latencyRows measures rows 3 and 4 on the Workers in ws.
//
// A baseline that fails stops the bench, naming its failure: a ratio to a
// baseline that did not answer says nothing.
func (b *bench) latencyRows(ctx context.Context, r *results, ws *workers, payloadLen int) error {
	token := b.memos.Token
	progress("row 3: tools/list, gateway, JavaScript floor and empty Go program under both runtimes, interleaved (%d each)", listRounds)
	var calls []*call
	for rt := range runtimeName {
		calls = append(calls,
			mcpCall("gateway tools/list", ws.gateway[rt].URL+"/mcp", token, listBody, isResult),
			mcpCall("floor", ws.floor[rt].URL+"/mcp", token, listBody, hasLength(payloadLen)),
			mcpCall("empty Go", ws.empty[rt].URL+"/mcp", token, listBody, hasLength(payloadLen)))
	}
	calls = append(calls, mcpCall("gateway tools/list, log discarded", ws.quiet.URL+"/mcp", token, listBody, isResult))
	lat := interleave(ctx, listRounds, warmRounds, calls...)
	for rt := range runtimeName {
		r.list[rt], r.listFloor[rt], r.listEmpty[rt] = lat[3*rt], lat[3*rt+1], lat[3*rt+2]
	}
	r.listQuiet = lat[6]
	for rt, name := range runtimeName {
		if err := errors.Join(failed("3", "JavaScript floor, "+name, r.listFloor[rt]), failed("3", "empty Go program, "+name, r.listEmpty[rt])); err != nil {
			return err
		}
	}

	progress("row 4: tools/call memo_get_memo: gateway and JavaScript proxy under both runtimes, Memos' built-in /mcp, REST; interleaved (%d each)", callRounds)
	calls = []*call{
		mcpCall("built-in /mcp", b.memos.URL+"/mcp", token, getMemoBody(b.memo), isMemo(b.memo)),
		{name: "REST", client: keepAlive(1), check: isMemoJSON(b.memo),
			send: func(ctx context.Context, c *http.Client) (int, []byte, error) {
				return get(ctx, c, b.memos.URL+"/api/v1/"+b.memo, token)
			}},
	}
	for rt := range runtimeName {
		calls = append(calls, mcpCall("proxy", ws.proxy[rt].URL+"/mcp", token, getMemoBody(b.memo), isMemoJSON(b.memo)))
		if r.callWorks {
			calls = append(calls, mcpCall("gateway tools/call", ws.gateway[rt].URL+"/mcp", token, getMemoBody(b.memo), isMemo(b.memo)))
		}
	}
	calls = append(calls, mcpCall("Go forwarder", ws.forward.URL+"/mcp", token, getMemoBody(b.memo), isMemoJSON(b.memo)))
	if r.callWorks {
		calls = append(calls, mcpCall("gateway tools/call, log discarded", ws.quiet.URL+"/mcp", token, getMemoBody(b.memo), isMemo(b.memo)))
	}
	lat = interleave(ctx, callRounds, warmRounds, calls...)
	r.builtin, r.rest, lat = lat[0], lat[1], lat[2:]
	for rt := range runtimeName {
		r.proxy[rt], lat = lat[0], lat[1:]
		if r.callWorks {
			r.getMemo[rt], lat = lat[0], lat[1:]
		}
	}
	r.forward, lat = lat[0], lat[1:]
	if r.callWorks {
		r.getMemoQuiet = lat[0]
	}
	for rt, name := range runtimeName {
		if err := failed("4", "JavaScript proxy, "+name, r.proxy[rt]); err != nil {
			return err
		}
	}
	return errors.Join(failed("4", "Memos' built-in /mcp", r.builtin), failed("4", "REST", r.rest), failed("4", "Go forwarder", r.forward))
}

// failed is the error of a baseline of row that failed while measured.
func failed(row, baseline string, l latency) error {
	if l.errors == 0 {
		return nil
	}
	return fmt.Errorf("row %s: the baseline %s failed %d of %d times, first: %v", row, baseline, l.errors, l.errors+len(l.sample), l.firstErr)
}

// bigListRow measures row 8 last among the Worker rows, as its memos would
// slow Memos down in the others: it seeds them, then starts the gateway and
// the JavaScript proxy under workerd alone.
func (b *bench) bigListRow(ctx context.Context, r *results, compat string) (err error) {
	progress("row 8: seeding %d memos of about 1 KB", bigListMemos)
	if r.bigBytes, err = b.seedBigList(ctx); err != nil {
		return err
	}
	gateway, proxy, err := b.gatewayAndProxy(ctx, compat, b.gateway, b.memo)
	if err != nil {
		return err
	}
	defer gateway.Stop()
	defer proxy.Stop()
	token := b.memos.Token
	progress("row 8: tools/call memo_list_memos of %d memos (%s from Memos), gateway and JavaScript proxy under workerd alone, interleaved (%d each)",
		bigListMemos, kb(int64(r.bigBytes)), bigRounds)
	lat := interleave(ctx, bigRounds, 5,
		mcpCall("gateway big list", gateway.URL+"/mcp", token, bigListBody, isMemoList(bigListMemos)),
		mcpCall("proxy big list", proxy.URL+"/mcp", token, bigListBody, isMemoList(bigListMemos)))
	r.bigList, r.bigProxy = lat[0], lat[1]
	return ctx.Err()
}

// gatewayAndProxy starts the gateway of gw and the JavaScript proxy under
// workerd alone and waits until both answer, the proxy with memo.
func (b *bench) gatewayAndProxy(ctx context.Context, compat string, gw workerDir, memo string) (gateway, proxy *worker, err error) {
	if gateway, err = gw.workerd(b.root, compat, b.vars); err != nil {
		return nil, nil, err
	}
	if proxy, err = b.proxy.workerd(b.root, compat, map[string]string{"MEMOS_URL": b.memos.URL}); err == nil {
		header := mcpHeaders(b.memos.Token)
		if _, _, err = gateway.waitReady(ctx, listBody, header); err == nil {
			_, _, err = proxy.waitReady(ctx, getMemoBody(memo), header)
		}
		if err != nil {
			proxy.Stop()
		}
	}
	if err != nil {
		gateway.Stop()
		return nil, nil, err
	}
	return gateway, proxy, nil
}

// loadRows measures rows 7 and 5 on the gateway at base.
func (b *bench) loadRows(ctx context.Context, r *results, base string) (err error) {
	mix := b.loadMix(r, base+"/mcp")

	progress("row 7: memory after warm-up, then after %d more requests (%s, %d clients)", memRequests, r.mixName, memClients)
	hammer(ctx, memClients, memWarmup, 0, mix)
	if r.memWarm, err = healthOf(ctx, base); err != nil {
		return err
	}
	r.memLoad = hammer(ctx, memClients, memRequests, 0, mix)
	if r.memAfter, err = healthOf(ctx, base); err != nil {
		return err
	}
	if r.memAfter.id != r.memWarm.id {
		return fmt.Errorf("the Go instance changed during the memory run (%s → %s): the isolate restarted", r.memWarm.id, r.memAfter.id)
	}
	if served := r.memAfter.requests - r.memWarm.requests; served < int64(r.memLoad.requests) {
		return fmt.Errorf("the Go instance counted %d requests during the memory run, %d were sent", served, r.memLoad.requests)
	}

	progress("row 5: throughput, %d clients for %s (%s)", loadClients, loadDuration, r.mixName)
	r.throughput = hammer(ctx, loadClients, 0, loadDuration, mix)
	if r.baseline == "" {
		return ctx.Err()
	}
	return b.baselineThroughput(ctx, r)
}

// loadMix is the request mix of rows 5 and 7, sent to url.
func (b *bench) loadMix(r *results, url string) []*call {
	token := b.memos.Token
	r.mixName = "tools/list only (tools/call not available)"
	if !r.callWorks {
		return []*call{mcpCall("tools/list", url, token, listBody, isResult)}
	}
	r.mixName = "initialize, tools/list, 2× memo_get_memo, memo_list_memos"
	return []*call{
		mcpCall("initialize", url, token, initializeBody, isResult),
		mcpCall("tools/list", url, token, listBody, isResult),
		mcpCall("memo_get_memo", url, token, getMemoBody(b.memo), isMemo(b.memo)),
		mcpCall("memo_list_memos", url, token, listMemosBody, isResult),
		mcpCall("memo_get_memo", url, token, getMemoBody(b.memo), isMemo(b.memo)),
	}
}

// baselineThroughput measures row 5 again on another build of the gateway
// (BASELINE_BUILD, which `make bench BASELINE=<commit>` makes), under
// wrangler dev with the same settings, right after the gateway's own run.
func (b *bench) baselineThroughput(ctx context.Context, r *results) error {
	files, err := workerFiles(r.baselineDir)
	if err != nil {
		return err
	}
	compat, err := compatibilityDate(b.root)
	if err != nil {
		return err
	}
	dir, err := writeWorker(b.dir, "baseline", "worker.mjs", compat, files, "")
	if err != nil {
		return err
	}
	w, err := dir.dev(b.root, b.vars)
	if err != nil {
		return err
	}
	defer w.Stop()
	if _, _, err := w.waitReady(ctx, listBody, mcpHeaders(b.memos.Token)); err != nil {
		return err
	}
	mix := b.loadMix(r, w.URL+"/mcp")
	progress("row 5: throughput of the baseline build %s, %d clients for %s", r.baseline, loadClients, loadDuration)
	hammer(ctx, memClients, memWarmup, 0, mix)
	r.baselineLoad = hammer(ctx, loadClients, 0, loadDuration, mix)
	return ctx.Err()
}

// sizes measures row 1. The dry runs also write the deploy bundles that
// workerd runs.
func (b *bench) sizes(r *results, floor, proxy workerDir) (err error) {
	// The copy made at the start: build/ may be rebuilt meanwhile.
	if card, err := sizeOf(filepath.Join(filepath.Dir(b.gateway.config), "card.html")); err == nil {
		r.card = card // an older build has none
	}
	if r.wasm, err = sizeOf(filepath.Join(filepath.Dir(b.gateway.config), "app.wasm")); err != nil {
		return err
	}
	if r.emptyUp, r.emptyUpGz, err = dryRun(b.root, b.empty); err != nil {
		return err
	}
	if r.upload, r.uploadGz, err = dryRun(b.root, b.gateway); err != nil {
		return err
	}
	if r.floorUp, r.floorUpGz, err = dryRun(b.root, floor); err != nil {
		return err
	}
	_, _, err = dryRun(b.root, proxy)
	return err
}

// coldStarts starts the gateway and the floor Worker afresh, in turns, with
// nothing else running but Memos, and times each to its first /mcp answer:
// first workerd alone on the deploy bundles (a new isolate, nothing else),
// with a binary configuration and then with a text one (see configFormat),
// then whole `wrangler dev` sessions (what a developer waits for).
func (b *bench) coldStarts(ctx context.Context, r *results, floor workerDir, compat string) error {
	progress("row 2: cold starts, %d new workerd (binary configuration), %d (text) and %d new wrangler dev per Worker, in turns",
		workerdStarts, workerdStarts, devStarts)
	emptyVars := map[string]string{"ANSWER_BYTES": "64"}
	checkVars := map[string]string{"ANSWER_BYTES": "64", "CHECK_URL": b.memos.URL}
	start := func(t coldTarget) (*worker, error) { return t.w.workerd(b.root, compat, t.vars) }
	err := b.coldRounds(ctx, r, workerdStarts, start,
		coldTarget{b.gateway, b.vars, &r.coldGo, &r.firstGo},
		coldTarget{floor, nil, &r.coldJS, &r.firstJS},
		coldTarget{b.empty, emptyVars, &r.coldEmpty, &r.firstEmpty},
		coldTarget{b.empty, checkVars, &r.coldCheck, &r.firstCheck})
	if err != nil {
		return err
	}
	text := func(t coldTarget) (*worker, error) { return t.w.workerdWith(b.root, compat, t.vars, textConfig) }
	var firstText sample // not reported
	err = b.coldRounds(ctx, r, workerdStarts, text,
		coldTarget{b.gateway, b.vars, &r.coldGoText, &firstText},
		coldTarget{b.empty, emptyVars, &r.coldEmptyText, &firstText})
	if err != nil {
		return err
	}
	dev := func(t coldTarget) (*worker, error) { return t.w.dev(b.root, t.vars) }
	return b.coldRounds(ctx, r, devStarts, dev,
		coldTarget{b.gateway, b.vars, &r.devGo, &r.devFirstGo},
		coldTarget{floor, nil, &r.devJS, &r.devFirstJS})
}

// coldTarget is a Worker to cold-start and where its figures go.
type coldTarget struct {
	w            workerDir
	vars         map[string]string
	total, first *sample
}

// coldRounds starts each target rounds times, in turns, the first one of a
// round rotating; targets[0] is the gateway, whose /healthz also tells the Go
// instance's own start.
func (b *bench) coldRounds(ctx context.Context, r *results, rounds int, start func(coldTarget) (*worker, error), targets ...coldTarget) error {
	header := mcpHeaders(b.memos.Token)
	gateway := targets[0]
	for i := range rounds {
		order := append(targets[i%len(targets):len(targets):len(targets)], targets[:i%len(targets)]...)
		for _, t := range order {
			w, err := start(t)
			if err != nil {
				return err
			}
			total, first, err := w.waitReady(ctx, listBody, header)
			if err == nil && t.w == gateway.w {
				var h instanceMemory
				if h, err = healthOf(ctx, w.URL); err == nil {
					if h.startupMs <= 0 {
						err = errors.New("the gateway's /healthz reports no startupMs")
					}
					r.goStart = append(r.goStart, time.Duration(h.startupMs*float64(time.Millisecond)))
				}
			}
			w.Stop()
			if err != nil {
				return err
			}
			*t.total, *t.first = append(*t.total, total), append(*t.first, first)
		}
	}
	return nil
}
