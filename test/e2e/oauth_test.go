//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// oauthSecret is the OAUTH_SECRET of the gateways these tests start, made
// when they run (no secret value lives in the repository).
var oauthSecret = randomSecret()

func randomSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// startOAuthGateway runs a gateway that is its own authorization server.
func startOAuthGateway(t *testing.T, vars map[string]string) *harness.Worker {
	t.Helper()
	all := map[string]string{"MEMOS_URL": memos.URL, "OAUTH_SECRET": oauthSecret, "OAUTH_ALLOW_LOOPBACK_CLIENTS": "true"}
	for k, v := range vars {
		all[k] = v
	}
	return startGateway(t, harness.WorkerOptions{Vars: all})
}

// The TypeScript SDK client completes the whole authorization flow against
// the Worker, headlessly (test/clients/ts-oauth.mjs plays the person at the
// consent page), then lists and calls tools with the access token and
// refreshes it: once registering with DCR, once naming a client document
// served from loopback (CIMD).
func TestTSSDKOAuth(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	for _, mode := range []string{"dcr", "cimd"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			run := runNode(t, ctx, root, []string{
				"MCP_URL=" + gw.URL + "/mcp", "MODE=" + mode, "ACCESS=write",
				"MEMOS_USERNAME=" + memos.Username, "MEMOS_PASSWORD=" + memos.Password,
				"EXPECT_TOOLS=" + strconv.Itoa(len(registryNames())),
			}, "test/clients/ts-oauth.mjs")
			out := string(run.stdout)
			t.Logf("ts-oauth.mjs output:\n%s%s", out, run.stderr)
			if run.code != 0 {
				t.Fatalf("ts-oauth.mjs exited with %d", run.code)
			}
			for _, step := range []string{"authorize", "tools", "write", "refresh"} {
				if !strings.Contains(out, "ok   "+step) {
					t.Errorf("step %s did not pass", step)
				}
			}
		})
	}
	// A read-only grant lists the read-only tools and is refused a write,
	// with 403 insufficient_scope.
	t.Run("read only", func(t *testing.T) {
		readOnly, err := registry.Select(true, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		run := runNode(t, ctx, root, []string{
			"MCP_URL=" + gw.URL + "/mcp", "MODE=dcr", "ACCESS=read",
			"MEMOS_USERNAME=" + memos.Username, "MEMOS_PASSWORD=" + memos.Password,
			"EXPECT_TOOLS=" + strconv.Itoa(readOnly.Full().Len()),
		}, "test/clients/ts-oauth.mjs")
		out := string(run.stdout)
		t.Logf("ts-oauth.mjs output:\n%s%s", out, run.stderr)
		if run.code != 0 || !strings.Contains(out, "ok   write refused") || !strings.Contains(out, "insufficient_scope") && !strings.Contains(out, "403") {
			t.Fatalf("ts-oauth.mjs exited with %d", run.code)
		}
	})
}

// consentRequest matches the sealed request the consent form carries back.
var consentRequest = regexp.MustCompile(`name="request" value="([^"]+)"`)

// actAsPerson plays the person at the browser for an authorization URL:
// opens the consent page, signs in to Memos with the password, chooses
// access ("write" or "read") and allows. It returns where the browser is sent
// next: the client's redirect URI with the code.
func actAsPerson(t *testing.T, authorizationURL, access string) *url.URL {
	t.Helper()
	pending, cookie := openConsentPage(t, authorizationURL)
	start, _ := url.Parse(authorizationURL)
	status, body, next := postConsent(t, start.Scheme+"://"+start.Host, pending, cookie,
		url.Values{"access": {access}, "username": {memos.Username}, "password": {memos.Password}, "days": {"30"}})
	if status != 303 || next == nil || next.Query().Get("code") == "" {
		t.Fatalf("consent answer: %d %v %.500s", status, next, body)
	}
	return next
}

// openConsentPage opens the consent page of an authorization URL and
// returns the form's sealed request and the CSRF cookie.
func openConsentPage(t *testing.T, authorizationURL string) (pending, cookie string) {
	t.Helper()
	resp, err := noRedirect.Get(authorizationURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := consentRequest.FindSubmatch(page)
	cookie, _, _ = strings.Cut(resp.Header.Get("Set-Cookie"), ";")
	if resp.StatusCode != 200 || m == nil || cookie == "" {
		t.Fatalf("consent page: %d %q %.500s", resp.StatusCode, cookie, page)
	}
	return html.UnescapeString(string(m[1])), cookie
}

// postConsent allows the pending request (unless fields decide otherwise)
// from the page of the server at base with the fields given, as the
// person's browser does, and returns the status, the page and where the
// browser is sent (nil when nowhere).
func postConsent(t *testing.T, base, pending, cookie string, fields url.Values) (status int, body string, next *url.URL) {
	t.Helper()
	return postConsentFrom(t, base, "", pending, cookie, fields)
}

// postConsentFrom is postConsent from the client address addr, as
// Cloudflare names it in CF-Connecting-IP ("" for none).
func postConsentFrom(t *testing.T, base, addr, pending, cookie string, fields url.Values) (status int, body string, next *url.URL) {
	t.Helper()
	fields.Set("request", pending)
	if fields.Get("decision") == "" {
		fields.Set("decision", "allow")
	}
	req, _ := http.NewRequest("POST", base+"/authorize", strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", cookie)
	req.Header.Set("Origin", base)
	if addr != "" {
		req.Header.Set("CF-Connecting-IP", addr)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		next, _ = url.Parse(loc)
	}
	return resp.StatusCode, string(b), next
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// The MCP Inspector CLI (v2) completes the flow too: it registers, prints the
// authorization URL and waits on its loopback callback; the test plays the
// person and hands the browser's redirect to that callback.
func TestInspectorOAuth(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	names := inspectorOAuth(t, ctx, filepath.Join(root, "node_modules", ".bin", "node"), filepath.Join(root, inspector),
		"--cli", gw.URL+"/mcp", "--transport", "http", "--method", "tools/list", "--format", "json")
	if len(names) != len(registryNames()) {
		t.Fatalf("the Inspector listed %d tools, want %d", len(names), len(registryNames()))
	}
	t.Logf("the Inspector authorized through the consent page and listed %d tools", len(names))
}

// inspectorOAuth runs an Inspector CLI command (name and args, a tools/list
// in JSON), which registers, prints the authorization URL and waits on its
// loopback callback; it plays the person and hands the browser's redirect
// to that callback, and returns the tool names the Inspector listed.
func inspectorOAuth(t *testing.T, ctx context.Context, name string, args ...string) []string {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, name, append(args, "--callback-url", "http://127.0.0.1:"+strconv.Itoa(port)+"/oauth/callback")...)
	cmd.Dir = root
	// Without a terminal the Inspector starts interactive OAuth only when it
	// may open a browser; BROWSER=true makes opening one do nothing.
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_AUTO_OPEN_ENABLED=true", "BROWSER=true", "MCP_INSPECTOR_SECRET_STORE=memory", "NO_COLOR=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	authorizationURL := ""
	lines := bufio.NewScanner(stderr)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	for authorizationURL == "" && lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
		if _, u, ok := strings.Cut(lines.Text(), "Please navigate to: "); ok {
			authorizationURL = strings.TrimSpace(u)
		}
	}
	if authorizationURL == "" {
		cmd.Wait()
		t.Fatalf("the Inspector printed no authorization URL:\n%s", printed.String())
	}
	go io.Copy(&printed, stderr)
	callback := actAsPerson(t, authorizationURL, "write")
	resp, err := http.Get(callback.String())
	if err != nil {
		t.Fatalf("the Inspector's callback: %v", err)
	}
	resp.Body.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("inspector: %v\nstderr:\n%s\nstdout:\n%.2000s", err, printed.String(), stdout.String())
	}
	names, err := inspectorToolNames(stdout.Bytes())
	if err != nil {
		t.Fatalf("inspector output: %v\n%.2000s", err, stdout.String())
	}
	return names
}

// The conformance suite's authorization command checks the authorization
// server: its metadata, and the code grant with a registered client, the
// test playing the person at the browser the suite asks someone to open.
func TestConformanceAuthorization(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	callback := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
	resp, err := http.Post(gw.URL+"/register", "application/json",
		strings.NewReader(`{"client_name":"conformance suite","redirect_uris":["`+callback+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if resp.StatusCode != 201 || reg.ClientID == "" {
		t.Fatalf("registration: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "node_modules", ".bin", "node"), filepath.Join(root, conformanceSuite),
		"authorization", "--url", gw.URL, "--client-id", reg.ClientID, "--resource", gw.URL+"/mcp", "--port", strconv.Itoa(port))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	authorizationURL := ""
	for authorizationURL == "" && lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), gw.URL+"/authorize?") {
			authorizationURL = lines.Text()
		}
	}
	if authorizationURL == "" {
		cmd.Wait()
		t.Fatalf("the suite printed no authorization URL:\n%s", printed.String())
	}
	next := actAsPerson(t, authorizationURL, "write")
	if r, err := http.Get(next.String()); err == nil {
		r.Body.Close()
	}
	for lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	out := plain([]byte(printed.String()))
	t.Logf("conformance authorization:\n%s", out)
	if err != nil || !strings.Contains(out, "Total: 3 passed, 0 failed") {
		t.Errorf("the suite did not pass every check (%v)", err)
	}
	for _, want := range []string{"authorization-server-metadata-endpoint: 2 passed, 0 failed", "authorization-code-grant: 1 passed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}

// chromiumPath finds the Chromium of Debian's package (CHROMIUM overrides).
func chromiumPath() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// The consent page in headless Chromium, as on a phone with JavaScript off
// (test/clients/consent-browser.mjs): labelled controls, all reachable with
// Tab, no console error, and the form submitted by keyboard sends the
// browser back to the client with a code; after a wrong password the page
// keeps Read only, the expiry and the username, no sentence says the app
// will write, and the grant is read only; on a phone's 390×844 screen the Allow button shows without scrolling. The screenshot is kept in
// build/test-artifacts. .ci/run installs Chromium; elsewhere the test says
// so when it is missing.
func TestConsentPageInChromium(t *testing.T) {
	browser := chromiumPath()
	if browser == "" {
		t.Skip("Chromium is not installed (apt-get install chromium): the consent page was not checked in a browser")
	}
	gw := startOAuthGateway(t, nil)
	artifacts := filepath.Join(root, "build", "test-artifacts")
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "consent-page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// localhost, not 127.0.0.1: browsers keep Secure cookies there over http.
	base := strings.Replace(gw.URL, "127.0.0.1", "localhost", 1)
	run := runNode(t, ctx, t.TempDir(), []string{
		"BASE_URL=" + base, "CHROMIUM=" + browser, "SCREENSHOT=" + shot,
		"MEMOS_USERNAME=" + memos.Username, "MEMOS_PASSWORD=" + memos.Password,
	}, "test/clients/consent-browser.mjs")
	t.Logf("consent-browser.mjs output:\n%s%s", run.stdout, run.stderr)
	if run.code != 0 {
		t.Fatalf("consent-browser.mjs exited with %d", run.code)
	}
	for _, step := range []string{"Allow on the first screen", "submitted without JavaScript", "a wrong password keeps the choices",
		"with Read only chosen, no sentence says the app will write", "the retried sign-in grants read only"} {
		if !strings.Contains(string(run.stdout), "ok   "+step) {
			t.Errorf("step %q did not pass", step)
		}
	}
	if info, err := os.Stat(shot); err != nil || info.Size() < 1000 {
		t.Errorf("no screenshot at %s: %v", shot, err)
	}
}
