package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// pausedCalls is `go run ./test/bench -pause D DIR…`: the latency of
// tools/call memo_get_memo when the caller comes back after a pause of D,
// longer than the gateway remembers a caller's check (5 s), for builds
// that `make build` wrote, side by side under workerd alone next to the
// JavaScript proxy, over the same Memos: each round pauses, then sends
// each target one call in turn. With delay, Memos is reached through a
// proxy that holds each request that long, so that a request to Memos in
// series with another shows as delay more.
func pausedCalls(ctx context.Context, builds []string, rounds int, pause, delay time.Duration, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	b := &bench{root: env.root, dir: env.dir, memos: env.memos}
	if err := b.seed(ctx); err != nil {
		return err
	}
	vars := env.gatewayVars()
	if delay > 0 {
		if vars["MEMOS_URL"], err = delayed(env.memos.URL, delay); err != nil {
			return err
		}
	}
	targets, calls, err := env.getMemoTargets(ctx, builds, vars, b.memo)
	defer stopAll(targets)
	if err != nil {
		return err
	}
	progress("tools/call memo_get_memo after pauses of %s, %d rounds over the proxy, the Go forwarder and %d builds, each request to Memos held %s", pause, rounds, len(builds), delay)
	interleave(ctx, 0, warmRounds, calls...)
	got := make([]latency, len(calls))
	for range rounds {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		for i, l := range interleave(ctx, 1, 0, calls...) {
			got[i].sample = append(got[i].sample, l.sample...)
			if got[i].errors += l.errors; got[i].firstErr == nil {
				got[i].firstErr = l.firstErr
			}
		}
	}
	fmt.Fprintf(w, "tools/call memo_get_memo after a pause of %s, under workerd alone, %d rounds in turns, each request to Memos held %s\n\n", pause, rounds, delay)
	fmt.Fprintln(w, "| Worker | after a pause | ÷ proxy |")
	fmt.Fprintln(w, "|---|---|---|")
	for i, c := range calls {
		if got[i].firstErr != nil {
			return fmt.Errorf("%s: %d errors, the first: %w", c.name, got[i].errors, got[i].firstErr)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", c.name, got[i].withTail(), ratio(msf(got[i].p50()), msf(got[0].p50())))
	}
	return nil
}
