package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/tidwall/gjson"
)

// Row 11's second baseline: the goal compares each kind with one GET of a
// memo, where the heavier kinds read several answers of Memos, hundreds of
// KB together. Beside them the row sets a JavaScript Worker
// (workers/reader.mjs) that sends the same requests to the same Memos, one
// after another, parses each answer with JSON.parse and answers in a few
// bytes: what the kind's reading alone costs the runtime. The requests are
// those the gateway sends on one warm call of the kind, recorded through a
// proxy in front of Memos by a gateway of its own.

// upstreamRead is one request the gateway sent to Memos, and its answer's
// size.
type upstreamRead struct {
	method, path string
	bytes        int
}

// kindReads are the requests one call of a kind sends to Memos.
type kindReads []upstreamRead

// readOnly reports whether every request is a GET, so that the reader can
// send them again: a write's would write again, and leave out its lock.
func (k kindReads) readOnly() bool {
	for _, r := range k {
		if r.method != http.MethodGet {
			return false
		}
	}
	return len(k) > 0
}

func (k kindReads) size() (n int64) {
	for _, r := range k {
		n += int64(r.bytes)
	}
	return n
}

// body is the reader's request for these reads.
func (k kindReads) body() string {
	paths := make([]string, len(k))
	for i, r := range k {
		paths[i] = r.path
	}
	b, _ := json.Marshal(map[string][]string{"paths": paths})
	return string(b)
}

// heavy reports whether a kind's reads get the reader as a baseline: they
// are GETs, more than the one of the proxy's baseline.
func (k kindReads) heavy() bool { return k.readOnly() && len(k) > 1 }

// recorder is a proxy on loopback in front of Memos that notes the
// requests it passes while on.
type recorder struct {
	mu    sync.Mutex
	on    bool
	reads kindReads
}

// startRecorder starts a recorder in front of target and returns its URL.
// It lives as long as the process.
func startRecorder(target string) (*recorder, string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		rec.mu.Lock()
		if rec.on {
			rec.reads = append(rec.reads, upstreamRead{resp.Request.Method, resp.Request.URL.RequestURI(), len(body)})
		}
		rec.mu.Unlock()
		return nil
	}
	go http.Serve(ln, proxy)
	return rec, "http://" + ln.Addr().String(), nil
}

// record returns what fn sends through the recorder.
func (rec *recorder) record(fn func()) kindReads {
	rec.mu.Lock()
	rec.on, rec.reads = true, nil
	rec.mu.Unlock()
	fn()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.on = false
	return rec.reads
}

// recordReads runs each kind three times on a gateway of its own whose
// Memos is behind a recorder, and returns the requests of the last call,
// by kind: a warm call's, as row 11 measures them.
func (b *bench) recordReads(ctx context.Context, compat string, kinds []cpuKind) (map[string]kindReads, error) {
	rec, memosURL, err := startRecorder(b.memos.URL)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for k, v := range b.vars {
		vars[k] = v
	}
	vars["MEMOS_URL"] = memosURL
	// Its locks on disk, as the writes need: it is stopped before the
	// measured gateway, of the same folder, starts.
	wd := b.gateway
	wd.onDisk = true
	gw, err := wd.workerd(b.root, compat, vars)
	if err != nil {
		return nil, err
	}
	defer gw.Stop()
	if _, _, err := gw.waitReady(ctx, listBody, mcpHeaders(b.memos.Token)); err != nil {
		return nil, err
	}
	reads := map[string]kindReads{}
	for _, k := range kinds {
		c := mcpCall(k.name, gw.URL+"/mcp", b.memos.Token, k.body, isResult)
		var failed error
		for range 2 {
			if _, err := c.run(ctx); err != nil {
				failed = err
			}
		}
		reads[k.name] = rec.record(func() {
			if _, err := c.run(ctx); err != nil {
				failed = err
			}
		})
		if failed != nil {
			return nil, fmt.Errorf("row 11: recording %s's requests: %w", k.name, failed)
		}
	}
	return reads, nil
}

// readAll accepts the reader's answer to reads.
func readAll(reads kindReads) func([]byte) error {
	return func(body []byte) error {
		if n := gjson.GetBytes(body, "read").Int(); n != int64(len(reads)) {
			return fmt.Errorf("the reader read %d answers, not %d: %.200s", n, len(reads), body)
		}
		return nil
	}
}
