package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// pairCalls is `go run ./test/bench -calls DIR…`: the warm latency of
// several builds of the Worker side by side, each a folder that `make
// build` wrote, under workerd alone (binary configuration) next to the
// JavaScript proxy, over the same Memos: tools/call memo_get_memo, then
// tools/list, each target in turn request by request (rounds of each).
// The report gives each one's median, p99, and its ratio to the proxy (for
// tools/call) or to the first build (for tools/list), and the CPU time its
// workerd spent per request: the way to tell a tenth of a millisecond per
// call on a shared machine.
func pairCalls(ctx context.Context, builds []string, rounds int, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	memos := env.memos
	b := &bench{root: env.root, dir: env.dir, memos: memos}
	if err := b.seed(ctx); err != nil {
		return err
	}
	targets, calls, err := env.getMemoTargets(ctx, builds, env.gatewayVars(), b.memo)
	defer stopAll(targets)
	if err != nil {
		return err
	}
	progress("tools/call memo_get_memo, %d rounds over the proxy, the Go forwarder and %d builds, in turns", rounds, len(builds))
	got, callCPU, err := measureCPU(ctx, rounds, targets, calls)
	if err != nil {
		return err
	}
	progress("tools/list, %d rounds over %d builds, in turns", rounds, len(builds))
	calls = calls[:0]
	for _, t := range targets[2:] {
		calls = append(calls, mcpCall("tools/list", t.URL+"/mcp", memos.Token, listBody, isResult))
	}
	lists, listCPU, err := measureCPU(ctx, rounds, targets[2:], calls)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "warm requests under workerd alone, %d rounds in turns; CPU is workerd's, all threads, per request\n\n", rounds)
	fmt.Fprintln(w, "| build | tools/call memo_get_memo | ÷ proxy | CPU | ÷ proxy | tools/list | ÷ first build | CPU | ÷ first build |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| JavaScript proxy | %s | | %s | | | | | |\n", got[0], us(callCPU[0]))
	fmt.Fprintf(w, "| Go forwarder (the empty Go program, FORWARD_URL) | %s | %s | %s | %s | | | | |\n", got[1], ratio(msf(got[1].p50()), msf(got[0].p50())),
		us(callCPU[1]), ratio(msf(callCPU[1]), msf(callCPU[0])))
	for i, build := range builds {
		c, l := got[i+2], lists[i]
		listRatio, listCPURatio := "—", "—" // a JavaScript Worker given as a build answers no tools/list
		if len(l.sample) > 0 {
			listRatio = ratio(msf(l.p50()), msf(lists[0].p50()))
			listCPURatio = ratio(msf(listCPU[i]), msf(listCPU[0]))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", build, c, ratio(msf(c.p50()), msf(got[0].p50())),
			us(callCPU[i+2]), ratio(msf(callCPU[i+2]), msf(callCPU[0])), l, listRatio, us(listCPU[i]), listCPURatio)
	}
	return nil
}

// getMemoTargets starts, under workerd alone, the JavaScript proxy, the Go
// forwarder and then each of builds (folders make build wrote) with vars,
// all over the Memos of vars' MEMOS_URL, waits until each answers
// memo_get_memo of memo, and returns them in that order, to stop, with a
// call of memo_get_memo to each.
func (s *sideBySide) getMemoTargets(ctx context.Context, builds []string, vars map[string]string, memo string) ([]*worker, []*call, error) {
	targets, err := s.proxyAndBuilds(builds, vars)
	if err != nil {
		return targets, nil, err
	}
	token, get := s.memos.Token, getMemoBody(memo)
	calls := []*call{mcpCall("proxy", targets[0].URL+"/mcp", token, get, isMemoJSON(memo)),
		mcpCall("Go forwarder", targets[1].URL+"/mcp", token, get, isMemoJSON(memo))}
	for i, t := range targets[2:] {
		calls = append(calls, mcpCall(builds[i], t.URL+"/mcp", token, get, either(isMemo(memo), isMemoJSON(memo))))
	}
	for _, t := range targets {
		if _, _, err := t.waitReady(ctx, get, mcpHeaders(token)); err != nil {
			return targets, nil, err
		}
	}
	return targets, calls, nil
}

// proxyAndBuilds starts what getMemoTargets names, in that order.
func (s *sideBySide) proxyAndBuilds(builds []string, vars map[string]string) ([]*worker, error) {
	proxyDir, err := baselineWorker(s.root, s.dir, s.compat, "proxy", nil)
	if err != nil {
		return nil, err
	}
	if _, _, err := dryRun(s.root, proxyDir); err != nil {
		return nil, err
	}
	proxy, err := proxyDir.workerd(s.root, s.compat, map[string]string{"MEMOS_URL": vars["MEMOS_URL"]})
	if err != nil {
		return nil, err
	}
	started := []*worker{proxy}
	forwarder, err := startForwarder(s.root, s.dir, s.compat, &workerDir{}, vars["MEMOS_URL"])
	if err != nil {
		return started, err
	}
	started = append(started, forwarder)
	for i, build := range builds {
		wd, err := s.prepare(i, build)
		if err != nil {
			return started, err
		}
		wk, err := wd.workerd(s.root, s.compat, vars)
		if err != nil {
			return started, err
		}
		started = append(started, wk)
	}
	return started, nil
}

func stopAll(workers []*worker) {
	for _, w := range workers {
		w.Stop()
	}
}

// measureCPU is interleave over calls, the i-th sent to targets[i], with
// the CPU time each target's workerd spent per request in the measured
// rounds (warm-up left out): a figure that the machine's other processes
// disturb less than latency, for telling builds apart.
func measureCPU(ctx context.Context, rounds int, targets []*worker, calls []*call) ([]latency, []time.Duration, error) {
	interleave(ctx, 0, warmRounds, calls...)
	before := make([]time.Duration, len(targets))
	for i, t := range targets {
		var err error
		if before[i], err = processCPU(t.Pid()); err != nil {
			return nil, nil, err
		}
	}
	got := interleave(ctx, rounds, 0, calls...)
	perRequest := make([]time.Duration, len(targets))
	for i, t := range targets {
		after, err := processCPU(t.Pid())
		if err != nil {
			return nil, nil, err
		}
		perRequest[i] = (after - before[i]) / time.Duration(rounds)
	}
	return got, perRequest, nil
}

// either accepts what one of two checks accepts: the gateway's result, or
// Memos' own answer from a JavaScript Worker given as a build.
func either(a, b func([]byte) error) func([]byte) error {
	return func(body []byte) error {
		if a(body) == nil {
			return nil
		}
		return b(body)
	}
}
