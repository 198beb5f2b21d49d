//go:build e2e

package e2e

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A client ID URL that spells a loopback address another way is refused at
// /authorize (with the error page, no redirect) and at /token, and the
// Worker opens no connection to it: a listener on 127.0.0.1 counts them.
//
// The gateway runs as in production, without OAUTH_ALLOW_LOOPBACK_CLIENTS:
// that setting exists to let tests serve client documents over plain http
// on loopback, and would make loopback the allowed case. The spellings are
// https, which a production gateway fetches; the listener speaks no TLS,
// but a fetch that got as far as the handshake has already connected, and
// is counted.
func TestClientIDLoopbackSpellings(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	accepted := make(chan string) // the remote address of each connection
	go func() {
		for {
			c, err := listener.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	port := strconv.Itoa(listener.Addr().(*net.TCPAddr).Port)
	gw := startOAuthGateway(t, map[string]string{"OAUTH_ALLOW_LOOPBACK_CLIENTS": "false"})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	for _, tc := range []struct{ name, host string }{
		{"short", "127.1"},
		{"trailing dot", "127.0.0.1."},
		{"one number", "2130706433."},
		{"hex part", "0x7f.0.0.1"},
		{"octal part", "0177.0.0.1"},
		{"zero-padded octal parts", "127.000.000.001"},
		{"full-width digits", "１２７.０.０.１"},
		{"ideographic full stop", "127.0.0。1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "https://" + tc.host + ":" + port + "/c"
			q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"https://app.example.net/cb"}, "state": {"s"},
				"code_challenge": {strings.Repeat("c", 43)}, "code_challenge_method": {"S256"}}
			resp, err := noRedirect.Get(gw.URL + "/authorize?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(string(page), "not known to this server") {
				t.Errorf("/authorize: %d %q %.300s", resp.StatusCode, resp.Header.Get("Location"), page)
			}
			resp, err = http.PostForm(gw.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {"mme-code-x"}, "code_verifier": {strings.Repeat("v", 43)}})
			if err != nil {
				t.Fatal(err)
			}
			var out struct{ Error string }
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode != 401 || out.Error != "invalid_client" {
				t.Errorf("/token: %d %q", resp.StatusCode, out.Error)
			}
		})
	}
	// A fetch of the Worker's would have connected before its answer came:
	// a connection of the test's own, queued after any of them, ends the
	// count.
	own, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	others, deadline := 0, time.After(time.Minute)
	for waiting := true; waiting; {
		select {
		case from := <-accepted:
			waiting = from != own.LocalAddr().String()
			if waiting {
				others++
			}
		case <-deadline:
			t.Fatal("the listener did not accept the test's own connection")
		}
	}
	if others != 0 {
		t.Errorf("the Worker opened %d connections to the loopback listener", others)
	}
}

// The consent page cannot be made to name one site as another: redirect
// hosts in other scripts, with a full stop that is not ASCII, or with a
// character that would end a CSP source are refused at registration; an
// app's name loses its bidirectional controls; and the page's form may lead
// to the canonical origin of the redirect only. The root protected-resource
// document, which would describe the origin as a resource, is not served.
func TestConsentPageCannotLie(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	register := func(name, redirect string) (int, string) {
		body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
		resp, err := http.Post(gw.URL+"/register", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var reg struct {
			ClientID string `json:"client_id"`
			Error    string
		}
		json.NewDecoder(resp.Body).Decode(&reg)
		return resp.StatusCode, reg.ClientID + reg.Error
	}
	for _, tc := range []struct{ name, redirect string }{
		{"Cyrillic a, escaped", "https://%D0%B0pple.com/cb"},
		{"Cyrillic a", "https://аpple.com/cb"},
		{"ideographic full stop, escaped", "https://claude.ai%E3%80%82evil.example/cb"},
		{"ideographic full stop", "https://claude.ai。evil.example/cb"},
		{"semicolon in the host", "https://app.example.net;script-src/cb"},
		{"comma in the host", "https://app.example.net,evil.example/cb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, got := register("Apple", tc.redirect); status != 400 || got != "invalid_redirect_uri" {
				t.Errorf("registering %q: %d %s", tc.redirect, status, got)
			}
		})
	}

	t.Run("bidirectional controls in the name", func(t *testing.T) {
		const redirect = "https://xn--pple-43d.com/cb"
		status, id := register("Evil\u202egpj.exe\u2066", redirect)
		if status != 201 {
			t.Fatalf("registration: %d %s", status, id)
		}
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"s"},
			"code_challenge": {strings.Repeat("c", 43)}, "code_challenge_method": {"S256"}}
		resp, err := http.Get(gw.URL + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(page)
		if resp.StatusCode != 200 || strings.ContainsAny(body, "\u202e\u2066") || !strings.Contains(body, "calls itself <strong>Evilgpj.exe</strong>") ||
			!strings.Contains(body, "<strong>xn--pple-43d.com</strong>") {
			t.Errorf("consent page: %d %.1500s", resp.StatusCode, body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://xn--pple-43d.com;") {
			t.Errorf("CSP %q", csp)
		}
	})

	t.Run("resource metadata", func(t *testing.T) {
		for path, want := range map[string]int{"/.well-known/oauth-protected-resource": 404, "/.well-known/oauth-protected-resource/mcp": 200} {
			resp, err := http.Get(gw.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct{ Resource string }
			json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			if resp.StatusCode != want || want == 200 && doc.Resource != gw.URL+"/mcp" {
				t.Errorf("%s: %d %q, want %d", path, resp.StatusCode, doc.Resource, want)
			}
		}
	})
}
