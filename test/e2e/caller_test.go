//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// passedAccess is a stand-in for Cloudflare Access in front of Memos that
// records every request it let through with the service token: its path
// and the Authorization it carried.
type passedAccess struct {
	mu     sync.Mutex
	passed []string // "Bearer x /api/v1/…"
}

func startPassedAccess(t *testing.T, id, secret string) (string, *passedAccess) {
	t.Helper()
	target, _ := url.Parse(memos.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	a := &passedAccess{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("CF-Access-Client-Id") != id || r.Header.Get("CF-Access-Client-Secret") != secret {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!DOCTYPE html><html><head><title>Sign in ・ Cloudflare Access</title></head><body></body></html>`)
			return
		}
		a.mu.Lock()
		a.passed = append(a.passed, r.Header.Get("Authorization")+" "+r.URL.Path)
		a.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, a
}

// startBehindAccess runs a gateway without OAuth whose Memos is behind an
// Access stand-in, which it passes with a service token.
func startBehindAccess(t *testing.T) (*harness.Worker, *passedAccess) {
	const id, secret = "stand-in.access", "stand-in-secret"
	standIn, access := startPassedAccess(t, id, secret)
	return startGateway(t, harness.WorkerOptions{Vars: map[string]string{
		"MEMOS_URL": standIn, "CF_ACCESS_CLIENT_ID": id, "CF_ACCESS_CLIENT_SECRET": secret,
	}}), access
}

// with returns what passed with the Authorization header value auth.
func (a *passedAccess) with(auth string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var paths []string
	for _, p := range a.passed {
		if rest, ok := strings.CutPrefix(p, auth+" "); ok {
			paths = append(paths, rest)
		}
	}
	return paths
}

// rpcPost sends one JSON-RPC message to /mcp with the Authorization given
// ("" for none) and returns the answer.
func rpcPost(t *testing.T, base, authorization, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

const (
	initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`
	listBody       = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	whoAmIBody     = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"auth_get_current_user","arguments":{}}}`
	listMemosBody  = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{}}}`
)

// refusedToken checks an answer of 401 with the invalid_token challenge and
// a JSON body that says what is wrong.
func refusedToken(t *testing.T, what string, resp *http.Response, body string) {
	t.Helper()
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != 401 || !strings.HasPrefix(challenge, `Bearer error="invalid_token"`) ||
		gjson.Get(body, "error").Str != "invalid_token" || !strings.Contains(gjson.Get(body, "error_description").Str, "Memos does not accept this access token") {
		t.Errorf("%s: %d, WWW-Authenticate %q, %s; want 401 invalid_token", what, resp.StatusCode, challenge, body)
	}
}

// newMemosToken creates a personal access token in Memos for the suite's
// user, and returns it with the name that deletes it.
func newMemosToken(t *testing.T) (token, name string) {
	t.Helper()
	b := memosAPI(t, "POST", "/api/v1/users/"+memos.Username+"/personalAccessTokens", `{"description":"e2e caller","expiresInDays":0}`)
	token, name = gjson.Get(b, "token").Str, gjson.Get(b, "personalAccessToken.name").Str
	if !strings.HasPrefix(token, patPrefix) || name == "" {
		t.Fatalf("create token: %.100s", strings.ReplaceAll(b, token, "<token>"))
	}
	return token, name
}

// memosAPI calls Memos directly with the suite's token.
func memosAPI(t *testing.T, method, path, body string) string {
	t.Helper()
	req, _ := http.NewRequest(method, memos.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+memos.Token)
	resp, err := plainTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return string(b)
}

// Without OAuth, a caller's token goes upstream with the Access service
// token only once Memos has accepted it: a made-up token, a deleted one and
// a credential of another scheme get 401 invalid_token at once (connect
// included), and what reaches Memos of them is one question, GET
// /api/v1/auth/me; a real token works; no credentials at all stay anonymous.
func TestVerifiedCallers(t *testing.T) {
	gw, access := startBehindAccess(t)

	t.Run("made-up token", func(t *testing.T) {
		const made = "Bearer not-a-real-token"
		for _, body := range []string{initializeBody, listBody, listMemosBody} {
			resp, answer := rpcPost(t, gw.URL, made, body)
			refusedToken(t, gjson.Get(body, "method").Str, resp, answer)
		}
		if got := access.with(made); len(got) != 1 || got[0] != "/api/v1/auth/me" {
			t.Errorf("passed Access with the made-up token: %v; want one /api/v1/auth/me", got)
		}
	})

	t.Run("another scheme", func(t *testing.T) {
		const basic = "Basic bm90OmEtcmVhbC10b2tlbg=="
		resp, answer := rpcPost(t, gw.URL, basic, listMemosBody)
		if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer error="invalid_request"`) || gjson.Get(answer, "error").Str != "invalid_request" {
			t.Errorf("%d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), answer)
		}
		if got := access.with(basic); len(got) != 0 {
			t.Errorf("passed Access with a Basic credential: %v", got)
		}
	})

	t.Run("deleted token never seen", func(t *testing.T) {
		token, name := newMemosToken(t)
		memosAPI(t, "DELETE", "/api/v1/"+name, "")
		resp, answer := rpcPost(t, gw.URL, "Bearer "+token, initializeBody)
		refusedToken(t, "initialize", resp, answer)
		// The Go SDK client cannot connect, and says it was refused.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := connectErr(ctx, gw.URL+"/mcp", token); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("connect with a deleted token: %v", err)
		}
		if got := access.with("Bearer " + token); len(got) != 1 || got[0] != "/api/v1/auth/me" {
			t.Errorf("passed Access with the deleted token: %v; want one /api/v1/auth/me", got)
		}
	})

	t.Run("token deleted during a session", func(t *testing.T) {
		token, name := newMemosToken(t)
		c := toolsAt(t, gw.URL, token)
		if user := c.ok("auth_get_current_user", nil); str(user, "user.name") != "users/"+memos.Username {
			t.Fatalf("current user: %v", user)
		}
		memosAPI(t, "DELETE", "/api/v1/"+name, "")
		// Whether the gateway still holds the acceptance (the tool call
		// finds Memos refusing it) or asks again, the answer is 401.
		resp, answer := rpcPost(t, gw.URL, "Bearer "+token, whoAmIBody)
		refusedToken(t, "the call after the deletion", resp, answer)
		resp, answer = rpcPost(t, gw.URL, "Bearer "+token, listMemosBody)
		refusedToken(t, "the next request", resp, answer)
	})

	t.Run("real token", func(t *testing.T) {
		c := toolsAt(t, gw.URL, memos.Token)
		if user := c.ok("auth_get_current_user", nil); str(user, "user.name") != "users/"+memos.Username {
			t.Errorf("current user: %v", user)
		}
		c.ok("memo_list_memos", nil)
	})

	t.Run("no credentials", func(t *testing.T) {
		resp, answer := rpcPost(t, gw.URL, "", listMemosBody)
		if resp.StatusCode != 200 || !strings.Contains(gjson.Get(answer, "result.content.0.text").Str, "behind Cloudflare Access") {
			t.Errorf("%d %s", resp.StatusCode, answer)
		}
		// The gateway's own probes, of the instance profile and of the
		// route that tells the releases apart (for an instance that
		// reports no release, as a source build's "dev"), are the only
		// requests that pass Access without a caller's token.
		for _, path := range access.with("") {
			if path != "/api/v1/instance/profile" && !releaseCheck(path) {
				t.Errorf("passed Access without a caller's token: %s", path)
			}
		}
	})
}

// A cold isolate asks Memos about the caller while its Go program starts
// (the entry module's early check), and the program decides on that answer
// as on its own: a made-up token among the first requests of an isolate
// still gets 401, and all that passes Access with it is that one question;
// a real token's call is answered, after exactly one question.
func TestVerifiedCallersColdStart(t *testing.T) {
	const id, secret = "stand-in.access", "stand-in-secret"
	standIn, access := startPassedAccess(t, id, secret)
	gw := startGateway(t, harness.WorkerOptions{Twin: true, ColdTwin: true, Vars: map[string]string{
		"MEMOS_URL": standIn, "CF_ACCESS_CLIENT_ID": id, "CF_ACCESS_CLIENT_SECRET": secret,
	}})
	const made = "Bearer made-up-at-a-cold-start"
	real := "Bearer " + memos.Token
	type answer struct {
		resp *http.Response
		body string
		err  error
	}
	// Both reach the twin before its Go program is ready.
	answers := make([]answer, 2)
	var wg sync.WaitGroup
	for i, auth := range []string{made, real} {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", gw.TwinURL+"/mcp", strings.NewReader(listMemosBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			req.Header.Set("Authorization", auth)
			a := &answers[i]
			if a.resp, a.err = http.DefaultClient.Do(req); a.err == nil {
				b, _ := io.ReadAll(a.resp.Body)
				a.resp.Body.Close()
				a.body = string(b)
			}
		})
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			t.Fatal(a.err)
		}
	}
	refusedToken(t, "a made-up token at a cold start", answers[0].resp, answers[0].body)
	if got := access.with(made); !slices.Equal(got, []string{"/api/v1/auth/me"}) {
		t.Errorf("passed Access with the made-up token: %v; want one /api/v1/auth/me", got)
	}
	if a := answers[1]; a.resp.StatusCode != 200 || !gjson.Get(a.body, "result.content").Exists() || gjson.Get(a.body, "result.isError").Bool() {
		t.Errorf("a real token at a cold start: %d %.300s", a.resp.StatusCode, a.body)
	}
	if got := access.with(real); !slices.Equal(got, []string{"/api/v1/auth/me", "/api/v1/memos"}) {
		t.Errorf("passed Access with the real token: %v; want /api/v1/auth/me, then /api/v1/memos", got)
	}
}

// The first requests of an isolate, all at once with one token, wait for
// nothing of another's: each asks Memos about its caller itself (at most one
// question each), none waits inside the gateway for another's work (the
// driver logs such a wait), and each is answered. Then, with the caller
// remembered, the same burst asks Memos nothing.
func TestConcurrentFirstRequests(t *testing.T) {
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Twin: true, ColdTwin: true, Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	// Slow checks, so that the requests overlap in them.
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/auth/me" {
			time.Sleep(300 * time.Millisecond)
		}
		proxy.pass.ServeHTTP(w, r)
	})
	const n = 24
	client := &http.Client{Timeout: time.Minute, Transport: tokenScan(&http.Transport{MaxIdleConnsPerHost: n})}
	burst := func() []error {
		return simultaneously(n, func(i int) error {
			req, _ := http.NewRequest("POST", gw.TwinURL+"/mcp", strings.NewReader(listBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			req.Header.Set("Authorization", "Bearer "+memos.Token)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !gjson.GetBytes(b, "result.tools.#").Exists() {
				return fmt.Errorf("%d %.200s", resp.StatusCode, b)
			}
			return nil
		})
	}
	checks := func() int {
		proxy.mu.Lock()
		defer proxy.mu.Unlock()
		return strings.Count(strings.Join(proxy.paths, " ")+" ", "/api/v1/auth/me ")
	}
	reportErrors(t, "cold", burst())
	if got := checks(); got < 1 || got > n {
		t.Errorf("%d checks of the caller for %d first requests; want 1 to %d", got, n, n)
	}
	before := checks()
	reportErrors(t, "warm", burst())
	if got := checks() - before; got > 1 {
		t.Errorf("%d checks of a remembered caller for %d requests; want at most one, ahead of its expiry", got, n)
	}
	if strings.Contains(gw.Log(), "a request waited inside the gateway") {
		t.Error("a request waited inside the gateway for another's work")
	}
}

// connectErr connects with the Go SDK client and returns its error.
func connectErr(ctx context.Context, endpoint, token string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "memos-mcp-edge-e2e", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: bearer(token), DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err == nil {
		cs.Close()
	}
	return err
}

// A tool call that Memos answers with 429 is a tool error that says when to
// retry, and the /mcp answer (still 200) carries Retry-After.
func TestRateLimitRelayed(t *testing.T) {
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/auth/me" || r.URL.Path == "/api/v1/instance/profile" {
			proxy.pass.ServeHTTP(w, r)
			return
		}
		// Memos v0.31's answer over a rate limit.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "42")
		w.Header().Set("RateLimit", `"authenticated";r=0;t=42`)
		w.WriteHeader(http.StatusTooManyRequests)
		var b bytes.Buffer
		json.NewEncoder(&b).Encode(map[string]any{"code": 8, "message": "too many requests, try again later", "details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMITED", "domain": "memos.api.v1",
				"metadata": map[string]string{"scope": "authenticated", "retry_after_seconds": "42", "limit": "600", "window_seconds": "60", "remaining": "0"}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "42s"},
		}})
		w.Write(b.Bytes())
	})
	resp, answer := rpcPost(t, gw.URL, "Bearer "+memos.Token, listMemosBody)
	text := gjson.Get(answer, "result.content.0.text").Str
	if resp.StatusCode != 200 || resp.Header.Get("Retry-After") != "42" || !gjson.Get(answer, "result.isError").Bool() ||
		text != "429 Too Many Requests: too many requests, try again later (retry after 42 seconds)" {
		t.Errorf("%d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), answer)
	}
}

// Once the caller check has Memos' answer (kept 5 seconds), a tool call
// asks Memos for its own request and nothing else: no /api/v1/auth/me
// again, neither for the check nor to tell whose the memos are.
func TestWarmCallsAskOnce(t *testing.T) {
	memo := newTools(t, memos.Token).createMemo("a memo of the warm calls #e2ewarm", "PRIVATE")
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	send := func(body []byte) string {
		t.Helper()
		resp, answer := rpcPost(t, gw.URL, "Bearer "+memos.Token, string(body))
		if resp.StatusCode != 200 || !gjson.Get(answer, "result").Exists() || gjson.Get(answer, "result.isError").Bool() {
			t.Fatalf("%d %.300s", resp.StatusCode, answer)
		}
		return answer
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		path string
	}{
		{"memo_get_memo", map[string]any{"memo": memo}, "/api/v1/" + memo},
		{"memo_list_memos", map[string]any{"pageSize": 3}, "/api/v1/memos"},
		{"auth_get_current_user", map[string]any{}, "/api/v1/auth/me"},
	} {
		for i := range 3 {
			// The check of the caller and the version probe are done
			// by a tools/list first: they are not the call's. A second
			// one lets a check the first sent ahead of the caller's
			// expiry (4 seconds on) reach the proxy before the count.
			send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			proxy.mu.Lock()
			before := len(proxy.paths)
			proxy.mu.Unlock()
			send(toolCall(2, tc.tool, tc.args))
			proxy.mu.Lock()
			got := slices.Clone(proxy.paths[before:])
			proxy.mu.Unlock()
			if !slices.Equal(got, []string{tc.path}) {
				t.Errorf("%s, call %d, asked Memos %v; want %s alone", tc.tool, i+1, got, tc.path)
			}
		}
	}
}

// A first request of a cold isolate whose client goes away while the Go
// program starts (it is the request that starts it) breaks no other: a
// second request, there meanwhile, and a third, after, are answered, at
// the cancelled start and at every start after it.
func TestFirstRequestCancelledMidStart(t *testing.T) {
	proxy := startFaultProxy(t)
	for round := range 3 {
		gw := startGateway(t, harness.WorkerOptions{Twin: true, ColdTwin: true, Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
		post := func(ctx context.Context) (int, string, error) {
			req, _ := http.NewRequestWithContext(ctx, "POST", gw.TwinURL+"/mcp", strings.NewReader(listMemosBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			req.Header.Set("Authorization", "Bearer "+memos.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return 0, "", err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b), nil
		}
		// The first goes away after a few milliseconds, within the start
		// (its own at round 0, later ones within the check or the call).
		first, cancel := context.WithTimeout(context.Background(), time.Duration(5+10*round)*time.Millisecond)
		done := make(chan struct{})
		go func() { defer close(done); post(first) }()
		time.Sleep(2 * time.Millisecond)
		ctx, stop := context.WithTimeout(context.Background(), time.Minute)
		for _, which := range []string{"beside it", "after it"} {
			status, body, err := post(ctx)
			if err != nil || status != 200 || !gjson.Get(body, "result.content").Exists() || gjson.Get(body, "result.isError").Bool() {
				t.Errorf("round %d, the request %s: %v, %d %.300s", round, which, err, status, body)
			}
			<-done
		}
		stop()
		cancel()
	}
}

// A caller back from a pause, its acceptance run out (promisedWindow),
// reads beside the check of its token: the tool's request reaches Memos
// while the check is still unanswered, and the answer comes once Memos has
// accepted the token. A token deleted during the pause gets 401, with
// nothing of what its read found; a write waits for the check, as before.
// (Behind Access nothing goes ahead: TestDeletedTokenRefused.)
func TestReadsBesideTheCheckAfterAPause(t *testing.T) {
	memo := newTools(t, memos.Token).createMemo("a memo read after a pause #e2eahead", "PRIVATE")
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	written, _ := newMemosToken(t)
	gone, goneName := newMemosToken(t)
	reader, writer, deleted := "Bearer "+memos.Token, "Bearer "+written, "Bearer "+gone
	for _, auth := range []string{reader, writer, deleted} {
		if resp, answer := rpcPost(t, gw.URL, auth, listBody); resp.StatusCode != 200 {
			t.Fatalf("before the pause: %d %.300s", resp.StatusCode, answer)
		}
	}
	// The check of a caller is held until another request of the same
	// caller reaches Memos, or for 3 seconds: one that came is beside it.
	var mu sync.Mutex
	arrived := map[string]chan struct{}{}
	beside := map[string]bool{}
	signal := func(auth string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if arrived[auth] == nil {
			arrived[auth] = make(chan struct{})
		}
		return arrived[auth]
	}
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if r.URL.Path == "/api/v1/auth/me" {
			select {
			case <-signal(auth):
				mu.Lock()
				beside[auth] = true
				mu.Unlock()
			case <-time.After(3 * time.Second):
			}
		} else if auth != "" {
			ch := signal(auth)
			mu.Lock()
			select {
			case <-ch:
			default:
				close(ch)
			}
			mu.Unlock()
		}
		proxy.pass.ServeHTTP(w, r)
	})
	time.Sleep(promisedWindow + 500*time.Millisecond)
	memosAPI(t, "DELETE", "/api/v1/"+goneName, "")
	get := string(toolCall(5, "memo_get_memo", map[string]any{"memo": memo}))

	resp, answer := rpcPost(t, gw.URL, reader, get)
	if resp.StatusCode != 200 || !strings.Contains(gjson.Get(answer, "result.structuredContent.content").Str, "read after a pause") {
		t.Errorf("a read after the pause: %d %.300s", resp.StatusCode, answer)
	}
	resp, answer = rpcPost(t, gw.URL, deleted, get)
	refusedToken(t, "a read with a token deleted during the pause", resp, answer)
	if strings.Contains(answer, memo) {
		t.Errorf("the refusal carries what the read found: %.300s", answer)
	}
	create := string(toolCall(6, "memo_create_memo", map[string]any{"body": map[string]any{"content": "written after a pause #e2eahead"}}))
	if resp, answer := rpcPost(t, gw.URL, writer, create); resp.StatusCode != 200 || gjson.Get(answer, "result.isError").Bool() {
		t.Errorf("a write after the pause: %d %.300s", resp.StatusCode, answer)
	}
	mu.Lock()
	defer mu.Unlock()
	if !beside[reader] || !beside[deleted] {
		t.Errorf("the reads went to Memos beside their checks: %v (the reader), %v (the deleted token); want both", beside[reader], beside[deleted])
	}
	if beside[writer] {
		t.Error("a write went to Memos before the check of its token had ended")
	}
}
