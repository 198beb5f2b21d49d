//go:build js && wasm

package bridge

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The entry module drives the Go program through the exported functions
// below, each a plain call that returns at once:
//
//	mme_buffer(n)          a buffer of n bytes for the next call's input
//	mme_handle(id, …)      a request, read from that buffer
//	mme_fetched(fetch, …)  the outcome of an upstream request, from the buffer
//	mme_cancel(id)         the client of a request is gone
//	mme_poll()             nothing new; run what is runnable
//	mme_release(id)        the answer's body is copied out
//
// A request is served by a goroutine of its own. When it needs Memos, the
// goroutine records an upstream request and parks until mme_fetched brings
// the outcome. Every call but mme_buffer and mme_release runs the goroutines
// it made runnable until each request waits for Memos or is answered, then
// returns what they produced since the last call (answers to send, upstream
// requests to make, log lines to write) as one table of words in memory; see
// settle. Goroutines run only then, so everything they record lands in the
// table of the call that ran them.
//
// No export may wait for JavaScript: on js/wasm a blocked export returns
// garbage and the next entry into Go crashes. So an export never blocks on
// a channel. It yields with runtime.Gosched, which always finds the export
// itself runnable again and so never lets the scheduler go idle. Timeouts
// are the entry module's (AbortSignal.timeout), cancellation too: no
// goroutine here waits on a timer.

// handler serves every request; Serve sets it.
var handler web.Handler

// Effect kinds, the first word of each record in the table.
const (
	effectRespond = 1 // request id, status, headers, body
	effectFetch   = 2 // request id, fetch id, timeout ms, max bytes, binding, method, URL, headers, body
	effectLog     = 3 // a log line
)

// Fetch outcomes, as mme_fetched reports them.
const (
	fetchOK       = 0 // status, headers and body in the buffer
	fetchFailed   = 1 // the runtime's error message in the buffer
	fetchTooLarge = 2 // the body passed its cap and was not read
	fetchTimedOut = 3 // the request's timeout passed before the whole answer
)

// loop is the state shared by the exports and the goroutines they run.
type loop struct {
	mu       sync.Mutex
	input    []byte                        // the buffer of the next call
	cancels  map[uint32]context.CancelFunc // by request id, until it is answered
	replies  map[uint32]chan fetchResult   // by fetch id, until its outcome comes
	next     uint32                        // the last fetch id given out
	produced int                           // effects recorded so far, to see progress
	serving  int                           // requests whose handler has not returned
	parked   int                           // goroutines waiting for an upstream answer
	table    []uint32                      // the effects not yet returned, after a length word
	held     [][]byte                      // the bytes table points into, kept alive
	strs     []string                      // the strings table points into, kept alive
	answers  map[uint32][]byte             // answer bodies by request id, until released
}

var events = &loop{
	answers: map[uint32][]byte{},
	cancels: map[uint32]context.CancelFunc{},
	replies: map[uint32]chan fetchResult{},
	table:   []uint32{0},
}

type fetchResult struct {
	resp *web.Response
	err  error
}

// requestKey keys the id of the request a context serves.
type requestKey struct{}

//go:wasmexport mme_buffer
func exportBuffer(n int32) uint32 {
	b := make([]byte, n)
	events.mu.Lock()
	events.input = b
	events.mu.Unlock()
	return addr(unsafe.SliceData(b))
}

//go:wasmexport mme_handle
func exportHandle(id uint32, methodLen, urlLen, headerLen int32, bodyTooLarge bool) uint32 {
	in := events.take()
	url, header := methodLen+urlLen, methodLen+urlLen+headerLen
	req := &web.Request{
		Method:       string(in[:methodLen]),
		URL:          string(in[methodLen:url]),
		Header:       decodeHeader(string(in[url:header])),
		Body:         in[header:],
		BodyTooLarge: bodyTooLarge,
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), requestKey{}, id))
	events.mu.Lock()
	events.cancels[id] = cancel
	events.mu.Unlock()
	startServing(job{ctx, id, req})
	return events.settle()
}

//go:wasmexport mme_fetched
func exportFetched(fetch uint32, outcome, status, headerLen int32) uint32 {
	in := events.take()
	var r fetchResult
	switch outcome {
	case fetchOK:
		r.resp = &web.Response{Status: int(status), Header: decodeHeader(string(in[:headerLen])), Body: in[headerLen:]}
	case fetchTooLarge:
		r.err = web.ErrResponseTooLarge
	case fetchTimedOut:
		r.err = web.ErrTimeout
	default:
		r.err = errors.New("fetch: " + string(in))
	}
	events.mu.Lock()
	reply := events.replies[fetch]
	delete(events.replies, fetch)
	events.mu.Unlock()
	if reply != nil {
		reply <- r // buffered: the goroutine takes it when it runs
	}
	return events.settle()
}

//go:wasmexport mme_cancel
func exportCancel(id uint32) uint32 {
	events.mu.Lock()
	cancel := events.cancels[id]
	events.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return events.settle()
}

//go:wasmexport mme_poll
func exportPoll() uint32 { return events.settle() }

// The entry module reads an answer's body where it lies, when it makes the
// Response, which copies it; until then Go keeps it.
//
//go:wasmexport mme_release
func exportRelease(id uint32) {
	events.mu.Lock()
	delete(events.answers, id)
	events.mu.Unlock()
}

// job is one request to serve.
type job struct {
	ctx context.Context
	id  uint32
	req *web.Request
}

// Requests are served by goroutines that wait for the next one when done,
// up to maxIdle of them: a new goroutine's stack starts small and is copied
// each time it grows, which costs more than serving a small request.
const maxIdle = 8

var (
	jobs = make(chan job) // taken only by a goroutine waiting for work
	idle int              // goroutines waiting on jobs; guarded by events.mu
)

func startServing(j job) {
	events.mu.Lock()
	events.serving++
	events.mu.Unlock()
	select {
	case jobs <- j:
	default:
		go work(j)
	}
}

func work(j job) {
	for {
		serve(j.ctx, j.id, j.req)
		events.mu.Lock()
		if idle >= maxIdle {
			events.mu.Unlock()
			return
		}
		idle++
		events.mu.Unlock()
		j = <-jobs
		events.mu.Lock()
		idle--
		events.mu.Unlock()
	}
}

// serve answers one request and records the answer. A panic in the handler
// becomes a 500, and the instance goes on serving.
func serve(ctx context.Context, id uint32, req *web.Request) {
	resp := &web.Response{Status: 500, Header: web.Header{"content-type": "text/plain; charset=utf-8"}, Body: []byte("internal error\n")}
	defer func() {
		if p := recover(); p != nil {
			logline.Print("panic serving ", req.Method, " request: ", logline.Value(p))
		}
		events.respond(id, resp)
	}()
	resp = handler.Serve(ctx, req)
}

// take hands over the buffer the entry module wrote the call's input to.
func (l *loop) take() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	in := l.input
	l.input = nil
	return in
}

// settle runs the goroutines the call made runnable, then returns the
// address of the effects table: its first word is the number of words after
// it. It yields until every request being served waits for an upstream
// answer (or is done) and two rounds in a row recorded nothing. A goroutine
// runs until it blocks (wasm has no preemption) and one it wakes runs before
// the export again, so this is quick; the rounds also let the garbage
// collector's workers finish a cycle that a handler waits for. A request
// that waits for something else (a lock another request holds across an
// upstream request) cannot go on before that answer comes: after
// maxQuietRounds the call returns, and a later call runs it.
func (l *loop) settle() uint32 {
	l.mu.Lock()
	// What the last table pointed at is no longer read.
	clear(l.held)
	clear(l.strs)
	l.held, l.strs, l.table = l.held[:0], l.strs[:0], append(l.table[:0], 0)
	l.mu.Unlock()
	before, _ := l.progress()
	for quiet := 0; quiet < maxQuietRounds; {
		runtime.Gosched()
		after, waiting := l.progress()
		switch {
		case after != before:
			quiet = 0
		case waiting && quiet >= 1:
			quiet = maxQuietRounds
		default:
			quiet++
		}
		before = after
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.table[0] = uint32(len(l.table) - 1)
	return addr(unsafe.SliceData(l.table))
}

// maxQuietRounds bounds the rounds settle yields without anything recorded.
const maxQuietRounds = 100

// progress returns the number of effects recorded so far, and whether
// every request being served waits for an upstream answer.
func (l *loop) progress() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.produced, l.parked >= l.serving
}

// respond records the answer to request id.
func (l *loop) respond(id uint32, resp *web.Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cancel := l.cancels[id]; cancel != nil {
		cancel()
		delete(l.cancels, id)
	}
	l.serving--
	l.table = append(l.table, effectRespond, id, uint32(resp.Status))
	l.addString(encodeHeader(resp.Header))
	l.answers[id] = resp.Body
	l.table = append(l.table, addr(unsafe.SliceData(resp.Body)), uint32(len(resp.Body)))
	l.produced++
}

// fetch records an upstream request for request id and returns where its
// outcome will come.
func (l *loop) fetch(id uint32, f Fetcher, req *web.Request, timeoutMs int) <-chan fetchResult {
	reply := make(chan fetchResult, 1)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	l.replies[l.next] = reply
	l.parked++ // from now: the caller waits on reply next
	l.table = append(l.table, effectFetch, id, l.next, uint32(timeoutMs), uint32(f.MaxBytes))
	l.addString(f.Binding)
	l.addString(req.Method)
	l.addString(req.URL)
	l.addString(encodeHeader(req.Header))
	l.addBytes(req.Body)
	l.produced++
	return reply
}

// log records a log line; the entry module writes it to the console once
// the call returns. A line crossing as an effect costs the Go program no
// call into JavaScript and no JavaScript value to finalize.
func (l *loop) log(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.table = append(l.table, effectLog)
	l.addString(line)
}

func (l *loop) addBytes(b []byte) {
	l.held = append(l.held, b)
	l.table = append(l.table, addr(unsafe.SliceData(b)), uint32(len(b)))
}

func (l *loop) addString(s string) {
	l.strs = append(l.strs, s)
	l.table = append(l.table, addr(unsafe.StringData(s)), uint32(len(s)))
}

// addr is a pointer as the entry module reads it: an offset into the
// instance's memory, which wasm addresses with 32 bits.
func addr[T any](p *T) uint32 { return uint32(uintptr(unsafe.Pointer(p))) }

// errNoRequest is what a fetch outside any request gets: the entry module
// runs upstream requests for a request only.
var errNoRequest = errors.New("fetch: no request to send it for")

// Fetcher sends upstream requests with the runtime's fetch: the global one,
// the fetch method of the named service binding, or, for a Binding of the
// form "objects:NAME", that of the Durable Object of namespace NAME which
// the URL's path names.
type Fetcher struct {
	Binding  string // optional service binding name, or "objects:" and a Durable Object namespace
	MaxBytes int    // response bodies over this size fail with web.ErrResponseTooLarge
}

var _ web.Doer = Fetcher{}

// Do sends req for the request ctx serves and waits for the whole response
// body. Redirects are returned, never followed. req.Timeout becomes the
// runtime's abort timeout; a request whose client is gone has its upstream
// requests aborted by the entry module.
func (f Fetcher) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	id, ok := ctx.Value(requestKey{}).(uint32)
	if !ok {
		return nil, errNoRequest
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeoutMs := 0
	if req.Timeout > 0 {
		timeoutMs = max(1, int(req.Timeout.Milliseconds()))
	}
	reply := events.fetch(id, f, req, timeoutMs)
	r := <-reply
	events.mu.Lock()
	events.parked--
	events.mu.Unlock()
	return r.resp, r.err
}

// Headers cross the boundary as one string of "name:value\n" lines: one
// value instead of one per field. Header values cannot hold a newline.
// Both ways size what they make first: growing a map or a buffer costs
// more in wasm than the lines do.
func encodeHeader(h web.Header) string {
	n := 0
	for k, v := range h {
		n += len(k) + len(v) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for k, v := range h {
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return b.String()
}

// The names come lowercase, as the runtime's Headers iterates them, and
// are kept as they are (lowercasing them again took half the time).
func decodeHeader(s string) web.Header {
	h := make(web.Header, strings.Count(s, "\n"))
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		if k, v, ok := strings.Cut(line, ":"); ok {
			if old, seen := h[k]; seen && old != "" {
				v = old + ", " + v
			}
			h[k] = v
		}
		s = rest
	}
	return h
}
