package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
)

// latency is a measured sample and the errors met while measuring it.
type latency struct {
	sample
	errors   int
	firstErr error
}

func (l latency) String() string {
	if l.errors == 0 {
		return l.sample.String()
	}
	return fmt.Sprintf("%s, %d errors", l.sample, l.errors)
}

// interleave measures calls side by side: warm requests first, then n
// rounds in which each call is sent once, one after another on its own
// keep-alive connection, so that they share the machine's noise alike.
func interleave(ctx context.Context, n, warm int, calls ...*call) []latency {
	out := make([]latency, len(calls))
	for range warm {
		for _, c := range calls {
			c.run(ctx)
		}
	}
	for range n {
		if ctx.Err() != nil {
			break
		}
		for i, c := range calls {
			d, err := c.run(ctx)
			if err != nil {
				out[i].errors++
				if out[i].firstErr == nil {
					out[i].firstErr = err
				}
				continue
			}
			out[i].sample = append(out[i].sample, d)
		}
	}
	return out
}

// load is the outcome of concurrent clients.
type load struct {
	clients  int
	requests int
	elapsed  time.Duration
	errors   int
	firstErr error
	latency  sample
}

func (l load) perSecond() float64 { return float64(l.requests) / l.elapsed.Seconds() }

// hammer runs clients concurrent clients, each on its own keep-alive
// connection, each cycling through mix (from a different starting point),
// until total requests were sent (total > 0) or the duration is over.
func hammer(ctx context.Context, clients, total int, duration time.Duration, mix []*call) load {
	var (
		sent     atomic.Int64
		mu       sync.Mutex
		wg       sync.WaitGroup
		res      = load{clients: clients}
		deadline = time.Now().Add(duration)
	)
	start := time.Now()
	for i := range clients {
		client := keepAlive(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine sample
			var errs int
			var firstErr error
			for j := i; ; j++ {
				if total > 0 && sent.Add(1) > int64(total) {
					break
				}
				if total <= 0 && time.Now().After(deadline) || ctx.Err() != nil {
					break
				}
				c := *mix[j%len(mix)]
				c.client = client
				d, err := c.run(ctx)
				if err != nil {
					errs++
					firstErr = err
					continue
				}
				mine = append(mine, d)
			}
			mu.Lock()
			res.latency = append(res.latency, mine...)
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = firstErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.requests = len(res.latency) + res.errors
	return res
}

// instanceMemory is what /healthz reports about the Go instance.
type instanceMemory struct {
	id         string
	requests   int64
	startupMs  float64
	wasmBytes  int64
	heapAlloc  int64
	heapSys    int64
	gcCycles   int64
	reportedOK bool
}

func healthOf(ctx context.Context, base string) (instanceMemory, error) {
	status, body, err := get(ctx, &http.Client{Timeout: 30 * time.Second}, base+"/healthz", "")
	if err != nil {
		return instanceMemory{}, err
	}
	if status != 200 {
		return instanceMemory{}, fmt.Errorf("/healthz: HTTP %d: %.300s", status, body)
	}
	in := gjson.GetBytes(body, "instance")
	m := in.Get("memory")
	return instanceMemory{
		id:         in.Get("id").String(),
		requests:   in.Get("requests").Int(),
		startupMs:  in.Get("startupMs").Float(),
		wasmBytes:  m.Get("wasmBytes").Int(),
		heapAlloc:  m.Get("heapAlloc").Int(),
		heapSys:    m.Get("heapSys").Int(),
		gcCycles:   m.Get("gcCycles").Int(),
		reportedOK: m.Get("wasmBytes").Exists(),
	}, nil
}
