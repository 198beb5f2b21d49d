// Command prog is a small Go program served through the bridge, for
// driver_test.mjs: each path exercises one way a request can use it.
package main

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/bridge"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// held is taken across an upstream request by /locked: a second request
// waits for the first one's fetch without any fetch of its own.
var held sync.Mutex

var (
	gate    = make(chan struct{}) // closed by /open, which /wait waits for
	garbage []byte
	behind  chan string // the outcome of /behind's upstream request
)

func main() {
	logline.SetOutput(bridge.LogWriter())
	fetcher := bridge.Fetcher{MaxBytes: 1 << 10}
	// An upstream request carries x-req, the test's id of the request it
	// is for.
	upstream := func(in *web.Request, url string, timeout time.Duration) *web.Request {
		return &web.Request{Method: "GET", URL: url, Header: web.Header{"x-from": "go", "x-req": in.Header.Get("x-req")}, Timeout: timeout}
	}
	h := web.HandlerFunc(func(ctx context.Context, req *web.Request) *web.Response {
		get := func(url string) string {
			resp, err := fetcher.Do(ctx, upstream(req, url, 0))
			if err != nil {
				return "error: " + err.Error()
			}
			return strconv.Itoa(resp.Status) + " " + resp.Header.Get("x-upstream") + " " + string(resp.Body)
		}
		text := ""
		switch req.Path() {
		case "/echo":
			text = req.Method + " " + req.Header.Get("x-test") + " " + string(req.Body) + " " + strconv.FormatBool(req.BodyTooLarge)
		case "/wait": // until /open, then 300 KB of one letter
			<-gate
			return &web.Response{Status: 200, Body: []byte(strings.Repeat(req.Header.Get("x-fill"), 300_000))}
		case "/open":
			close(gate)
			gate = make(chan struct{})
		case "/garbage": // 16 MB of garbage, collected
			for range 16 {
				garbage = make([]byte, 1<<20)
			}
			garbage = nil
			runtime.GC()
		case "/panic":
			panic("on purpose")
		case "/sequence": // three upstream requests, one after the other
			for i := range 3 {
				text += get("http://upstream/"+strconv.Itoa(i)) + ";"
			}
		case "/parallel": // two at once, the second from another goroutine
			var wg sync.WaitGroup
			var other string
			wg.Go(func() { other = get("http://upstream/b") })
			text = get("http://upstream/a") + ";"
			wg.Wait()
			text += other
		case "/locked":
			held.Lock()
			text = get("http://upstream/locked")
			held.Unlock()
		case "/timeout": // an upstream request that outlasts its timeout; the context lives on
			_, err := fetcher.Do(ctx, upstream(req, "http://upstream/never", 20*time.Millisecond))
			text = strconv.FormatBool(errors.Is(err, web.ErrTimeout)) + "; " + strconv.FormatBool(ctx.Err() != nil)
		case "/cancel": // an upstream request its client gives up on, then the context
			text = get("http://upstream/never") + "; " + strconv.FormatBool(ctx.Err() != nil)
		case "/behind": // answered at once, an upstream request going on beside it
			done := make(chan string, 1)
			behind = done
			go func() {
				resp, err := fetcher.Do(context.WithoutCancel(ctx), upstream(req, "http://upstream/behind", 0))
				if err != nil {
					done <- "error: " + err.Error()
					return
				}
				done <- string(resp.Body)
			}()
		case "/behind-result":
			select {
			case text = <-behind:
			default:
				text = "not yet"
			}
		case "/zone": // offsets the driver reckons, then what a call allocates
			at := func(y int, mo time.Month, d, h, mi, sec int) time.Time {
				return time.Date(y, mo, d, h, mi, sec, 0, time.UTC)
			}
			for _, z := range []struct {
				name string
				t    time.Time
			}{
				{"Europe/Berlin", at(2024, 3, 31, 0, 59, 59)}, {"Europe/Berlin", at(2024, 3, 31, 1, 0, 0)},
				{"America/St_Johns", at(2024, 1, 15, 12, 0, 0)}, {"Asia/Kolkata", at(2024, 1, 15, 12, 0, 0)},
				{"Europe/Berlin", at(50, 1, 1, 0, 0, 0)}, {"Nowhere/Nothing", at(2024, 1, 15, 12, 0, 0)},
			} {
				s, ok := bridge.ZoneOffset(z.name, z.t)
				text += strconv.Itoa(s) + " " + strconv.FormatBool(ok) + "; "
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range 100 {
				bridge.ZoneOffset("Europe/Berlin", at(2024, 3, 1+i%28, 12, 0, 0))
			}
			runtime.ReadMemStats(&after)
			text += "allocs " + strconv.FormatUint(after.Mallocs-before.Mallocs, 10)
		case "/large": // over MaxBytes, streamed, then declared
			text = get("http://upstream/large") + "; " + get("http://upstream/declared")
		default:
			return &web.Response{Status: 404}
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": "text/plain", "x-lines": strconv.Itoa(strings.Count(text, ";"))}, Body: []byte(text)}
	})
	bridge.Serve(h, 64)
}
