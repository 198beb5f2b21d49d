//go:build js && wasm

package bridge

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// runtimeContext is the object worker.mjs passes to the Go program: env,
// ready, fetch, abortFetch, startupMs and memoryBytes. syumai/workers' wasm_exec.js
// exposes it as the global "context".
var runtimeContext = js.Global().Get("context")

// Getenv returns the Worker variable or secret called name, or "" when it is
// unset or not a string.
func Getenv(name string) string {
	v := runtimeContext.Get("env").Get(name)
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

// HasBinding reports whether the Worker has a binding called name with a
// fetch method (a service binding or a Workers VPC service).
func HasBinding(name string) bool {
	if name == "" {
		return false
	}
	b := runtimeContext.Get("env").Get(name)
	return b.Type() == js.TypeObject && b.Get("fetch").Type() == js.TypeFunction
}

// DefaultHosts returns nil: a deployed Worker serves whatever routes and
// domains it is bound to unless ALLOWED_HOSTS says otherwise.
func DefaultHosts() []string { return nil }

// StartupMillis returns how long the entry module took to instantiate this
// Go program and see it ready, as it measured.
func StartupMillis() float64 {
	v := runtimeContext.Get("startupMs")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Float()
}

// WasmMemoryBytes returns the size of the linear memory this Go program runs
// in, as the entry module reads it from the instance.
func WasmMemoryBytes() int64 {
	v := runtimeContext.Call("memoryBytes")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return int64(v.Float())
}

// console is the runtime's console, which Workers Logs collect.
var console = js.Global().Get("console")

// consoleWriter writes each line it gets as one console.log call. Writing to
// os.Stdout reaches the same console through the js/wasm file-system shim,
// which costs a callback and a goroutine switch per write.
type consoleWriter struct{}

func (consoleWriter) Write(p []byte) (int, error) {
	console.Call("log", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// LogWriter returns where log lines go: the runtime's console.
func LogWriter() io.Writer { return consoleWriter{} }

// Serve hands h to the entry module and never returns: the Go program stays
// alive for the isolate's lifetime and serves every request through the
// callbacks below, which are created once and never released. The entry
// module reads at most maxBody bytes of a request body.
func Serve(h web.Handler, maxBody int) error {
	exports := js.Global().Get("Object").New()
	exports.Set("maxBodyBytes", maxBody)
	// handle(method, url, headers, body, tooLarge, respond) starts serving a
	// request and returns its id, for cancel.
	exports.Set("handle", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := &web.Request{
			Method:       args[0].String(),
			URL:          args[1].String(),
			Header:       decodeHeader(args[2].String()),
			Body:         bytesFromJS(args[3]),
			BodyTooLarge: args[4].Truthy(),
		}
		respond := args[5]
		id, ctx := serving.start()
		go func() {
			resp := h.Serve(ctx, req)
			serving.end(id)
			respond.Invoke(resp.Status, encodeHeader(resp.Header), bytesToJS(resp.Body))
		}()
		return id
	}))
	// cancel(id) is called when the client of a request is gone.
	exports.Set("cancel", js.FuncOf(func(_ js.Value, args []js.Value) any {
		serving.cancel(args[0].Int())
		return nil
	}))
	exports.Set("fetched", js.FuncOf(fetches.settle))
	runtimeContext.Call("ready", exports)
	select {}
}

// inflight holds the cancel functions of the requests being served, so that
// a client that hangs up stops the work done for it.
type inflight struct {
	mu      sync.Mutex
	next    int
	cancels map[int]context.CancelFunc
}

var serving = &inflight{cancels: map[int]context.CancelFunc{}}

func (f *inflight) start() (int, context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.cancels[f.next] = cancel
	return f.next, ctx
}

func (f *inflight) end(id int) {
	f.mu.Lock()
	cancel := f.cancels[id]
	delete(f.cancels, id)
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (f *inflight) cancel(id int) {
	f.mu.Lock()
	cancel := f.cancels[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Fetcher sends upstream requests with the runtime's fetch: the global one,
// or the fetch method of the named service binding.
type Fetcher struct {
	Binding  string // optional service binding name
	MaxBytes int    // response bodies over this size fail with web.ErrResponseTooLarge
}

var _ web.Doer = Fetcher{}

// Do sends req and waits for the whole response body. Redirects are returned,
// never followed. The context's deadline becomes the runtime's abort timeout.
func (f Fetcher) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	timeoutMs := 0
	if deadline, ok := ctx.Deadline(); ok {
		timeoutMs = max(1, int(time.Until(deadline).Milliseconds()))
	}
	id, done := fetches.start()
	runtimeContext.Call("fetch", id, f.Binding, req.Method, req.URL, encodeHeader(req.Header),
		bytesToJS(req.Body), timeoutMs, f.MaxBytes)
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
		fetches.forget(id)
		runtimeContext.Call("abortFetch", id)
		return nil, ctx.Err()
	}
}

type fetchResult struct {
	resp *web.Response
	err  error
}

// pendingFetches matches the entry module's answers to the goroutines that
// wait for them, so that no per-request JS callback is ever created.
type pendingFetches struct {
	mu      sync.Mutex
	next    int
	waiting map[int]chan fetchResult
}

var fetches = &pendingFetches{waiting: map[int]chan fetchResult{}}

func (p *pendingFetches) start() (int, <-chan fetchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	ch := make(chan fetchResult, 1)
	p.waiting[p.next] = ch
	return p.next, ch
}

func (p *pendingFetches) forget(id int) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// settle is called by the entry module as fetched(id, status, headers, body,
// failure, tooLarge) when an upstream request ends.
func (p *pendingFetches) settle(_ js.Value, args []js.Value) any {
	id := args[0].Int()
	p.mu.Lock()
	ch, ok := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if !ok {
		return nil // the caller gave up already
	}
	switch {
	case args[5].Truthy():
		ch <- fetchResult{err: web.ErrResponseTooLarge}
	case args[4].Truthy():
		ch <- fetchResult{err: fmt.Errorf("fetch: %s", args[4].String())}
	default:
		ch <- fetchResult{resp: &web.Response{
			Status: args[1].Int(),
			Header: decodeHeader(args[2].String()),
			Body:   bytesFromJS(args[3]),
		}}
	}
	return nil
}

// Headers cross the boundary as one string of "name:value\n" lines: one
// value instead of one per field. Header values cannot hold a newline.
func encodeHeader(h web.Header) string {
	var b strings.Builder
	for k, v := range h {
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return b.String()
}

func decodeHeader(s string) web.Header {
	h := web.Header{}
	for line := range strings.Lines(s) {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ":")
		if ok {
			h.Add(k, v)
		}
	}
	return h
}

var uint8Array = js.Global().Get("Uint8Array")

func bytesFromJS(v js.Value) []byte {
	if v.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func bytesToJS(b []byte) js.Value {
	a := uint8Array.New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}
