package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/notebook"
)

// Row 11, the CPU a request costs: workerd's CPU time per request of each
// kind the gateway serves, under workerd alone, on row 9's notebook, beside
// the JavaScript proxy's for one GET of a memo in the same run. The Workers
// Free plan allows freePlanCPU per request.

const (
	cpuRounds   = 300 // requests measured per kind
	freePlanCPU = 10 * time.Millisecond
	// cpuGoal is the most CPU a request kind may cost, in GETs of the
	// JavaScript proxy.
	cpuGoal = 2.5
)

// kindCPU is what one request kind cost.
type kindCPU struct {
	name string
	cpu  time.Duration // workerd's, all threads, per request
	// For a kind whose reads are heavy: what the JavaScript reader took
	// for the same requests to Memos (cpufloor.go), measured right after
	// the kind.
	reads  kindReads
	reader time.Duration
}

// cpuKind is a request kind of row 11 and its JSON-RPC body.
type cpuKind struct {
	name, body string
}

// cpuKinds are the requests of row 11: the methods a client sends most, and
// the tools in the shapes the notebook's questions and a model's work take.
// memo is a memo of the notebook's owner that the reads and edits use.
func cpuKinds(memo string) []cpuKind {
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	id := memo[len("memos/"):]
	return []cpuKind{
		{"initialize", initializeBody},
		{"tools/list", listBody},
		{"prompts/list", `{"jsonrpc":"2.0","id":7,"method":"prompts/list"}`},
		{"resources/read of a memo", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"memo://memos/` + id + `"}}`},
		{"memo_get_memo", call("memo_get_memo", `{"memo":"`+memo+`"}`)},
		{"memo_list_memos, 10 memos", call("memo_list_memos", `{"pageSize":10}`)},
		{"memo_search, words", call("memo_search", `{"text":"boiler pressure"}`)},
		{"memo_search, on_this_day", call("memo_search", `{"when":"on_this_day","timezone":"Europe/Berlin"}`)},
		{"memo_search, 50 hits", call("memo_search", `{"pageSize":50}`)},
		{"tag_list", call("tag_list", `{}`)},
		{"search (ChatGPT)", call("search", `{"query":"boiler"}`)},
		{"fetch (ChatGPT)", call("fetch", `{"id":"`+id+`"}`)},
		{"auth_get_current_user", call("auth_get_current_user", `{}`)},
		{"memo_create_memo", call("memo_create_memo", `{"body":{"content":"a memo of the CPU row #benchcpu","visibility":"PRIVATE"}}`)},
		{"memo_edit, append", call("memo_edit", `{"memo":"`+memo+`","append":"a line of the CPU row"}`)},
	}
}

// cpuRow measures row 11 on the notebook that row 9 seeded: the gateway
// and the JavaScript proxy under workerd alone, the proxy's GET before and
// after the gateway's kinds (their mean is the baseline). A kind or a
// baseline that fails stops the bench, naming its answer.
func (b *bench) cpuRow(ctx context.Context, r *results, compat string) error {
	memo, err := b.cpuMemo(ctx)
	if err != nil {
		return err
	}
	kinds := cpuKinds(memo)
	progress("row 11: recording the requests to Memos of one call of each of %d kinds", len(kinds))
	reads, err := b.recordReads(ctx, compat, kinds)
	if err != nil {
		return err
	}
	readerDir, err := baselineWorker(b.root, b.dir, compat, "reader", nil)
	if err != nil {
		return err
	}
	if _, _, err := dryRun(b.root, readerDir); err != nil {
		return err
	}
	reader, err := readerDir.workerd(b.root, compat, map[string]string{"MEMOS_URL": b.memos.URL})
	if err != nil {
		return err
	}
	defer reader.Stop()
	// Its memo locks in SQLite on disk, as production keeps them: a write
	// takes one (row 10 measures it apart). No other workerd of this
	// folder runs meanwhile.
	wd := b.gateway
	wd.onDisk = true
	gateway, proxy, err := b.gatewayAndProxy(ctx, compat, wd, memo)
	if err != nil {
		return err
	}
	defer gateway.Stop()
	defer proxy.Stop()
	// The Go forwarder's GET beside the proxy's: what any Go program pays
	// through the bridge for one.
	forwarder, err := startForwarder(b.root, b.dir, compat, &b.empty, b.memos.URL)
	if err != nil {
		return err
	}
	defer forwarder.Stop()
	token := b.memos.Token
	get := getMemoBody(memo)
	if _, _, err := forwarder.waitReady(ctx, get, mcpHeaders(token)); err != nil {
		return err
	}
	progress("row 11: workerd's CPU per request, %d of each of %d kinds on the notebook, and the JavaScript proxy's GET before and after", cpuRounds, len(kinds))
	// alone measures the CPU of c's requests to w with no other target in
	// turns: a workerd that idles while another serves spends more per
	// request (measured: the proxy's GET 27% more in turns with the Go
	// forwarder than alone).
	alone := func(w *worker, c *call) (time.Duration, error) {
		lat, cpu, err := measureCPU(ctx, cpuRounds, []*worker{w}, []*call{c})
		if err == nil && lat[0].errors > 0 {
			err = fmt.Errorf("row 11: %s failed %d times: %v", c.name, lat[0].errors, lat[0].firstErr)
		}
		if err != nil {
			return 0, err
		}
		return cpu[0], nil
	}
	proxyGet := func() (proxied, forwarded time.Duration, err error) {
		if proxied, err = alone(proxy, mcpCall("the JavaScript proxy's GET", proxy.URL+"/mcp", token, get, isMemoJSON(memo))); err != nil {
			return 0, 0, err
		}
		forwarded, err = alone(forwarder, mcpCall("the Go forwarder's GET", forwarder.URL+"/mcp", token, get, isMemoJSON(memo)))
		return proxied, forwarded, err
	}
	before, forwardBefore, err := proxyGet()
	if err != nil {
		return err
	}
	r.cpuKinds = r.cpuKinds[:0]
	for _, k := range kinds {
		c := kindCPU{name: k.name}
		if c.cpu, err = alone(gateway, mcpCall(k.name, gateway.URL+"/mcp", token, k.body, isResult)); err != nil {
			return err
		}
		if kr := reads[k.name]; kr.heavy() {
			c.reads = kr
			if c.reader, err = alone(reader, mcpCall(k.name+", reader", reader.URL, token, kr.body(), readAll(kr))); err != nil {
				return err
			}
		}
		r.cpuKinds = append(r.cpuKinds, c)
	}
	after, forwardAfter, err := proxyGet()
	if err != nil {
		return err
	}
	r.proxyCPU, r.forwardCPU = (before+after)/2, (forwardBefore+forwardAfter)/2
	return nil
}

// cpuMemo creates the memo row 11 reads and edits: a memo of the notebook's
// kind, with a few lines and a task.
func (b *bench) cpuMemo(ctx context.Context) (string, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + b.memos.Token}}
	body := `{"content":"The boiler's pressure read 1.4 bar this morning #home/boiler\n\nService is due in March.\n\n- [ ] call the plumber","visibility":"PRIVATE"}`
	status, answer, err := post(ctx, client, b.memos.URL+"/api/v1/memos", body, header)
	if err != nil || status != 200 {
		return "", fmt.Errorf("row 11: create its memo: %d %v %.200s", status, err, answer)
	}
	return gjson.GetBytes(answer, "name").String(), nil
}

// cpuRows is row 11 of the table.
func (r *results) cpuRows(add func(cells ...string)) {
	add("11", "CPU per request, workerd alone: a Go program that only forwards one GET, through the same entry module and bridge (the empty Go program, FORWARD_URL)", "",
		"Go forwarder: "+us(r.forwardCPU)+"; JavaScript proxy: "+us(r.proxyCPU), ratio(float64(r.forwardCPU), float64(r.proxyCPU))+" (forwarder ÷ proxy)")
	for _, k := range r.cpuKinds {
		free := "within the Free plan's " + ms(freePlanCPU)
		if k.cpu > freePlanCPU {
			free = "over the Free plan's " + ms(freePlanCPU)
		}
		add("11", "CPU per request, workerd alone, notebook of "+strconv.Itoa(notebookMemos)+" memos: "+k.name+" ("+free+")", us(k.cpu),
			"JavaScript proxy, one GET: "+us(r.proxyCPU), ratio(float64(k.cpu), float64(r.proxyCPU)))
		if k.reader > 0 {
			add("11", "… against a JavaScript Worker sending its "+strconv.Itoa(len(k.reads))+" requests to Memos ("+kb(k.reads.size())+") and parsing the answers", "",
				"JavaScript reader: "+us(k.reader), ratio(float64(k.cpu), float64(k.reader)))
		}
	}
}

// readerFigure is what the heaviest kind's figure adds: its ratio to the
// JavaScript reader of the same requests, where it has one.
func (k kindCPU) readerFigure() string {
	if k.reader == 0 {
		return ""
	}
	return fmt.Sprintf("; against a JavaScript Worker reading the same %d answers of Memos (%s): %s", len(k.reads), kb(k.reads.size()), ratio(float64(k.cpu), float64(k.reader)))
}

// cpuGoals are row 11's goals: every kind within cpuGoal GETs of the
// proxy, and within the Free plan.
func (r *results) cpuGoals() []goal {
	if len(r.cpuKinds) == 0 {
		return []goal{{what: "CPU per request", figure: "not measured"}}
	}
	heaviest := r.cpuKinds[0]
	for _, k := range r.cpuKinds {
		if k.cpu > heaviest.cpu {
			heaviest = k
		}
	}
	figure := fmt.Sprintf("heaviest %s: %s vs %s = %s", heaviest.name, us(heaviest.cpu), us(r.proxyCPU), ratio(float64(heaviest.cpu), float64(r.proxyCPU))) + heaviest.readerFigure() +
		"; a Go program that only forwards one GET: " + ratio(float64(r.forwardCPU), float64(r.proxyCPU))
	return []goal{
		{what: fmt.Sprintf("every request kind's CPU ≤ %.1f× the JavaScript proxy's per GET, workerd alone", cpuGoal), measured: true,
			met: float64(heaviest.cpu) <= cpuGoal*float64(r.proxyCPU), figure: figure},
		{what: "every request kind's CPU within the Workers Free plan's " + ms(freePlanCPU) + ", workerd alone", measured: true,
			met: heaviest.cpu <= freePlanCPU, figure: fmt.Sprintf("heaviest %s: %s", heaviest.name, us(heaviest.cpu))},
	}
}

// cpuOnly is `go run ./test/bench -cpu`: row 11 alone, on a Memos of its
// own with the notebook seeded, for the gateway of build/; with builds
// named, cpuCompare.
func cpuOnly(ctx context.Context, builds []string, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	if len(builds) > 0 {
		return cpuCompare(ctx, env, builds, w)
	}
	b := &bench{root: env.root, dir: env.dir, memos: env.memos, vars: env.gatewayVars()}
	if b.gateway, err = gatewayWorker(b.root, b.dir, env.compat); err != nil {
		return err
	}
	if b.proxy, err = baselineWorker(b.root, b.dir, env.compat, "proxy", nil); err != nil {
		return err
	}
	for _, wd := range []workerDir{b.gateway, b.proxy} {
		if _, _, err := dryRun(b.root, wd); err != nil {
			return err
		}
	}
	progress("seeding a notebook of %d memos", notebookMemos)
	if err := notebook.Seed(ctx, b.memos.URL, b.memos.Token); err != nil {
		return err
	}
	r := &results{}
	if err := b.cpuRow(ctx, r, env.compat); err != nil {
		return err
	}
	fmt.Fprintf(w, "workerd's CPU per request (all threads), %d requests of each kind after %d to warm up\n\n", cpuRounds, warmRounds)
	fmt.Fprintln(w, "| # | kind | gateway | baseline | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	r.cpuRows(func(cells ...string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cells[0], cells[1], cells[2], cells[3], cells[4])
	})
	for _, g := range r.cpuGoals() {
		state := "missed"
		if g.met {
			state = "met"
		}
		fmt.Fprintf(w, "\n%s: %s, %s", g.what, g.figure, state)
	}
	fmt.Fprintln(w)
	return nil
}

// cpuCompare is `go run ./test/bench -cpu DIR…`: row 11's kinds on each
// build named (a folder make build wrote), in turns request by request,
// each build under a workerd of its own: the way to tell what a change
// does to a kind's CPU on a shared machine.
func cpuCompare(ctx context.Context, env *sideBySide, builds []string, w io.Writer) error {
	progress("seeding a notebook of %d memos", notebookMemos)
	if err := notebook.Seed(ctx, env.memos.URL, env.memos.Token); err != nil {
		return err
	}
	b := &bench{root: env.root, dir: env.dir, memos: env.memos, vars: env.gatewayVars()}
	token := env.memos.Token
	var targets []*worker
	var kinds [][]cpuKind // each build's: a memo of its own to edit
	defer func() {
		for _, t := range targets {
			t.Stop()
		}
	}()
	for i, build := range builds {
		wd, err := env.prepare(i, build)
		if err != nil {
			return err
		}
		wd.onDisk = true // each in its own folder
		t, err := wd.workerd(env.root, env.compat, b.vars)
		if err != nil {
			return err
		}
		targets = append(targets, t)
		if _, _, err := t.waitReady(ctx, listBody, mcpHeaders(token)); err != nil {
			return err
		}
		memo, err := b.cpuMemo(ctx)
		if err != nil {
			return err
		}
		kinds = append(kinds, cpuKinds(memo))
	}
	fmt.Fprintf(w, "workerd's CPU per request (all threads), %d requests of each kind on each build after %d to warm up, in turns\n\n", cpuRounds, warmRounds)
	fmt.Fprintf(w, "| kind | %s | ratio to the first |\n|---|%s---|\n", strings.Join(builds, " | "), strings.Repeat("---|", len(builds)))
	for j, k := range kinds[0] {
		calls := make([]*call, len(targets))
		for i, t := range targets {
			calls[i] = mcpCall(k.name, t.URL+"/mcp", token, kinds[i][j].body, isResult)
		}
		lat, cpu, err := measureCPU(ctx, cpuRounds, targets, calls)
		if err != nil {
			return err
		}
		cells := []string{k.name}
		ratios := []string{}
		for i := range targets {
			if lat[i].errors > 0 {
				return fmt.Errorf("%s on %s failed %d times: %v", k.name, builds[i], lat[i].errors, lat[i].firstErr)
			}
			cells = append(cells, us(cpu[i]))
			if i > 0 {
				ratios = append(ratios, ratio(float64(cpu[i]), float64(cpu[0])))
			}
		}
		fmt.Fprintf(w, "| %s | %s |\n", strings.Join(cells, " | "), strings.Join(ratios, ", "))
	}
	return nil
}
