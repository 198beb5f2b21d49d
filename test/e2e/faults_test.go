//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
	"github.com/tidwall/gjson"
)

// Settings of the gateway that runs behind the fault proxy: a short upstream
// timeout, so that a stall costs little, and a small response cap, which the
// normal answers the tests read stay well under.
const (
	faultTimeoutMs = "1500"
	faultMaxBytes  = "16384"
	// stallLimit bounds how long the proxy holds a stalled request when the
	// gateway does not hang up first.
	stallLimit = 10 * time.Second
)

// faultProxy stands between a gateway and the real Memos, on loopback. It
// passes requests through, or answers as a broken upstream would, or is not
// there at all (refuse), while keeping its address.
type faultProxy struct {
	addr string // host:port, the same across refuse and serve
	pass http.Handler

	mu     sync.Mutex
	srv    *http.Server
	fault  http.HandlerFunc // nil passes through
	bearer []string         // Authorization headers of passed-through requests
	paths  []string         // the path of every request it got, faults included
}

func startFaultProxy(t *testing.T) *faultProxy {
	t.Helper()
	target, err := url.Parse(memos.URL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{addr: ln.Addr().String(), pass: httputil.NewSingleHostReverseProxy(target)}
	p.serveOn(ln)
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) URL() string { return "http://" + p.addr }

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	fault := p.fault
	p.paths = append(p.paths, r.URL.Path)
	if fault == nil {
		p.bearer = append(p.bearer, r.Header.Get("Authorization"))
	}
	p.mu.Unlock()
	if fault != nil {
		fault(w, r)
		return
	}
	p.pass.ServeHTTP(w, r)
}

func (p *faultProxy) serveOn(ln net.Listener) {
	srv := &http.Server{Handler: p}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	go srv.Serve(ln)
}

// releaseCheck reports whether path is a route the gateway asks of an
// instance that reports no release it knows (a source build says "dev"),
// to tell the releases apart: its own request, as the profile's is, made
// without a caller's token.
func releaseCheck(path string) bool {
	for _, r := range registry.Releases() {
		if m := r.Marker(); m != "" && m == path {
			return true
		}
	}
	return false
}

// requests returns how many requests the proxy got for paths other than
// the instance profile (which health checks and version learning read)
// and the route that tells the releases apart, and how many for the
// profile.
func (p *faultProxy) requests() (tools, profile int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, path := range p.paths {
		switch {
		case path == "/api/v1/instance/profile":
			profile++
		case !releaseCheck(path):
			tools++
		}
	}
	return tools, profile
}

// set makes every later request get fault (nil: pass through to Memos).
func (p *faultProxy) set(fault http.HandlerFunc) {
	p.mu.Lock()
	p.fault = fault
	p.mu.Unlock()
}

// refuse closes the listener and every connection, so that connections to
// the address are refused until serve.
func (p *faultProxy) refuse() { p.close() }

func (p *faultProxy) close() {
	p.mu.Lock()
	srv := p.srv
	p.srv = nil
	p.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// serve listens on the proxy's address again after refuse.
func (p *faultProxy) serve(t *testing.T) {
	t.Helper()
	var err error
	for range 50 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			p.serveOn(ln)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("listen on %s again: %v", p.addr, err)
}

// otherHost stands for a host the upstream redirects to. It records what
// reaches it and would answer like Memos, so that a followed redirect shows.
type otherHost struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	leaks    []string // where the caller's credentials showed up
}

func startOtherHost(t *testing.T) *otherHost {
	t.Helper()
	o := &otherHost{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.requests++
		if v := r.Header.Get("Authorization"); v != "" {
			o.leaks = append(o.leaks, "an Authorization header")
		}
		raw, _ := httputil.DumpRequest(r, true)
		if strings.Contains(string(raw), memos.Token) {
			o.leaks = append(o.leaks, "the token in "+r.Method+" "+r.URL.Path)
		}
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"memos/elsewhere","content":"answered by the other host"}`))
	}))
	t.Cleanup(o.Close)
	return o
}

// Fault handlers, each answering as one kind of broken upstream would.

func answer(status int, ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// stall holds the request without answering until the gateway gives up
// (or stallLimit passes); with headers true it first sends the status line
// and part of a body.
func stall(headers bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if headers {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.Write([]byte(`{"name":"memos/`))
			http.NewResponseController(w).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(stallLimit):
		}
	}
}

// hangUp closes the connection without any answer.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// streamed sends body in flushed pieces of a thousand bytes: chunked, with
// no Content-Length, as Memos sends any answer over 2 KB.
func streamed(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for len(body) > 0 {
			n := min(len(body), 1000)
			if _, err := w.Write([]byte(body[:n])); err != nil {
				return
			}
			http.NewResponseController(w).Flush()
			body = body[n:]
		}
	}
}

// oversized streams a valid JSON object of size bytes in flushed chunks.
func oversized(size int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"content":"`))
		chunk := []byte(strings.Repeat("x", 16384))
		for written := 0; written < size; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the gateway stopped reading at its cap
			}
			http.NewResponseController(w).Flush()
		}
		w.Write([]byte(`"}`))
	}
}

func redirectTo(base string, status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, base+r.URL.RequestURI(), status)
	}
}

const nginx502 = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`

// Every kind of upstream failure gives its clear tool error, and the Go
// instance that reported it answers the next normal call correctly.
func TestFaultInjection(t *testing.T) {
	content := "the memo the fault tests read back #e2efaults"
	memo := newTools(t, memos.Token).createMemo(content, "PRIVATE")
	proxy := startFaultProxy(t)
	other := startOtherHost(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{
		"MEMOS_URL": proxy.URL(), "UPSTREAM_TIMEOUT_MS": faultTimeoutMs, "MAX_RESPONSE_BYTES": faultMaxBytes,
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs := connect(t, ctx, gw.URL+"/mcp", memos.Token, "")
	client := &http.Client{}
	first := getHealth(t, client, gw.URL)
	if first.Status != "ok" || first.Instance.ID == "" {
		t.Fatalf("gateway health before the faults: %+v", first)
	}

	const (
		unreachable = "the Memos instance cannot be reached: check that it is up and that MEMOS_URL (or MEMOS_SERVICE) points at it"
		timedOut    = "Memos did not answer within 1.5s (UPSTREAM_TIMEOUT_MS): the instance is slow or unreachable"
		redirected  = ": the instance's address answered with a redirect, which is not followed (it would take your token elsewhere): set MEMOS_URL to the instance's final address"
		tooLarge    = "the Memos answer is larger than MAX_RESPONSE_BYTES (" + faultMaxBytes + " bytes): ask for less, e.g. with a smaller pageSize or a filter"
	)
	// sized is the memo as Memos answers it, with its content padded to make
	// the whole answer size bytes.
	maxBytes, _ := strconv.Atoi(faultMaxBytes)
	asMemos := newTools(t, memos.Token).ok("memo_get_memo", map[string]any{"memo": memo})
	asMemos["content"] = ""
	bare, _ := json.Marshal(asMemos)
	sized := func(size int) string {
		asMemos["content"] = strings.Repeat("x", size-len(bare))
		b, _ := json.Marshal(asMemos)
		return string(b)
	}
	cases := []struct {
		name  string
		fault http.HandlerFunc // nil with refuse
		want  string
	}{
		{name: "connection refused", want: unreachable},
		{name: "connection closed without an answer", fault: hangUp, want: unreachable},
		{name: "stall before the answer", fault: stall(false), want: timedOut},
		{name: "stall in the middle of the body", fault: stall(true), want: timedOut},
		{name: "500 with Memos' JSON error", fault: answer(500, "application/json", `{"code":13,"message":"failed to get memo: database is locked","details":[]}`),
			want: "500 Internal Server Error: failed to get memo: database is locked"},
		{name: "502 HTML page of a proxy", fault: answer(502, "text/html", nginx502),
			want: "502 Bad Gateway from the proxy or tunnel in front of Memos, not from Memos: check that Memos and its Cloudflare Tunnel (cloudflared) are running and that MEMOS_URL is right"},
		{name: "invalid JSON", fault: answer(200, "application/json", `{"name":"memos/abc","content":"cut off`),
			want: "the upstream answered with something other than Memos' JSON: check that MEMOS_URL points at the Memos instance"},
		// Deeper than any answer of Memos' API: passed on, it made the Go
		// SDK refuse the result and close this session.
		{name: "JSON nested 8,000 deep", fault: answer(200, "application/json", strings.Repeat("[", 8000)+strings.Repeat("]", 8000)),
			want: "the upstream answered with JSON nested more than 512 levels deep, which Memos never sends: check that MEMOS_URL points at the Memos instance"},
		{name: "HTML page with 200", fault: answer(200, "text/html; charset=utf-8", "<!doctype html><title>Sign in</title><form></form>"),
			want: "the upstream answered with an HTML page instead of Memos' API: check that MEMOS_URL is the base URL of the Memos instance (without /api/v1) and, if Cloudflare Access protects it, set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"},
		{name: "body over MAX_RESPONSE_BYTES", fault: oversized(1 << 20), want: tooLarge},
		{name: "chunked body one byte over MAX_RESPONSE_BYTES", fault: streamed(sized(maxBytes + 1)), want: tooLarge},
		{name: "302 to another host", fault: redirectTo(other.URL, http.StatusFound), want: "302 Found" + redirected},
		{name: "307 to another host", fault: redirectTo(other.URL, http.StatusTemporaryRedirect), want: "307 Temporary Redirect" + redirected},
		{name: "308 to another host", fault: redirectTo(other.URL, http.StatusPermanentRedirect), want: "308 Permanent Redirect" + redirected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &tools{t: t, ctx: ctx, cs: cs}
			if tc.fault == nil {
				proxy.refuse()
			} else {
				proxy.set(tc.fault)
			}
			msg := c.fails("memo_get_memo", map[string]any{"memo": memo})
			if tc.fault == nil {
				proxy.serve(t)
			} else {
				proxy.set(nil)
			}
			if msg != tc.want {
				t.Errorf("tool error\n got  %q\nwant %q", msg, tc.want)
			}
			// The same instance answers a normal call correctly afterwards.
			if got := c.ok("memo_get_memo", map[string]any{"memo": memo}); str(got, "name") != memo || str(got, "content") != content {
				t.Errorf("normal call after the fault: %v", got)
			}
			if h := getHealth(t, client, gw.URL); h.Instance.ID != first.Instance.ID || h.Status != "ok" {
				t.Errorf("after the fault: status %q, instance %s (was %s)", h.Status, h.Instance.ID, first.Instance.ID)
			}
		})
	}

	// An answer of exactly MAX_RESPONSE_BYTES, chunked, reaches the client
	// whole: the entry module reads a body of unknown length in pieces it
	// sizes itself, and the last of them ends at the cap.
	t.Run("chunked body of exactly MAX_RESPONSE_BYTES", func(t *testing.T) {
		body := sized(maxBytes)
		proxy.set(streamed(body))
		defer proxy.set(nil)
		c := &tools{t: t, ctx: ctx, cs: cs}
		if got := c.ok("memo_get_memo", map[string]any{"memo": memo}); len(body) != maxBytes || str(got, "content") != gjson.Get(body, "content").Str {
			t.Errorf("an answer of %d bytes: got %.200v", len(body), got)
		}
	})

	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.leaks) > 0 {
		t.Errorf("the caller's credentials reached the other host: %v", other.leaks)
	}
	t.Logf("the other host got %d requests, none with credentials", other.requests)
	// The proxy is the configured upstream, so the token does reach it:
	// that the other host never saw it is the gateway's doing.
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	if !slices.Contains(proxy.bearer, "Bearer "+memos.Token) {
		t.Errorf("the configured upstream did not get the caller's Authorization header (%d requests)", len(proxy.bearer))
	}
	t.Logf("%d faults, each a clear tool error; one Go instance (%s) throughout", len(cases), first.Instance.ID)
}
