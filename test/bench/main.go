// Command bench is `make bench`. In one run it starts a fresh Memos (the
// pinned release, bootstrapped as the end-to-end tests do), the gateway and
// trivial JavaScript Workers as baselines, each under wrangler dev and under
// workerd alone, measures the gateway side by side with each baseline, and
// prints one table: medians with p99, ratios, and the project's goals with
// the figures that meet or miss them. Absolute times depend on the machine;
// the ratios are what to compare.
//
// Everything runs on loopback and is bounded in count and time (about three
// minutes on two cores). Row numbers follow the benchmark issue:
//
//  1. size: the wasm, raw and gzip; the `wrangler deploy --dry-run` upload
//  2. cold start: a new workerd, and a new wrangler dev, to the first /mcp
//     answer; the Go instance's own start as the entry module measures it
//  3. tools/list latency against a JavaScript Worker sending the same bytes
//  4. tools/call memo_get_memo against a JavaScript Worker proxying the same
//     Memos request; Memos' built-in /mcp and the direct REST call for reference
//  5. throughput of 32 concurrent clients for 20 s
//  6. Go CPU per request inside wasm (Node, fetch stubbed) and natively
//  7. the instance's memory after warm-up and after 20,000 more requests
//  8. tools/call memo_list_memos of 1,000 memos against the JavaScript proxy
//     doing the same REST read: the gateway's own work on a large result
//  9. what a task costs the model: calls and bytes until every fact a
//     question needs has been seen, against Memos' built-in /mcp, over a
//     notebook of the bench's own (tasks.go)
//  10. the memo lock of a write: acquire and release against its Durable
//     Object, beside the same two requests answered without it (lease.go)
//  11. workerd's CPU per request of each kind on row 9's notebook, beside
//     the JavaScript proxy's per GET and the Workers Free plan's limit
//     (cpurow.go)
//
// Beside the JavaScript baselines, an empty Go program served through the
// same entry module and bridge (test/bench/emptygo) shows what Go itself
// costs: its size (row 1), cold start (row 2) and latency (row 3); row 2
// starts it a second way too, asking Memos once before it answers (the one
// upstream request the gateway's first answer needs, in series).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Bounds of the run.
const (
	listRounds    = 2000 // row 3: requests per Worker
	callRounds    = 1000 // row 4: requests per target
	warmRounds    = 100
	workerdStarts = 40 // row 2: new workerd per Worker (15 let one series of the empty Go program read 1.10x where 40 rounds read 1.44x)
	devStarts     = 5  // row 2: new wrangler dev per Worker
	loadClients   = 32
	loadDuration  = 20 * time.Second
	memClients    = 8
	memWarmup     = 1000
	memRequests   = 20000
	cpuIterations = 5000 // row 6: per request kind
	seedMemos     = 12
	bigListMemos  = 1000 // row 8: memos of about 1 KB, listed in one page
	bigRounds     = 60   // row 8: requests per target
)

func main() {
	pair := flag.Bool("pair", false, "instead of the table, compare the cold start of the builds named (folders make build wrote), side by side")
	calls := flag.Bool("calls", false, "instead of the table, compare the warm tools/call and tools/list latency of the builds named, side by side, under workerd alone")
	compiled := flag.Bool("compiled", false, "instead of the table, count the machine code V8 makes from a cold start to the first answer, for the builds named and the empty Go program (Linux)")
	coldRow := flag.Bool("cold", false, "instead of the table, measure row 2's cold starts under workerd alone (binary configuration) alone: the gateway of build/ against both empty Go programs and the builds named, -rounds rounds")
	cpuRow := flag.Bool("cpu", false, "instead of the table, measure row 11 alone: workerd's CPU per request of each kind on the task-cost notebook, beside the JavaScript proxy's per GET; with builds named (folders make build wrote), compare them kind by kind, in turns")
	profile := flag.Bool("profile", false, "with -cpu: sample the request kinds whose names start with the arguments with perf instead, naming Go's functions from build/app.named.wasm (make wasmsize; Linux)")
	leaseRow := flag.Bool("lease", false, "instead of the table, measure row 10 alone: the memo lock's cost per write under workerd alone (needs no Memos)")
	pause := flag.Duration("pause", 0, "instead of the table, compare the latency of tools/call memo_get_memo after pauses this long (the caller check's memory run out) of the builds named, beside the JavaScript proxy, -rounds rounds")
	delay := flag.Duration("delay", 0, "with -cold or -pause: hold each request to Memos this long (an instance farther away than loopback)")
	rounds := flag.Int("rounds", 100, "with -pair, -calls, -cold or -pause: how many rounds (-calls: 10× as many requests)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *pair {
		if err := pairColdStarts(ctx, flag.Args(), *rounds, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -pair: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *pause > 0 {
		if err := pausedCalls(ctx, flag.Args(), *rounds, *pause, *delay, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -pause: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *coldRow {
		if err := coldOnly(ctx, flag.Args(), *rounds, *delay, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -cold: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *cpuRow && *profile {
		if err := profileKinds(ctx, flag.Args(), os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -cpu -profile: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *cpuRow {
		if err := cpuOnly(ctx, flag.Args(), os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -cpu: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *leaseRow {
		if err := leaseOnly(ctx, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -lease: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *compiled {
		if err := compiledCode(ctx, flag.Args(), os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -compiled: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *calls {
		if err := pairCalls(ctx, flag.Args(), 10**rounds, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench -calls: %v\n", err)
			os.Exit(1)
		}
		return
	}
	r, err := run(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "make bench: %v\n", err)
		os.Exit(1)
	}
	r.print(os.Stdout)
}

// progress tells the person waiting what is being measured.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
