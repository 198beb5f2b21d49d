package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// coldOnly is `go run ./test/bench -cold`: row 2's cold starts under
// workerd alone (binary configuration) and nothing else, for the gateway
// that `make build` wrote, the empty Go program, and the empty Go program
// asking Memos once before it answers, in turns, with the gateway's ratio
// to each: the way to see what a change to the first answer does without
// the whole table. With delay, Memos is reached through a proxy that holds
// each request that long before passing it on: an instance farther away
// than loopback, where what the first answer waits for upstream shows.
//
// Further builds named (folders make build wrote) are started in the same
// rounds, as more gateways.
func coldOnly(ctx context.Context, builds []string, rounds int, delay time.Duration, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	b := &bench{root: env.root, dir: env.dir, memos: env.memos, vars: env.gatewayVars()}
	memosURL := env.memos.URL
	if delay > 0 {
		if memosURL, err = delayed(env.memos.URL, delay); err != nil {
			return err
		}
		b.vars["MEMOS_URL"] = memosURL
	}
	if b.gateway, err = gatewayWorker(b.root, b.dir, env.compat); err != nil {
		return err
	}
	if b.empty, _, err = emptyGoWorker(b.root, b.dir, env.compat); err != nil {
		return err
	}
	for _, wd := range []workerDir{b.gateway, b.empty} {
		if _, _, err := dryRun(b.root, wd); err != nil { // workerd runs the bundle it writes
			return err
		}
	}
	more := make([]struct{ total, first sample }, len(builds))
	var extra []coldTarget
	for i, build := range builds {
		wd, err := env.prepare(i, build)
		if err != nil {
			return err
		}
		extra = append(extra, coldTarget{wd, b.vars, &more[i].total, &more[i].first})
	}
	r := &results{}
	progress("row 2 alone: %d rounds of new workerd (binary configuration) for the gateway and the two empty Go programs, in turns", rounds)
	start := func(t coldTarget) (*worker, error) { return t.w.workerd(b.root, env.compat, t.vars) }
	err = b.coldRounds(ctx, r, rounds, start, append([]coldTarget{
		{b.gateway, b.vars, &r.coldGo, &r.firstGo},
		{b.empty, map[string]string{"ANSWER_BYTES": "64"}, &r.coldEmpty, &r.firstEmpty},
		{b.empty, map[string]string{"ANSWER_BYTES": "64", "CHECK_URL": memosURL}, &r.coldCheck, &r.firstCheck}}, extra...)...)
	if err != nil {
		return err
	}
	p50 := func(s sample) float64 { return float64(s.p50()) }
	fmt.Fprintf(w, "cold starts under workerd alone (binary configuration), %d rounds in turns, each request to Memos held %s\n\n", rounds, delay)
	fmt.Fprintln(w, "| Worker | new workerd → first /mcp answer | first accepted request → its answer | gateway ÷ this | same, first request |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	type row struct {
		name         string
		total, first sample
	}
	rows := []row{
		{"the gateway", r.coldGo, r.firstGo},
		{"the empty Go program", r.coldEmpty, r.firstEmpty},
		{"the empty Go program, asking Memos once first", r.coldCheck, r.firstCheck},
	}
	for i, build := range builds {
		rows = append(rows, row{build, more[i].total, more[i].first})
	}
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", row.name, row.total, row.first,
			ratio(p50(r.coldGo), p50(row.total)), ratio(p50(r.firstGo), p50(row.first)))
	}
	fmt.Fprintf(w, "\nGo instance start (the gateway's /healthz): %s\n", r.goStart)
	return nil
}

// delayed starts a proxy on loopback that passes each request to target
// after holding it for delay, and returns its URL. It lives as long as the
// process.
func delayed(target string, delay time.Duration) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		proxy.ServeHTTP(w, r)
	}))
	return "http://" + ln.Addr().String(), nil
}
