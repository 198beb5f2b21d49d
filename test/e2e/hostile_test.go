//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// wasmCeiling is the most wasm memory an isolate may hold after any one
// hostile request. A fresh one holds about 10 MB; Cloudflare ends an isolate
// past 128 MB, and every request in flight on it with it. Wasm memory never
// shrinks, so the suite's requests add up on one isolate: each must leave
// it under the ceiling.
const wasmCeiling = 48 << 20

// hostileRequest is one request a caller without a token may send to make
// an isolate spend memory, or Memos requests, far beyond what it sends.
type hostileRequest struct {
	name   string
	path   string
	body   func() io.Reader
	length int64  // Content-Length; -1 sends the body chunked
	status int    // the answer's status; 0 when the runtime may hang up instead
	answer string // a part of the answer's body
}

// endless is a body of x's that never ends, cut to size by io.LimitReader.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// repeated returns "[" + item + "," + item … + "]" with n items.
func repeated(item string, n int) string {
	return "[" + strings.Repeat(item+",", n-1) + item + "]"
}

func hostileRequests() []hostileRequest {
	text := func(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }
	huge := func() io.Reader { return io.LimitReader(endless{}, 60<<20) }
	getMemo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":"memos/x"}}}`
	wrongItems := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memo_set_memo_relations","arguments":{"memo":"memos/x","body":{"relations":` +
		repeated("1", 500_000) + `}}}}`
	var keys strings.Builder
	for i := range 60_000 {
		fmt.Fprintf(&keys, `"k%d":1,`, i)
	}
	manyKeys := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{` + keys.String() + `"pageSize":1}}}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	return []hostileRequest{
		{name: "batch of 1,000 tools/list", path: "/mcp", body: text(repeated(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 1000)),
			status: 400, answer: "a batch may hold at most 16 messages"},
		{name: "batch of 16 tools/list", path: "/mcp", body: text(repeated(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 16)),
			status: 200, answer: `"tools":[`},
		{name: "1 MB batch of tool calls", path: "/mcp", body: text(repeated(getMemo, 1<<20/(len(getMemo)+1))),
			status: 400, answer: "a batch may hold at most 16 messages"},
		{name: "batch of 5 tool calls", path: "/mcp", body: text(repeated(getMemo, 5)),
			status: 400, answer: "a batch may hold at most 4 requests that ask Memos"},
		{name: "1 MB batch of empty objects", path: "/mcp", body: text(repeated("{}", 1<<20/3)),
			status: 400, answer: "a batch may hold at most 16 messages"},
		{name: "initialize in a batch", path: "/mcp", body: text("[" + initialize + `,{"jsonrpc":"2.0","id":2,"method":"ping"}]`),
			status: 200, answer: "initialize must not be part of a JSON-RPC batch"},
		{name: "60 MB to an unknown path", path: "/nowhere", body: huge, length: 60 << 20},
		{name: "60 MB to /mcp", path: "/mcp", body: huge, length: 60 << 20, status: 413, answer: "request body too large"},
		{name: "60 MB to /mcp, chunked", path: "/mcp", body: huge, length: -1},
		{name: "1 MB array of wrong-typed arguments", path: "/mcp", body: text(wrongItems),
			status: 200, answer: "arguments hold more than 10000 values"},
		{name: "60,000 unknown arguments", path: "/mcp", body: text(manyKeys),
			status: 200, answer: "arguments hold more than 10000 values"},
	}
}

// TestHostileCost sends each hostile request, without a token, to one fresh
// gateway, and after each one reads the isolate's wasm memory from /healthz:
// it stays under wasmCeiling, the same Go instance answers, and none of the
// requests reached Memos.
func TestHostileCost(t *testing.T) {
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	client := &http.Client{Timeout: time.Minute}
	first := getHealth(t, client, gw.URL)
	t.Logf("a fresh isolate: %.1f MB of wasm memory", float64(first.Instance.Memory.WasmBytes)/(1<<20))
	if first.Instance.Memory.WasmBytes == 0 {
		t.Fatal("/healthz does not report the wasm memory")
	}
	for _, tc := range hostileRequests() {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", gw.URL+tc.path, tc.body())
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = tc.length
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			switch {
			case err != nil && tc.status != 0:
				t.Errorf("no answer: %v", err)
			case err != nil:
				t.Logf("the runtime hung up: %v", err)
			default:
				body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				t.Logf("%d, %d bytes", resp.StatusCode, len(body))
				if tc.status != 0 && (resp.StatusCode != tc.status || !strings.Contains(string(body), tc.answer)) {
					t.Errorf("answer %d %.300s, want %d with %q", resp.StatusCode, body, tc.status, tc.answer)
				}
			}
			start := time.Now()
			h := getHealth(t, client, gw.URL)
			wasm := h.Instance.Memory.WasmBytes
			t.Logf("then /healthz in %v: %.1f MB of wasm memory", time.Since(start).Round(time.Millisecond), float64(wasm)/(1<<20))
			if h.Status != "ok" || h.Instance.ID != first.Instance.ID {
				t.Errorf("after the request: status %q, instance %s (was %s)", h.Status, h.Instance.ID, first.Instance.ID)
			}
			if wasm >= wasmCeiling {
				t.Errorf("wasm memory %d bytes, over the ceiling of %d", wasm, wasmCeiling)
			}
		})
	}
	if tools, _ := proxy.requests(); tools != 0 {
		t.Errorf("the hostile requests made %d requests to Memos, want none", tools)
	}
}

// A client that hangs up stops the work done for it: the tool calls of its
// batch that had not started never reach Memos, and the one under way is
// abandoned. A stand-in client in front of the gateway gives up after 1.5 s
// on a batch of four calls to an upstream that never answers, each of which
// would otherwise wait out its 1 s timeout in turn.
func TestClientHangUpStopsWork(t *testing.T) {
	proxy := startFaultProxy(t)
	front, err := filepath.Abs("testdata/hangup-worker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "front.toml")
	toml := "name = \"hang-up-client\"\nmain = " + quoteTOML(front) + "\ncompatibility_date = \"2026-11-01\"\n\n" +
		"[[services]]\nbinding = \"GATEWAY\"\nservice = \"memos-mcp-edge\"\n"
	if err := os.WriteFile(config, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := startGateway(t, harness.WorkerOptions{Front: config, Vars: map[string]string{"MEMOS_URL": proxy.URL(), "UPSTREAM_TIMEOUT_MS": "1000"}})
	// The token is checked with Memos before the upstream stalls, as a
	// client's first request does; the isolate remembers it.
	if status, _ := mcpStatus(t, gw.URL, memos.Token); status != 200 {
		t.Fatalf("tools/list before the stall: %d", status)
	}
	checked, _ := proxy.requests()
	proxy.set(stall(false))
	getMemo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":"memos/x"}}}`
	req, err := http.NewRequest("POST", gw.URL+"/mcp", strings.NewReader(repeated(getMemo, 4)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+memos.Token)
	req.Header.Set("X-Hang-Up-After-Ms", "1500")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 499 {
		t.Fatalf("the stand-in client did not hang up: %d %s", resp.StatusCode, body)
	}
	// Other clients keep the isolate busy meanwhile, as in production: the
	// Go instance they wake would carry on with the batch if nothing
	// stopped it. Its log has a line for each call it made; those made
	// after the hang-up may never reach Memos, as the runtime drops what
	// a request it cancelled still sends.
	client := &http.Client{}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		getHealth(t, client, gw.URL)
	}
	attempts := strings.Count(gw.Log(), "tool memo_get_memo: GET /api/v1/memos/{memo}:")
	tools, _ := proxy.requests()
	tools -= checked
	t.Logf("the gateway made %d of the batch's 4 calls; Memos got %d", attempts, tools)
	if attempts > 2 || tools > 2 {
		t.Errorf("after the client hung up at 1.5 s, the gateway made %d of the batch's 4 calls and Memos got %d; want at most 2", attempts, tools)
	}
}

// /healthz follows the Host allowlist, probes the instance at most once per
// few seconds however often it is asked, and, while the gateway is
// misconfigured, names the bad setting without quoting its value.
func TestHealthHardening(t *testing.T) {
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	client := &http.Client{}
	_, before := proxy.requests()
	for range 20 {
		if h := getHealth(t, client, gw.URL); h.Status != "ok" {
			t.Fatalf("healthz %+v", h)
		}
	}
	if _, after := proxy.requests(); after-before > 1 {
		t.Errorf("20 health checks sent %d probes to Memos, want at most 1", after-before)
	}

	for _, path := range []string{"/healthz", "/", "/mcp", "/nowhere"} {
		req, _ := http.NewRequest("GET", gw.URL+path, nil)
		req.Host = "rebound.example.com"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(body), `does not answer to host \"rebound.example.com\"`) {
			t.Errorf("%s with a foreign Host: %d %s", path, resp.StatusCode, body)
		}
	}

	bad := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": "https://private-memos.example.com?"}})
	status, h := healthOf(t, bad.URL)
	errs := fmt.Sprint(h["errors"])
	if status != 503 || !strings.Contains(errs, "MEMOS_URL must not carry credentials, a query or a fragment") {
		t.Errorf("healthz of a gateway with an empty query in MEMOS_URL: %d %v", status, h)
	}
	resp, err := http.Post(bad.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for what, text := range map[string]string{"/healthz": fmt.Sprint(h), "/mcp": string(body)} {
		if strings.Contains(text, "private-memos") {
			t.Errorf("%s quotes MEMOS_URL: %s", what, text)
		}
	}
}

// An upstream that redirects to a login proxy echoing the original URL does
// not carry the call's arguments into the log.
func TestRedirectTargetLoggedWithoutQuery(t *testing.T) {
	const marker = "redirectmarker8c1e"
	proxy := startFaultProxy(t)
	other := startOtherHost(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	c := toolsAt(t, gw.URL, memos.Token) // connecting checks the token with Memos first
	proxy.set(redirectTo(other.URL+"/oauth2/start?rd=", http.StatusFound))
	if msg := c.fails("memo_list_memos", map[string]any{"filter": `content.contains("` + marker + `")`}); !strings.HasPrefix(msg, "302 Found") {
		t.Fatalf("tool error %q", msg)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(gw.Log(), "redirect to") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // wrangler relays the Worker's output asynchronously
	}
	logs := gw.Log()
	if !strings.Contains(logs, "redirect to "+other.URL+"/oauth2/start") {
		t.Fatalf("no log line names the redirect's target:\n%s", logs)
	}
	if strings.Contains(logs, marker) {
		t.Errorf("an argument value reached the log through the redirect's target")
	}
}

// A wrangler dev run by hand with the repository's configuration, with no
// ALLOWED_HOSTS of its own, refuses a DNS-rebinding request: a foreign Host
// with a matching Origin.
func TestHandRunDevRefusesRebinding(t *testing.T) {
	w, err := harness.StartWorker(context.Background(), harness.WorkerOptions{
		Root: root, Dir: t.TempDir(), Vars: map[string]string{"MEMOS_URL": memos.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, path := range []string{"/mcp", "/healthz", "/authorize"} {
		req, _ := http.NewRequest("POST", w.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = "rebound.example.com"
		req.Header.Set("Origin", "http://rebound.example.com")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("%s with a rebound Host: %d, want 403", path, resp.StatusCode)
		}
	}
	if h := getHealth(t, &http.Client{}, w.URL); h.Instance.ID == "" {
		t.Errorf("the loopback host is refused: %+v", h)
	}
}
