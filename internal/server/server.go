// Package server routes the gateway's HTTP requests: a description at /,
// health at /healthz, and MCP at /mcp. It is the top of the request path, so
// it also recovers from any panic below it.
package server

import (
	"cmp"
	"context"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Options configure a Server.
type Options struct {
	Config    config.Config
	ConfigErr error       // problems found in the configuration; /mcp refuses to serve while set
	WritesErr error       // a problem that refuses writes alone (no memo locks): /mcp serves reads; /healthz reports it
	MCP       web.Handler // serves /mcp
	// MemosVersion is the Memos release whose tools an instance is served
	// while the probe has placed it in none (the pinned one).
	MemosVersion string
	// ToolCount is the number of tools served in a release.
	ToolCount func(release string) int
	// Probe checks the upstream instance for /healthz.
	Probe func(context.Context) memos.Status
	// StartupMillis reports how long the runtime took to start this Go
	// instance, when it measured that.
	StartupMillis func() float64
	// WasmMemoryBytes reports the size of the WebAssembly linear memory the
	// Go instance runs in, or 0 when it runs natively.
	WasmMemoryBytes func() int64
	// AccessLog receives one JSON line per request; nil writes none.
	AccessLog io.Writer
	// OAuth, when set, answers the authorization server's paths
	// (/.well-known/…, /authorize, /token, /register, /revoke).
	OAuth Router
}

// Router answers the paths it owns; ok is false for any other.
type Router interface {
	Handle(ctx context.Context, req *web.Request) (resp *web.Response, ok bool)
}

// Server is the gateway's web.Handler.
type Server struct {
	opts     Options
	instance string // random id of this Go instance
	started  time.Time
	requests atomic.Int64
}

// New returns a Server for opts.
func New(opts Options) *Server {
	// The id only tells instances apart; math/rand is seeded by the runtime
	// and spares the wasm the whole crypto stack.
	id := strconv.FormatUint(rand.Uint64(), 16)
	return &Server{opts: opts, instance: strings.Repeat("0", 16-len(id)) + id, started: time.Now()}
}

// Serve answers one request and writes its access log line. A panic below
// it becomes a 500 and a log line; the Go instance keeps serving.
func (s *Server) Serve(ctx context.Context, req *web.Request) (resp *web.Response) {
	s.requests.Add(1)
	path := req.Path()
	logPath := path // the caller's text is not logged: unknown paths are "other"
	if !slices.Contains(loggedPaths, path) {
		logPath = "other"
	}
	ctx, entry := accesslog.Start(ctx, logPath)
	defer func() {
		if r := recover(); r != nil {
			logline.Print("panic serving ", req.Method, " ", path, ": ", logline.Value(r))
			resp = errorJSON(500, "internal error")
		}
		if s.opts.AccessLog != nil {
			entry.Write(s.opts.AccessLog, resp.Status)
		}
	}()
	if host := req.Host(); !hostAllowed(s.opts.Config.AllowedHosts, host) {
		return refuseHost(path, host)
	}
	if s.opts.OAuth != nil && path != "/mcp" {
		if resp, ok := s.opts.OAuth.Handle(ctx, req); ok {
			return resp
		}
	}
	switch path {
	case "/mcp":
		if s.opts.ConfigErr != nil {
			return errorJSON(503, "the gateway is misconfigured: "+s.opts.ConfigErr.Error())
		}
		return s.opts.MCP.Serve(ctx, req)
	case "/healthz":
		return s.health(ctx)
	case "/":
		return &web.Response{Status: 200, Header: web.Header{"content-type": "text/plain; charset=utf-8"}, Body: []byte(description)}
	}
	return errorJSON(404, "not found: the MCP endpoint is /mcp")
}

// loggedPaths are the paths the access log names.
var loggedPaths = []string{"/mcp", "/healthz", "/", "/authorize", "/token", "/register", "/revoke",
	"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}

const description = `memos-mcp-edge: a Model Context Protocol server for a Memos instance.

MCP endpoint: POST /mcp (Streamable HTTP, JSON responses, stateless).
Authenticate with your Memos access token: Authorization: Bearer <token>.
Health and configuration: GET /healthz.
`

// health reports configuration state, the Memos release whose tools the
// instance is served and this
// Go instance's identity and memory use, so that instance reuse and memory
// growth can be observed.
func (s *Server) health(ctx context.Context) *web.Response {
	var probe memos.Status
	if s.opts.ConfigErr == nil {
		probe = s.opts.Probe(ctx)
	}
	status := 200
	b := []byte(`{"status":`)
	switch {
	case s.opts.ConfigErr != nil:
		status = 503
		b = append(b, `"misconfigured","errors":[`...)
		for i, e := range strings.Split(s.opts.ConfigErr.Error(), "\n") {
			if i > 0 {
				b = append(b, ',')
			}
			b = rawjson.AppendString(b, e)
		}
		b = append(b, ']')
	case probe.Problem != "" || s.opts.WritesErr != nil:
		status = 503
		b = append(b, `"degraded"`...)
		if s.opts.WritesErr != nil {
			b = append(b, `,"errors":[`...)
			b = rawjson.AppendString(b, s.opts.WritesErr.Error())
			b = append(b, ']')
		}
	default:
		b = append(b, `"ok"`...)
	}
	b = append(b, `,"upstream":{"via":`...)
	switch {
	case s.opts.Config.MemosService != "":
		b = append(b, `"service binding"`...)
	case s.opts.Config.MemosURL != nil:
		b = append(b, `"url"`...)
	default:
		b = append(b, `"none"`...)
	}
	if s.opts.ConfigErr == nil {
		b = appendStatus(b, probe)
	}
	b = append(b, '}')
	b = append(b, `,"oauth":`...)
	b = strconv.AppendBool(b, s.opts.OAuth != nil)
	// The release whose tools the instance is served.
	release := cmp.Or(probe.Release, s.opts.MemosVersion)
	b = append(b, `,"registry":{"memosVersion":`...)
	b = rawjson.AppendString(b, release)
	b = append(b, `,"tools":`...)
	b = strconv.AppendInt(b, int64(s.opts.ToolCount(release)), 10)
	b = append(b, `},"instance":{"id":"`...)
	b = append(b, s.instance...)
	b = append(b, `","startedAt":"`...)
	b = s.started.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","requests":`...)
	b = strconv.AppendInt(b, s.requests.Load(), 10)
	if s.opts.StartupMillis != nil {
		b = append(b, `,"startupMs":`...)
		b = strconv.AppendFloat(b, s.opts.StartupMillis(), 'f', 2, 64)
	}
	b = s.appendMemory(b)
	b = append(b, "}}"...)
	return &web.Response{Status: status, Header: web.Header{"content-type": "application/json", "cache-control": "no-store"}, Body: b}
}

// appendMemory writes the instance's memory use, so that growth over many
// requests can be observed from outside (`make bench`): the Go heap
// (heapAlloc counts garbage not yet collected; heapSys and sys only grow)
// and, in the Worker, the wasm linear memory, the isolate's real footprint.
// ReadMemStats stops the world briefly, which is fine for a health check.
// (runtime/metrics would give the live heap, for 11 KB more gzip.)
func (s *Server) appendMemory(b []byte) []byte {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b = append(b, `,"memory":{"heapAlloc":`...)
	b = strconv.AppendUint(b, m.HeapAlloc, 10)
	b = append(b, `,"heapSys":`...)
	b = strconv.AppendUint(b, m.HeapSys, 10)
	b = append(b, `,"sys":`...)
	b = strconv.AppendUint(b, m.Sys, 10)
	b = append(b, `,"gcCycles":`...)
	b = strconv.AppendUint(b, uint64(m.NumGC), 10)
	if s.opts.WasmMemoryBytes != nil {
		if n := s.opts.WasmMemoryBytes(); n > 0 {
			b = append(b, `,"wasmBytes":`...)
			b = strconv.AppendInt(b, n, 10)
		}
	}
	return append(b, '}')
}

// appendStatus writes the probe's findings as members of the upstream object.
func appendStatus(b []byte, st memos.Status) []byte {
	b = append(b, `,"reachable":`...)
	b = strconv.AppendBool(b, st.Reachable)
	if st.HTTPStatus != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(st.HTTPStatus), 10)
	}
	if st.MemosVersion != "" {
		b = append(b, `,"memosVersion":`...)
		b = rawjson.AppendString(b, st.MemosVersion)
	}
	if st.Problem != "" {
		b = append(b, `,"problem":`...)
		b = rawjson.AppendString(b, st.Problem)
	}
	return b
}

func errorJSON(status int, msg string) *web.Response {
	b := append(rawjson.AppendString([]byte(`{"error":`), msg), '}')
	return &web.Response{Status: status, Header: web.Header{"content-type": "application/json"}, Body: b}
}

// hostAllowed reports whether host (host[:port], as the request names it)
// is one the gateway serves: the DNS-rebinding guard, for every path. An
// empty allowlist allows every host.
func hostAllowed(allowed []string, host string) bool {
	if len(allowed) == 0 {
		return true
	}
	name := hostname(host)
	for _, a := range allowed {
		a = strings.ToLower(strings.Trim(a, "[]"))
		if a == name || a == host {
			return true
		}
	}
	return false
}

// refuseHost answers a request for a host not served; at /mcp as a
// JSON-RPC error, which is what MCP clients read.
func refuseHost(path, host string) *web.Response {
	msg := "forbidden: this endpoint does not answer to host " + string(rawjson.AppendString(nil, host)) + " (see ALLOWED_HOSTS)"
	if path != "/mcp" {
		return errorJSON(403, msg)
	}
	body := jsonrpc.ErrorResponse(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg})
	return &web.Response{Status: 403, Header: web.Header{"content-type": "application/json"}, Body: body}
}

// hostname drops the port and IPv6 brackets from host[:port].
func hostname(host string) string {
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i > 0 {
			return host[1:i]
		}
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[:i], ":") {
		return host[:i]
	}
	return host
}
