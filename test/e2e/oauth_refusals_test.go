//go:build e2e

package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
)

// oauthClient is a public client registered with a gateway, with one PKCE
// verifier for its flows.
type oauthClient struct {
	t                  *testing.T
	base, id, redirect string
	verifier           string
}

// registerOAuthClient registers a client named after the test, so that the
// Memos tokens of its grants are called "MCP: <test name>".
func registerOAuthClient(t *testing.T, base string) *oauthClient {
	t.Helper()
	c := &oauthClient{t: t, base: base, redirect: "http://127.0.0.1:9/callback", verifier: strings.Repeat("v", 50)}
	resp, err := http.Post(base+"/register", "application/json",
		strings.NewReader(`{"client_name":"`+t.Name()+`","redirect_uris":["`+c.redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if json.NewDecoder(resp.Body).Decode(&reg); resp.StatusCode != 201 || reg.ClientID == "" {
		t.Fatalf("registration: %d", resp.StatusCode)
	}
	c.id = reg.ClientID
	return c
}

// authorizeURL is the address of an authorization request by c.
func (c *oauthClient) authorizeURL() string { return c.authorizeURLWith(nil) }

// authorizeURLWith is authorizeURL with the parameters of params set.
func (c *oauthClient) authorizeURLWith(params url.Values) string {
	sum := sha256.Sum256([]byte(c.verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirect}, "state": {"s"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {c.base + "/mcp"}}
	for k, v := range params {
		q[k] = v
	}
	return c.base + "/authorize?" + q.Encode()
}

// code runs the consent step as the person and returns the code.
func (c *oauthClient) code(access string) string {
	return actAsPerson(c.t, c.authorizeURL(), access).Query().Get("code")
}

// token posts a token request and returns its status and decoded answer.
func (c *oauthClient) token(params url.Values) (int, map[string]any) {
	c.t.Helper()
	params.Set("client_id", c.id)
	resp, err := http.PostForm(c.base+"/token", params)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(body, &out)
	return resp.StatusCode, out
}

// mcpStatus calls tools/list with a bearer token and returns the status and
// the WWW-Authenticate challenge.
func mcpStatus(t *testing.T, base, bearer string) (int, string) {
	return mcpPost(t, base, bearer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
}

// mcpPost posts body to /mcp with a bearer token and returns the status and
// the WWW-Authenticate challenge.
func mcpPost(t *testing.T, base, bearer, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// Against the Worker and the real Memos, each way a grant can be wrong is
// refused with its OAuth error: a wrong PKCE verifier, a foreign resource, a
// tampered code, a code or token sealed under another secret, a tampered
// access token, an expired code and access token, an unregistered redirect
// URI, and a Memos token deleted in Memos (a tool call is answered with 401
// and invalid_token, and the refresh fails).
func TestOAuthRefusals(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	other := startOAuthGateway(t, map[string]string{"OAUTH_SECRET": randomSecret()})
	c := registerOAuthClient(t, gw.URL)

	code := c.code("write")
	for _, tc := range []struct {
		name   string
		params url.Values
		want   string
	}{
		{"wrong verifier", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {strings.Repeat("w", 50)}}, "invalid_grant"},
		{"foreign resource", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {c.verifier}, "resource": {"https://elsewhere.example.com/mcp"}}, "invalid_target"},
		{"tampered code", url.Values{"grant_type": {"authorization_code"}, "code": {code[:len(code)-4] + "AAAA"}, "code_verifier": {c.verifier}}, "invalid_grant"},
	} {
		if status, out := c.token(tc.params); status != 400 || out["error"] != tc.want {
			t.Errorf("%s: %d %v, want 400 %s", tc.name, status, out, tc.want)
		}
	}
	oc := registerOAuthClient(t, other.URL)
	foreignCode := oc.code("write")
	if status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {foreignCode}, "code_verifier": {c.verifier}}); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a code sealed under another secret: %d %v", status, out)
	}
	status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {c.verifier}})
	access, _ := out["access_token"].(string)
	refresh, _ := out["refresh_token"].(string)
	if status != 200 || access == "" || refresh == "" {
		t.Fatalf("the right exchange: %d %v", status, out)
	}
	_, foreign := oc.token(url.Values{"grant_type": {"authorization_code"}, "code": {foreignCode}, "code_verifier": {oc.verifier}})
	foreignAccess, _ := foreign["access_token"].(string)
	for name, bearer := range map[string]string{"tampered access token": access[:len(access)-4] + "AAAA", "access token of another secret": foreignAccess} {
		if status, challenge := mcpStatus(t, gw.URL, bearer); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
			t.Errorf("%s: %d %q", name, status, challenge)
		}
	}
	if status, _ := mcpStatus(t, gw.URL, access); status != 200 {
		t.Errorf("the right access token: %d", status)
	}

	// Expired ones: sealed under the gateway's own secret, with an expiry
	// in the past (what its records hold past the expiry does not matter:
	// it is checked first).
	keys, err := seal.New(oauthSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Minute)
	if status, challenge := mcpStatus(t, gw.URL, "mme-at-"+keys.Seal("access", []byte(`{}`), past)); status != 401 || !strings.Contains(challenge, "expired") {
		t.Errorf("an expired access token: %d %q", status, challenge)
	}
	if status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {"mme-code-" + keys.Seal("code", []byte(`{}`), past)}, "code_verifier": {c.verifier}}); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("an expired code: %d %v", status, out)
	}

	// An unregistered redirect URI is shown to the person, never followed.
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {"https://evil.example.com/cb"},
		"code_challenge": {"x"}, "code_challenge_method": {"S256"}}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noRedirect.Get(gw.URL + "/authorize?" + q.Encode()); err != nil || resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Errorf("an unregistered redirect URI: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}

	// Revocation deletes the Memos token in Memos. A tool call with the
	// access token then gets Memos' 401 as the gateway's own, with the
	// challenge that sends the client to refresh, and the refresh fails.
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"auth_get_current_user","arguments":{}}}`
	if status, _ := mcpPost(t, gw.URL, access, call); status != 200 {
		t.Errorf("a tool call before revocation: %d", status)
	}
	resp, err := http.PostForm(gw.URL+"/revoke", url.Values{"token": {access}, "client_id": {c.id}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	resp.Body.Close()
	if status, challenge := mcpPost(t, gw.URL, access, call); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("a tool call after the Memos token was deleted: %d %q", status, challenge)
	}
	if status, out := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("refresh after the Memos token was deleted: %d %v", status, out)
	}
}
