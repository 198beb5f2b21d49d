//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// The whole suite runs with a recognisable Memos personal access token.
// Every response body the tests' Go HTTP clients read is scanned for it
// (tokenScan wraps http.DefaultTransport, which bearer and the plain clients
// use), the logs of every Worker are kept, and after the last test TestMain
// checks that the token showed up in none of them (checkTokenHygiene).

const patPrefix = "memos_pat_"

// secret is the part of the token that identifies it: without the prefix
// every Memos token shares, so that a shortened echo is found too.
func secret() string {
	if memos == nil {
		return ""
	}
	return strings.TrimPrefix(memos.Token, patPrefix)
}

// logSecrets are what no log line may hold, by what they are: the suite's
// token, the Memos password (typed into the consent page), OAUTH_SECRET, the
// gateway's codes and tokens, and any Memos token (those the consent step
// creates are never seen by the tests).
func logSecrets() [][2]string {
	return [][2]string{
		{"the token", secret()}, {"the Memos password", memos.Password}, {"OAUTH_SECRET", oauthSecret},
		{"a Memos token", patPrefix}, {"a gateway access token", "mme-at-"}, {"a gateway refresh token", "mme-rt-"}, {"a gateway code", "mme-code-"},
	}
}

// sightings records what the scanned clients read.
var sightings struct {
	sync.Mutex
	responses, bytes int
	found            []string // "GET http://…/healthz: 200", never the token itself
	logs             []keptLog
}

type keptLog struct{ name, text string }

// keepLog keeps a Worker's log for the check after the last test (the
// Workers tests start are gone by then).
func keepLog(name, text string) {
	sightings.Lock()
	sightings.logs = append(sightings.logs, keptLog{name, text})
	sightings.Unlock()
}

// plainTransport is the transport before TestMain wraps it.
var plainTransport = http.DefaultTransport

// installTokenScan makes every client that uses http.DefaultTransport scan
// what it reads. TestMain calls it once Memos has handed out the token.
func installTokenScan() { http.DefaultTransport = tokenScan(plainTransport) }

// tokenScan wraps a RoundTripper so that every response body read through
// it is scanned for the token as it streams.
func tokenScan(next http.RoundTripper) http.RoundTripper { return scanTransport{next} }

type scanTransport struct{ next http.RoundTripper }

func (s scanTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	needle := secret()
	if err != nil || needle == "" || resp.Body == nil {
		return resp, err
	}
	sightings.Lock()
	sightings.responses++
	sightings.Unlock()
	where := r.Method + " " + r.URL.Redacted() + ": " + resp.Status
	if strings.Contains(fmt.Sprint(resp.Header), needle) {
		sightings.Lock()
		sightings.found = append(sightings.found, where+" (a response header)")
		sightings.Unlock()
	}
	resp.Body = &scanBody{ReadCloser: resp.Body, needle: []byte(needle), where: where}
	return resp, nil
}

// scanBody looks for needle in what is read, across read boundaries.
type scanBody struct {
	io.ReadCloser
	needle []byte
	tail   []byte // the last len(needle)-1 bytes read
	where  string
	found  bool
}

func (b *scanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		sightings.Lock()
		sightings.bytes += n
		sightings.Unlock()
	}
	if n > 0 && !b.found {
		window := append(b.tail, p[:n]...)
		if bytes.Contains(window, b.needle) {
			b.found = true
			sightings.Lock()
			sightings.found = append(sightings.found, b.where)
			sightings.Unlock()
		}
		keep := min(len(window), len(b.needle)-1)
		b.tail = append(b.tail[:0], window[len(window)-keep:]...)
	}
	return n, err
}

// checkTokenHygiene reports, after the last test, every response and log
// line that carried the token; it returns 1 when there was one.
func checkTokenHygiene() int {
	needle := secret()
	if needle == "" {
		return 0
	}
	if worker != nil {
		keepLog("the shared Worker", worker.Log())
	}
	sightings.Lock()
	defer sightings.Unlock()
	var problems []string
	for _, f := range sightings.found {
		problems = append(problems, "a response carried the token: "+f)
	}
	lines := 0
	for _, l := range sightings.logs {
		for i, line := range strings.Split(l.text, "\n") {
			lines++
			for _, s := range logSecrets() {
				if strings.Contains(line, s[1]) {
					problems = append(problems, fmt.Sprintf("log of %s, line %d, carries %s: %s", l.name, i+1, s[0], strings.ReplaceAll(line, s[1], "<secret>")))
				}
			}
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL token hygiene: the token showed up %d times:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
		return 1
	}
	fmt.Printf("token hygiene: the token is in none of %d response bodies (%d bytes); no log line of %d from %d Workers holds a token, a password or OAUTH_SECRET\n",
		sightings.responses, sightings.bytes, lines, len(sightings.logs))
	return 0
}

// Requests that carry the token, in the Authorization header or where it
// does not belong, answer without echoing what the header held, and put it in
// no log line; and the suite's token is one a scan can find.
func TestTokenNeverEchoed(t *testing.T) {
	if !strings.HasPrefix(memos.Token, patPrefix) || len(secret()) < 16 {
		t.Fatalf("the suite's token is not a recognisable personal access token (%d characters)", len(memos.Token))
	}
	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	}
	tok := memos.Token
	cases := []struct {
		name, method, path, auth, body string
		header                         map[string]string
		status                         int
		// input: the token is also in what the caller sent besides the
		// Authorization header, so the answer may quote it back to the
		// caller; the log still must not.
		input bool
	}{
		{name: "wrong scheme", auth: "Token " + tok, body: call(1, "auth_get_current_user", `{}`), status: 401},
		{name: "lower-case scheme", auth: "bearer " + tok, body: call(2, "auth_get_current_user", `{}`), status: 200},
		{name: "token with a suffix", auth: "Bearer " + tok + "x", body: call(3, "auth_get_current_user", `{}`), status: 401},
		{name: "two tokens", auth: "Bearer " + tok + ", Bearer " + tok, body: call(4, "auth_get_current_user", `{}`), status: 401},
		{name: "unknown memo", auth: "Bearer " + tok, body: call(5, "memo_get_memo", `{"memo":"memos/doesnotexist"}`), status: 200},
		{name: "invalid argument", auth: "Bearer " + tok, body: call(6, "memo_list_memos", `{"pageSize":"ten"}`), status: 200},
		{name: "parse error", auth: "Bearer " + tok, body: `{"jsonrpc":"2.0","id":7,"method":"ping"`, status: 400},
		{name: "foreign host", method: "POST", auth: "Bearer " + tok, header: map[string]string{"Host": "evil.example.com"}, body: `{"jsonrpc":"2.0","id":8,"method":"ping"}`, status: 403},
		{name: "health with a token", method: "GET", path: "/healthz", auth: "Bearer " + tok, status: 200},
		{name: "token as a memo id", auth: "Bearer " + tok, body: call(10, "memo_get_memo", `{"memo":"`+tok+`"}`), status: 200, input: true},
		{name: "token in a malformed memo name", auth: "Bearer " + tok, body: call(11, "memo_get_memo", `{"memo":"`+tok+`/x"}`), status: 200, input: true},
		{name: "token as an unknown argument", auth: "Bearer " + tok, body: call(12, "memo_get_memo", `{"memo":"x","`+tok+`":1}`), status: 200, input: true},
		{name: "token as the tool name", auth: "Bearer " + tok, body: call(13, tok, `{}`), status: 200, input: true},
		{name: "token as the method", auth: "Bearer " + tok, body: `{"jsonrpc":"2.0","id":14,"method":"` + tok + `"}`, status: 200, input: true},
		{name: "token as the protocol version", auth: "Bearer " + tok, header: map[string]string{"MCP-Protocol-Version": tok}, body: `{"jsonrpc":"2.0","id":15,"method":"ping"}`, status: 400, input: true},
		{name: "token in the origin", auth: "Bearer " + tok, header: map[string]string{"Origin": "https://" + tok + ".example.com"}, body: `{"jsonrpc":"2.0","id":16,"method":"ping"}`, status: 403, input: true},
	}
	scanned := &http.Client{Transport: tokenScan(plainTransport)}
	plain := &http.Client{Transport: plainTransport}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := caseRequest(t, tc.method, tc.path, tc.body, tc.auth, tc.header)
			client := scanned
			if tc.input {
				client = plain
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %.300s", resp.StatusCode, tc.status, strings.ReplaceAll(string(body), secret(), "<token>"))
			}
			if s := secret(); !tc.input && (bytes.Contains(body, []byte(s)) || strings.Contains(fmt.Sprint(resp.Header), s)) {
				t.Errorf("the answer echoes the token: %s", strings.ReplaceAll(string(body), s, "<token>"))
			}
		})
	}
	for i, line := range strings.Split(worker.Log(), "\n") {
		if strings.Contains(line, secret()) {
			t.Errorf("the shared Worker's log carries the token on line %d: %s", i+1, strings.ReplaceAll(line, secret(), "<token>"))
		}
	}
}
