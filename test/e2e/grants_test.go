//go:build e2e

package e2e

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants/grantstest"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The Durable Object that holds grants keeps package grants' contract under
// wrangler, with SQLite storage: the same cases as the in-memory store,
// its alarm included.
func TestGrantStoreObject(t *testing.T) {
	dir := t.TempDir()
	current, err := os.ReadFile(filepath.Join(root, "build", "grants.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	previous, err := os.ReadFile("testdata/grants-v1.mjs")
	if err != nil {
		t.Fatal(err)
	}
	front, err := os.ReadFile("testdata/grants-worker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "worker.mjs"), front, 0o644)
	config := filepath.Join(dir, "wrangler.toml")
	os.WriteFile(config, []byte(`name = "grants-test"
main = "worker.mjs"
compatibility_date = "2026-11-01"

[[durable_objects.bindings]]
name = "GRANTS"
class_name = "GrantStore"

[[migrations]]
tag = "grants-v1"
new_sqlite_classes = ["GrantStore"]
`), 0o644)
	// Objects that the first release's store made (without the time of a
	// step) keep their values under this one.
	os.WriteFile(filepath.Join(dir, "grants.mjs"), previous, 0o644)
	w, stop := startPlainWorker(t, dir, config)
	old := grants.Remote{Doer: objectDoer{base: w}}
	ctx := context.Background()
	if step, err := old.Advance(ctx, "upgrade/g", 0, time.Now().Add(time.Hour)); err != nil || !step.Moved {
		t.Fatalf("advance under the first release: %+v, %v", step, err)
	}
	stop()
	os.WriteFile(filepath.Join(dir, "grants.mjs"), current, 0o644)
	w, _ = startPlainWorker(t, dir, config)
	remote := grants.Remote{Doer: objectDoer{base: w}}
	if step, err := remote.Advance(ctx, "upgrade/g", 0, time.Now().Add(time.Hour)); err != nil || step.Moved || step.Value != 1 || step.Age < time.Hour {
		t.Errorf("a key of the first release, advanced again from 0: %+v, %v; want value 1, held for longer than any retry", step, err)
	}
	if step, err := remote.Advance(ctx, "upgrade/g", 1, time.Now().Add(time.Hour)); err != nil || !step.Moved || step.Value != 2 {
		t.Errorf("a key of the first release, advanced from 1: %+v, %v", step, err)
	}

	grantstest.Check(t, remote, "check/")
	// Keys that expire in seconds: the objects' alarms forget them while
	// the test waits, and the same objects answer afterwards.
	grantstest.CheckForgetting(t, remote, "forget/", time.Sleep)

	// What it refuses to do, it refuses with 400, which Remote reads as
	// unavailable: never a value.
	for _, body := range []string{`not json`, `{"op":"advance","from":"1","until":1}`, `{"op":"hit","limit":0,"window":60}`, `{"op":"drop"}`} {
		resp, err := http.Post(w+"/bad", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", body, resp.StatusCode)
		}
	}
}

// objectDoer sends package grants' (or lease's) requests to a Worker on
// loopback, and reads answers of at most maxBytes (0: grants').
type objectDoer struct {
	base     string
	maxBytes int
}

func (d objectDoer) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	u, _ := url.Parse(req.URL)
	r, _ := http.NewRequestWithContext(ctx, req.Method, d.base+u.EscapedPath(), bytes.NewReader(req.Body))
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(cmp.Or(d.maxBytes, grants.MaxAnswerBytes)+1)))
	return &web.Response{Status: resp.StatusCode, Header: web.Header{}, Body: body}, err
}

// startPlainWorker runs wrangler dev on a configuration of the test's own
// and returns its base URL and what stops it (the test's end stops it too).
func startPlainWorker(t *testing.T, dir, config string) (string, func()) {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	inspector, _ := harness.FreePort()
	node, args := harness.Wrangler(root)
	args = append(args, "dev", "--config", config, "--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--inspector-port", strconv.Itoa(inspector),
		"--persist-to", filepath.Join(dir, "state"))
	proc, err := harness.StartProcess(filepath.Join(dir, "wrangler.log"), node, root, []string{"WRANGLER_SEND_METRICS=false", "NO_COLOR=1"}, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Post(base+"/ready", "application/json", strings.NewReader(`{"op":"get"}`)); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base, proc.Stop
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grants Worker did not answer:\n%s", proc.Log())
		}
	}
}

// restartableGateway is an OAuth gateway whose port and state folder stay
// the same over restarts, as a deployed Worker's Durable Objects do while
// its isolates come and go.
type restartableGateway struct {
	t    *testing.T
	opts harness.WorkerOptions
	w    *harness.Worker
}

func startRestartableGateway(t *testing.T) *restartableGateway {
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	g := &restartableGateway{t: t, opts: harness.WorkerOptions{Root: root, Dir: t.TempDir(), Port: port, Vars: map[string]string{
		"MEMOS_URL": memos.URL, "OAUTH_SECRET": oauthSecret, "OAUTH_ALLOW_LOOPBACK_CLIENTS": "true", "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]",
	}}}
	g.start()
	t.Cleanup(func() {
		g.w.Stop()
		keepLog("the gateway of "+t.Name(), g.w.Log())
	})
	return g
}

func (g *restartableGateway) start() {
	w, err := harness.StartWorker(context.Background(), g.opts)
	if err != nil {
		g.t.Fatal(err)
	}
	g.w = w
}

// restart stops wrangler and workerd and starts them again on the same
// state: every isolate's memory is gone.
func (g *restartableGateway) restart() {
	g.w.Stop()
	keepLog("the gateway of "+g.t.Name()+" before its restart", g.w.Log())
	g.start()
}

// A spent code and a rotated-away refresh token whose successor was used
// stay spent across a restart (a fresh isolate), however they are written;
// their reuse ends the grant, so the rightful chain stops working too, and
// the access token with it.
func TestOAuthReplayAcrossRestart(t *testing.T) {
	gw := startRestartableGateway(t)
	c := registerOAuthClient(t, gw.w.URL)
	code := c.code("write")
	status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {c.verifier}})
	access, _ := out["access_token"].(string)
	refresh, _ := out["refresh_token"].(string)
	if status != 200 || access == "" || refresh == "" {
		t.Fatalf("exchange: %d %v", status, out)
	}
	status, out = c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	rotated, _ := out["refresh_token"].(string)
	if status != 200 || rotated == "" {
		t.Fatalf("refresh: %d %v", status, out)
	}
	gw.restart()
	// The successor is used, so refresh is past forgiving a lost answer.
	status, out = c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rotated}})
	rotated, _ = out["refresh_token"].(string)
	if status != 200 || rotated == "" {
		t.Fatalf("the successor's refresh after the restart: %d %v", status, out)
	}
	if status, _ := mcpStatus(t, gw.w.URL, access); status != 200 {
		t.Fatalf("the access token after the restart, before any replay: %d", status)
	}
	for _, tc := range []struct{ name, spelled string }{ // in this order: the last two end the grant, then find it ended
		{"code with a newline", code + "\n"},
		{"code with CRLF inside", code[:30] + "\r\n" + code[30:]},
		{"code with other spare bits", respellLast(code)},
		{"refresh token with other bits", respellLast(refresh)},
		{"refresh token with a newline", refresh + "\n"},
		{"the rotated-away refresh token", refresh},
		{"the rightful chain after a reuse", rotated},
		{"code as it was", code},
	} {
		name, spelled := tc.name, tc.spelled
		grant := "refresh_token"
		params := url.Values{"grant_type": {grant}, "refresh_token": {spelled}}
		if strings.HasPrefix(name, "code") {
			params = url.Values{"grant_type": {"authorization_code"}, "code": {spelled}, "code_verifier": {c.verifier}}
		}
		if status, out := c.token(params); status != 400 || out["error"] != "invalid_grant" {
			t.Errorf("%s: %d %v", name, status, out)
		}
	}
	if status, challenge := mcpStatus(t, gw.w.URL, access); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("the access token of a replayed grant: %d %q", status, challenge)
	}
}

// respellLast writes a token's last base64url character another way that a
// lenient decoder reads as the same bytes (the unused low bits changed).
func respellLast(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[i^1])
}

// Password guessing is bounded: a consent page takes three attempts, then
// answers 429 with a clear page without asking Memos, even for the right
// password; the log records refused credentials and the limit as their own
// outcomes. Revoking a grant made from a pasted token ends it too, and the
// pasted token itself keeps working.
func TestSignInBoundedAndPastedGrant(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	c := registerOAuthClient(t, gw.URL)
	pending, cookie := openConsentPage(t, c.authorizeURL())
	for i := range 3 {
		if status, _, _ := postConsent(t, gw.URL, pending, cookie, url.Values{"username": {memos.Username}, "password": {"wrong" + strconv.Itoa(i)}}); status != 400 {
			t.Fatalf("attempt %d: %d", i+1, status)
		}
	}
	status, body, _ := postConsent(t, gw.URL, pending, cookie, url.Values{"username": {memos.Username}, "password": {memos.Password}})
	if status != 429 || !strings.Contains(body, "too many sign-in attempts") {
		t.Errorf("the fourth attempt: %d %.300s", status, body)
	}
	// The pasted token proves who the person is; the grant gets its own.
	pending, cookie = openConsentPage(t, c.authorizeURL())
	status, _, next := postConsent(t, gw.URL, pending, cookie, url.Values{"token": {memos.Token}})
	if status != 303 || next == nil {
		t.Fatalf("consent with a pasted token: %d", status)
	}
	code := next.Query().Get("code")
	_, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {c.verifier}})
	access, _ := out["access_token"].(string)
	if status, _ := mcpStatus(t, gw.URL, access); status != 200 {
		t.Fatalf("the pasted-token grant: %d", status)
	}
	resp, err := http.PostForm(gw.URL+"/revoke", url.Values{"token": {access}, "client_id": {c.id}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	resp.Body.Close()
	if status, challenge := mcpStatus(t, gw.URL, access); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("the revoked pasted-token grant: %d %q", status, challenge)
	}
	if status, _ := mcpStatus(t, worker.URL, memos.Token); status != 200 {
		t.Errorf("the pasted token itself after the revocation: %d", status)
	}
	log := gw.Log()
	for _, outcome := range []string{`"outcome":"credentials_refused"`, `"outcome":"limited"`} {
		if !strings.Contains(log, outcome) {
			t.Errorf("the log has no %s line", outcome)
		}
	}
}

// A client that registered any return address is never sent there before
// the person acts: an invalid request gets the error page. Clients that ask
// for offline_access (copied from other servers' metadata) get the page.
func TestNoRedirectBeforeConsent(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	resp, err := http.Post(gw.URL+"/register", "application/json",
		strings.NewReader(`{"client_name":"lure","redirect_uris":["https://evil.example/landing"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := between(string(body), `"client_id":"`, `"`)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for name, q := range map[string]url.Values{
		"no PKCE":          {"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"https://evil.example/landing"}},
		"token response":   {"response_type": {"token"}, "client_id": {id}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}},
		"unknown scope":    {"response_type": {"code"}, "client_id": {id}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "scope": {"admin"}},
		"foreign resource": {"response_type": {"code"}, "client_id": {id}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "resource": {"https://evil.example/mcp"}},
	} {
		resp, err := noRedirect.Get(gw.URL + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d to %q", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "scope": {"memos:read offline_access"}}
	if resp, err := noRedirect.Get(gw.URL + "/authorize?" + q.Encode()); err != nil || resp.StatusCode != 200 {
		t.Errorf("offline_access: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
}

func between(s, start, end string) string {
	_, s, _ = strings.Cut(s, start)
	s, _, _ = strings.Cut(s, end)
	return s
}

// Without the Durable Object binding, OAuth does not start rather than run
// without memory: /healthz says why, /mcp answers 503, and no
// authorization server answers.
func TestOAuthNeedsGrantStore(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{NoGrants: true, Vars: map[string]string{
		"MEMOS_URL": memos.URL, "OAUTH_SECRET": oauthSecret,
	}})
	resp, err := http.Get(gw.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), `"misconfigured"`) || !strings.Contains(string(body), "GRANTS") {
		t.Errorf("/healthz: %d %s", resp.StatusCode, body)
	}
	if status, _ := mcpStatus(t, gw.URL, memos.Token); status != 503 {
		t.Errorf("/mcp: %d, want 503", status)
	}
	if resp, err := http.Get(gw.URL + "/.well-known/oauth-authorization-server"); err != nil || resp.StatusCode != 404 {
		t.Errorf("the authorization server answers without its memory: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
}
