package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

func newTestServer(mcp web.Handler, cfgErr error) *Server {
	return New(Options{
		ConfigErr:    cfgErr,
		MCP:          mcp,
		MemosVersion: "v0.30.0",
		ToolCount:    func(string) int { return 20 },
		Probe: func(context.Context) memos.Status {
			return memos.Status{Reachable: true, HTTPStatus: 200, MemosVersion: "dev"}
		},
		StartupMillis:   func() float64 { return 12.5 },
		WasmMemoryBytes: func() int64 { return 4 << 20 },
	})
}

var okMCP = web.HandlerFunc(func(context.Context, *web.Request) *web.Response {
	return &web.Response{Status: 200, Header: web.Header{}, Body: []byte(`{"mcp":true}`)}
})

func get(s *Server, url string) *web.Response {
	return s.Serve(context.Background(), &web.Request{Method: "GET", URL: url, Header: web.Header{}})
}

func TestRoutes(t *testing.T) {
	s := newTestServer(okMCP, nil)
	for _, tc := range []struct {
		name, url  string
		status     int
		bodyPrefix string
	}{
		{name: "mcp", url: "https://mcp.example.com/mcp", status: 200, bodyPrefix: `{"mcp":true}`},
		{name: "mcp with query", url: "https://mcp.example.com/mcp?x=1", status: 200, bodyPrefix: `{"mcp":true}`},
		{name: "description", url: "https://mcp.example.com/", status: 200, bodyPrefix: "memos-mcp-edge"},
		{name: "health", url: "https://mcp.example.com/healthz", status: 200, bodyPrefix: `{"status":"ok"`},
		{name: "unknown", url: "https://mcp.example.com/mcp/extra", status: 404, bodyPrefix: `{"error":"not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(s, tc.url)
			if resp.Status != tc.status || !strings.HasPrefix(string(resp.Body), tc.bodyPrefix) {
				t.Errorf("%s: %d %s, want %d %s…", tc.url, resp.Status, resp.Body, tc.status, tc.bodyPrefix)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.Config = config.Config{MemosService: "MEMOS"}
	first := get(s, "http://h/healthz")
	second := get(s, "http://h/healthz")
	body := gjson.ParseBytes(second.Body)
	for path, want := range map[string]string{
		"status":                "ok",
		"upstream.via":          "service binding",
		"upstream.reachable":    "true",
		"upstream.memosVersion": "dev",
		"registry.memosVersion": "v0.30.0",
		"registry.tools":        "20",
		"oauth":                 "false",
		"instance.requests":     "2",
		"instance.startupMs":    "12.5",
	} {
		if got := body.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q (%s)", path, got, want, second.Body)
		}
	}
	if id := gjson.GetBytes(first.Body, "instance.id").String(); len(id) != 16 || id != body.Get("instance.id").String() {
		t.Errorf("instance id %q changed or malformed: %s", id, second.Body)
	}
	mem := body.Get("instance.memory")
	if mem.Get("wasmBytes").Int() != 4<<20 || mem.Get("heapAlloc").Int() <= 0 ||
		mem.Get("heapSys").Int() < mem.Get("heapAlloc").Int() || mem.Get("sys").Int() < mem.Get("heapSys").Int() ||
		!mem.Get("gcCycles").Exists() {
		t.Errorf("instance.memory = %s", mem.Raw)
	}
}

// Natively there is no linear memory: the Go heap is reported without it.
func TestHealthMemoryNative(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.WasmMemoryBytes = nil
	mem := gjson.GetBytes(get(s, "http://h/healthz").Body, "instance.memory")
	if mem.Get("wasmBytes").Exists() || mem.Get("heapAlloc").Int() <= 0 {
		t.Errorf("instance.memory = %s", mem.Raw)
	}
}

func TestMisconfigured(t *testing.T) {
	cfgErr := errors.Join(errors.New("MEMOS_URL is not set"), errors.New(`MAX_BODY_BYTES "x" is not a positive integer`))
	s := newTestServer(okMCP, cfgErr)
	mcp := s.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://h/mcp", Header: web.Header{}})
	if mcp.Status != 503 || !strings.Contains(string(mcp.Body), "misconfigured: MEMOS_URL is not set") {
		t.Errorf("/mcp: %d %s", mcp.Status, mcp.Body)
	}
	health := get(s, "http://h/healthz")
	if health.Status != 503 || gjson.GetBytes(health.Body, "status").String() != "misconfigured" ||
		gjson.GetBytes(health.Body, "errors.#").Int() != 2 || gjson.GetBytes(health.Body, "upstream.reachable").Exists() {
		t.Errorf("/healthz: %d %s", health.Status, health.Body)
	}
}

// A panic below the server becomes a 500, and the same server keeps serving.
func TestPanicIsContained(t *testing.T) {
	calls := 0
	s := newTestServer(web.HandlerFunc(func(ctx context.Context, r *web.Request) *web.Response {
		calls++
		if calls == 1 {
			var m map[string]int
			m["boom"]++ // nil map write
		}
		return okMCP(ctx, r)
	}), nil)
	if resp := get(s, "http://h/mcp"); resp.Status != 500 || string(resp.Body) != `{"error":"internal error"}` {
		t.Errorf("panicking request: %d %s", resp.Status, resp.Body)
	}
	if resp := get(s, "http://h/mcp"); resp.Status != 200 {
		t.Errorf("request after the panic: %d %s", resp.Status, resp.Body)
	}
}

// The Host allowlist guards every path, not only /mcp: a page that rebinds
// its DNS name to the gateway reads nothing, health included.
func TestHostAllowlist(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.Config.AllowedHosts = []string{"mcp.example.com", "127.0.0.1", "[::1]"}
	for _, tc := range []struct {
		name, url string
		status    int
		body      string
	}{
		{name: "allowed", url: "https://mcp.example.com/mcp", status: 200, body: `{"mcp":true}`},
		{name: "allowed with port", url: "http://127.0.0.1:8787/healthz", status: 200},
		{name: "allowed IPv6", url: "http://[::1]:8787/", status: 200},
		{name: "mcp", url: "https://evil.example.com/mcp", status: 403,
			body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"forbidden: this endpoint does not answer to host \"evil.example.com\" (see ALLOWED_HOSTS)"}}`},
		{name: "health", url: "https://evil.example.com/healthz", status: 403,
			body: `{"error":"forbidden: this endpoint does not answer to host \"evil.example.com\" (see ALLOWED_HOSTS)"}`},
		{name: "description", url: "http://evil.example.com:8787/", status: 403,
			body: `{"error":"forbidden: this endpoint does not answer to host \"evil.example.com:8787\" (see ALLOWED_HOSTS)"}`},
		{name: "unknown path", url: "https://evil.example.com/x", status: 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(s, tc.url)
			if resp.Status != tc.status || tc.body != "" && string(resp.Body) != tc.body {
				t.Errorf("%s: %d %s, want %d %s", tc.url, resp.Status, resp.Body, tc.status, tc.body)
			}
		})
	}
}

// ALLOWED_HOSTS written as the endpoint's URL: /healthz at the host the URL
// names says what to write instead (it answered 403 like every path), and
// other hosts are still refused.
func TestHealthNamesAllowedHostsMistake(t *testing.T) {
	vars := map[string]string{"MEMOS_URL": "https://memos.example.com", "ALLOWED_HOSTS": "https://mcp.example.com/"}
	cfg, err := config.Load(func(k string) string { return vars[k] }, func(string) bool { return false })
	s := newTestServer(okMCP, err)
	s.opts.Config = cfg
	health := get(s, "https://mcp.example.com/healthz")
	if health.Status != 503 || !strings.Contains(gjson.GetBytes(health.Body, "errors.0").String(), `"https://mcp.example.com/" is a URL: write the host name alone, mcp.example.com`) {
		t.Errorf("/healthz at the host the URL names: %d %s", health.Status, health.Body)
	}
	if resp := get(s, "https://evil.example.com/healthz"); resp.Status != 403 {
		t.Errorf("/healthz at another host: %d %s", resp.Status, resp.Body)
	}
}

// Every request leaves one JSON line in the access log, a panicking one too.
func TestAccessLog(t *testing.T) {
	var logs strings.Builder
	calls := 0
	s := newTestServer(web.HandlerFunc(func(ctx context.Context, r *web.Request) *web.Response {
		calls++
		if calls == 2 {
			panic("bug")
		}
		return okMCP(ctx, r)
	}), nil)
	s.opts.AccessLog = &logs
	get(s, "http://h/mcp?q=1")
	get(s, "http://h/mcp")
	get(s, "http://h/memos_pat_secret")
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), logs.String())
	}
	for i, want := range []string{`"path":"/mcp","status":200`, `"path":"/mcp","status":500`, `"path":"other","status":404`} {
		if !gjson.Valid(lines[i]) || !strings.Contains(lines[i], want) {
			t.Errorf("line %d %s, want %s", i, lines[i], want)
		}
	}
	if strings.Contains(logs.String(), "q=1") || strings.Contains(logs.String(), "secret") {
		t.Errorf("the query reached the log: %s", logs.String())
	}
}

// /healthz says whether OAuth is on.
func TestHealthOAuth(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.OAuth = routerFunc(func(context.Context, *web.Request) (*web.Response, bool) { return nil, false })
	if got := gjson.GetBytes(get(s, "http://h/healthz").Body, "oauth").Raw; got != "true" {
		t.Errorf("oauth = %s with an authorization server, want true", got)
	}
}

// An upstream problem makes the health check fail, with the problem shown.
func TestHealthDegraded(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.Probe = func(context.Context) memos.Status {
		return memos.Status{Reachable: true, HTTPStatus: 200, MemosVersion: "0.31.0", Problem: "the instance runs Memos 0.31.0"}
	}
	resp := get(s, "http://h/healthz")
	body := gjson.ParseBytes(resp.Body)
	if resp.Status != 503 || body.Get("status").Str != "degraded" || body.Get("upstream.problem").Str != "the instance runs Memos 0.31.0" {
		t.Errorf("healthz %d %s", resp.Status, resp.Body)
	}
}

// A problem that refuses writes alone leaves /mcp serving and is listed by
// the health check, which reports the gateway degraded.
func TestHealthWritesRefused(t *testing.T) {
	s := newTestServer(okMCP, nil)
	s.opts.WritesErr = errors.New("the Worker has no MEMO_LOCKS Durable Object binding")
	if mcp := s.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://h/mcp", Header: web.Header{}}); mcp.Status != 200 {
		t.Errorf("/mcp: %d %s", mcp.Status, mcp.Body)
	}
	resp := get(s, "http://h/healthz")
	body := gjson.ParseBytes(resp.Body)
	if resp.Status != 503 || body.Get("status").Str != "degraded" || body.Get("errors.0").Str != "the Worker has no MEMO_LOCKS Durable Object binding" ||
		!body.Get("upstream.reachable").Bool() {
		t.Errorf("healthz %d %s", resp.Status, resp.Body)
	}
}

// routerFunc is a Router made of a function.
type routerFunc func(context.Context, *web.Request) (*web.Response, bool)

func (f routerFunc) Handle(ctx context.Context, req *web.Request) (*web.Response, bool) {
	return f(ctx, req)
}
