package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

const (
	base     = "https://mcp.example.com"
	callback = "https://app.example.net/callback"
	verifier = "0123456789abcdef0123456789abcdef0123456789abcdef"
	password = "correct horse"
)

// refused is how fakeMemos refuses credentials, as upstream does.
type refused struct{}

func (refused) Error() string { return "refused" }
func (refused) Refused() bool { return true }

// fakeMemos has one user, "users/ann", with password; it issues and deletes
// personal access tokens.
type fakeMemos struct {
	mu      sync.Mutex
	tokens  map[string]string // token → name
	created []string          // descriptions
}

func newFakeMemos() *fakeMemos {
	return &fakeMemos{tokens: map[string]string{"memos_pat_pasted": "users/ann/personalAccessTokens/pasted"}}
}

func (m *fakeMemos) SignIn(_ context.Context, username, pw string) (string, string, error) {
	if username != "ann" || pw != password {
		return "", "", refused{}
	}
	return "session-jwt", "users/ann", nil
}

func (m *fakeMemos) CreateToken(_ context.Context, bearer, user, description string, days int) (string, string, error) {
	if bearer != "session-jwt" || user != "users/ann" {
		return "", "", refused{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.created = append(m.created, description)
	token := "memos_pat_" + strings.Repeat("x", len(m.created))
	m.tokens[token] = "users/ann/personalAccessTokens/" + token
	return token, m.tokens[token], nil
}

func (m *fakeMemos) CurrentUser(_ context.Context, token string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[token]; !ok {
		return "", refused{}
	}
	return "users/ann", nil
}

func (m *fakeMemos) DeleteToken(_ context.Context, token, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens[token] != name {
		return refused{}
	}
	delete(m.tokens, token)
	return nil
}

// docServer answers client ID metadata documents.
type docServer map[string]string

func (d docServer) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	if req.Timeout <= 0 || req.Timeout > 10*time.Second {
		return nil, errors.New("a client ID metadata document must be fetched within a few seconds")
	}
	doc, ok := d[req.URL]
	if !ok {
		return &web.Response{Status: 404, Header: web.Header{}}, nil
	}
	return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(doc)}, nil
}

type harness struct {
	t     *testing.T
	s     *Server
	memos *fakeMemos
	now   time.Time
}

func newHarness(t *testing.T, secret string) *harness {
	keys, err := seal.New(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, memos: newFakeMemos(), now: time.Unix(1_900_000_000, 0)}
	h.s = New(Options{
		Keys: keys, Memos: h.memos, Instance: "memos.example.com", AcceptMemosTokens: true,
		Fetch: docServer{"https://client.example.org/meta.json": `{"client_id":"https://client.example.org/meta.json","client_name":"Doc App","redirect_uris":["` + callback + `"]}`,
			"https://liar.example.org/meta.json": `{"client_id":"https://client.example.org/meta.json","redirect_uris":["` + callback + `"]}`},
		Now: func() time.Time { return h.now },
	})
	return h
}

func (h *harness) do(method, target string, header web.Header, body string) *web.Response {
	h.t.Helper()
	if header == nil {
		header = web.Header{}
	}
	resp, ok := h.s.Handle(context.Background(), &web.Request{Method: method, URL: base + target, Header: header, Body: []byte(body)})
	if !ok {
		h.t.Fatalf("%s %s is not an authorization server path", method, target)
	}
	return resp
}

func form(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}

// The secrets are made when the tests run: no secret value lives in the
// repository, not even a test's.
var testSecret, otherKey = randomToken() + randomToken(), randomToken() + randomToken()

var formHeader = web.Header{"content-type": "application/x-www-form-urlencoded"}

// registerClient registers a client with DCR and returns its id and secret.
func (h *harness) registerClient(method string) (id, secret string) {
	h.t.Helper()
	resp := h.do("POST", "/register", web.Header{"content-type": "application/json"},
		`{"client_name":"Test <App>","redirect_uris":["`+callback+`"],"token_endpoint_auth_method":"`+method+`","grant_types":["authorization_code","refresh_token"]}`)
	if resp.Status != 201 {
		h.t.Fatalf("register: %d %s", resp.Status, resp.Body)
	}
	r := gjson.ParseBytes(resp.Body)
	return r.Get("client_id").Str, r.Get("client_secret").Str
}

func challengeOf(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

var hiddenRequest = regexp.MustCompile(`name="request" value="([^"]+)"`)

// consent shows the consent page for clientID and returns the sealed
// request and the CSRF cookie.
func (h *harness) consent(clientID, scope string) (pending, cookie string) {
	h.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback}, "state": {"st8"},
		"code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}, "resource": {base + "/mcp"}, "scope": {scope}}
	resp := h.do("GET", "/authorize?"+q.Encode(), nil, "")
	if resp.Status != 200 {
		h.t.Fatalf("consent page: %d %s", resp.Status, resp.Body)
	}
	m := hiddenRequest.FindSubmatch(resp.Body)
	set := resp.Header.Get("set-cookie")
	if m == nil || !strings.HasPrefix(set, csrfCookie+"=") {
		h.t.Fatalf("consent page without its request or cookie: %s %s", set, resp.Body)
	}
	cookie, _, _ = strings.Cut(set, ";")
	return strings.ReplaceAll(string(m[1]), "&amp;", "&"), cookie
}

// code runs the consent step with the password and returns the code.
func (h *harness) code(clientID, access string) string {
	h.t.Helper()
	pending, cookie := h.consent(clientID, "")
	resp := h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie, "origin": base},
		form("request", pending, "decision", "allow", "access", access, "username", "ann", "password", password, "days", "30"))
	loc, err := url.Parse(resp.Header.Get("location"))
	if resp.Status != 303 || err != nil || loc.Query().Get("code") == "" {
		h.t.Fatalf("consent answer: %d %s %s", resp.Status, resp.Header.Get("location"), resp.Body)
	}
	if q := loc.Query(); q.Get("state") != "st8" || q.Get("iss") != base || !strings.HasPrefix(loc.String(), callback+"?") {
		h.t.Errorf("redirect %s lacks state or iss", loc)
	}
	return loc.Query().Get("code")
}

// tokens exchanges a code.
func (h *harness) tokens(clientID, secret, code, verifier string) *web.Response {
	return h.do("POST", "/token", formHeader, form("grant_type", "authorization_code", "code", code, "code_verifier", verifier,
		"client_id", clientID, "client_secret", secret, "redirect_uri", callback, "resource", base+"/mcp"))
}

func oauthErr(resp *web.Response) string {
	return gjson.GetBytes(resp.Body, "error").Str
}

// The whole flow with a confidential DCR client: register, consent with
// the password, exchange the code, call /mcp with the access token, refresh,
// revoke.
func TestFlow(t *testing.T) {
	h := newHarness(t, testSecret)
	id, secret := h.registerClient("client_secret_post")
	if secret == "" || !strings.HasPrefix(id, clientPrefix) {
		t.Fatalf("registration: %q %q", id, secret)
	}
	code := h.code(id, "write")
	if len(h.memos.created) != 1 || h.memos.created[0] != "MCP: Test <App>" {
		t.Errorf("Memos tokens created: %q", h.memos.created)
	}
	resp := h.tokens(id, secret, code, verifier)
	r := gjson.ParseBytes(resp.Body)
	if resp.Status != 200 || resp.Header.Get("cache-control") != "no-store" || r.Get("token_type").Str != "Bearer" || r.Get("scope").Str != scopeAll {
		t.Fatalf("token response: %d %s", resp.Status, resp.Body)
	}
	access, refresh := r.Get("access_token").Str, r.Get("refresh_token").Str
	if strings.Contains(access, "memos_pat") || strings.Contains(string(resp.Body), "memos_pat") {
		t.Errorf("the Memos token shows in the token response: %s", resp.Body)
	}
	auth, readOnly, refusal := h.s.Authorize(mcpRequest("Bearer " + access))
	if refusal != nil || auth != "Bearer memos_pat_x" || readOnly {
		t.Errorf("Authorize: %q %v %v", auth, readOnly, refusal)
	}
	// The code works once.
	if again := h.tokens(id, secret, code, verifier); again.Status != 400 || oauthErr(again) != "invalid_grant" {
		t.Errorf("second use of the code: %d %s", again.Status, again.Body)
	}
	// Refresh rotates; the old refresh token works once.
	resp = h.do("POST", "/token", formHeader, form("grant_type", "refresh_token", "refresh_token", refresh, "client_id", id, "client_secret", secret))
	if resp.Status != 200 || gjson.GetBytes(resp.Body, "refresh_token").Str == refresh {
		t.Fatalf("refresh: %d %s", resp.Status, resp.Body)
	}
	newRefresh := gjson.GetBytes(resp.Body, "refresh_token").Str
	if again := h.do("POST", "/token", formHeader, form("grant_type", "refresh_token", "refresh_token", refresh, "client_id", id, "client_secret", secret)); oauthErr(again) != "invalid_grant" {
		t.Errorf("reused refresh token: %d %s", again.Status, again.Body)
	}
	// Revocation deletes the Memos token; refreshing then fails.
	if resp := h.do("POST", "/revoke", formHeader, form("token", access, "client_id", id, "client_secret", secret)); resp.Status != 200 {
		t.Errorf("revoke: %d %s", resp.Status, resp.Body)
	}
	if _, err := h.memos.CurrentUser(context.Background(), "memos_pat_x"); err == nil {
		t.Error("revocation left the Memos token in place")
	}
	if resp := h.do("POST", "/token", formHeader, form("grant_type", "refresh_token", "refresh_token", newRefresh, "client_id", id, "client_secret", secret)); oauthErr(resp) != "invalid_grant" {
		t.Errorf("refresh after revocation: %d %s", resp.Status, resp.Body)
	}
}

func mcpRequest(auth string) *web.Request {
	h := web.Header{}
	if auth != "" {
		h["authorization"] = auth
	}
	return &web.Request{Method: "POST", URL: base + "/mcp", Header: h}
}

// A read-only grant says so; a pasted token works without a password.
func TestReadOnlyGrantWithPastedToken(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	pending, cookie := h.consent(id, "")
	resp := h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
		form("request", pending, "decision", "allow", "access", "read", "token", "memos_pat_pasted"))
	loc, _ := url.Parse(resp.Header.Get("location"))
	tok := h.tokens(id, "", loc.Query().Get("code"), verifier)
	if tok.Status != 200 || gjson.GetBytes(tok.Body, "scope").Str != ScopeRead {
		t.Fatalf("token: %d %s", tok.Status, tok.Body)
	}
	auth, readOnly, refusal := h.s.Authorize(mcpRequest("Bearer " + gjson.GetBytes(tok.Body, "access_token").Str))
	if refusal != nil || auth != "Bearer memos_pat_pasted" || !readOnly {
		t.Errorf("Authorize: %q %v %v", auth, readOnly, refusal)
	}
	if len(h.memos.created) != 0 {
		t.Errorf("a token was created for a pasted one: %q", h.memos.created)
	}
}

// Every way a token request can be wrong gets its OAuth error.
func TestTokenRefusals(t *testing.T) {
	h := newHarness(t, testSecret)
	id, secret := h.registerClient("client_secret_basic")
	otherID, otherSecret := h.registerClient("client_secret_basic")
	code := h.code(id, "write")
	foreign := newHarness(t, otherKey)
	foreignID, _ := foreign.registerClient("none")
	foreignCode := foreign.code(foreignID, "write")
	for _, tc := range []struct {
		name, body string
		basic      string
		status     int
		want       string
	}{
		{name: "wrong verifier", body: form("grant_type", "authorization_code", "code", code, "code_verifier", strings.Repeat("z", 43)), basic: id + ":" + secret, status: 400, want: "invalid_grant"},
		{name: "no verifier", body: form("grant_type", "authorization_code", "code", code), basic: id + ":" + secret, status: 400, want: "invalid_grant"},
		{name: "foreign resource", body: form("grant_type", "authorization_code", "code", code, "code_verifier", verifier, "resource", "https://evil.example.com/mcp"), basic: id + ":" + secret, status: 400, want: "invalid_target"},
		{name: "other redirect", body: form("grant_type", "authorization_code", "code", code, "code_verifier", verifier, "redirect_uri", "https://app.example.net/other"), basic: id + ":" + secret, status: 400, want: "invalid_grant"},
		{name: "tampered code", body: form("grant_type", "authorization_code", "code", code[:len(code)-2]+"AA", "code_verifier", verifier), basic: id + ":" + secret, status: 400, want: "invalid_grant"},
		{name: "code of another secret", body: form("grant_type", "authorization_code", "code", foreignCode, "code_verifier", verifier), basic: id + ":" + secret, status: 400, want: "invalid_grant"},
		{name: "code of another client", body: form("grant_type", "authorization_code", "code", code, "code_verifier", verifier), basic: otherID + ":" + otherSecret, status: 400, want: "invalid_grant"},
		{name: "wrong client secret", body: form("grant_type", "authorization_code", "code", code, "code_verifier", verifier), basic: id + ":nope", status: 401, want: "invalid_client"},
		{name: "unknown client", body: form("grant_type", "authorization_code", "code", code, "code_verifier", verifier, "client_id", "whoever"), status: 401, want: "invalid_client"},
		{name: "unknown grant", body: form("grant_type", "password"), basic: id + ":" + secret, status: 400, want: "unsupported_grant_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := web.Header{"content-type": "application/x-www-form-urlencoded"}
			if tc.basic != "" {
				header["authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(tc.basic))
			}
			resp := h.do("POST", "/token", header, tc.body)
			if resp.Status != tc.status || oauthErr(resp) != tc.want {
				t.Errorf("%d %s, want %d %s", resp.Status, resp.Body, tc.status, tc.want)
			}
		})
	}
	// An expired code.
	h.now = h.now.Add(codeTTL)
	basic := web.Header{"content-type": "application/x-www-form-urlencoded", "authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))}
	resp := h.do("POST", "/token", basic, form("grant_type", "authorization_code", "code", code, "code_verifier", verifier))
	if oauthErr(resp) != "invalid_grant" {
		t.Errorf("expired code: %d %s", resp.Status, resp.Body)
	}
}

// /mcp bearer tokens: the gateway's own, Memos tokens when accepted, and
// every way one can be refused, each with its challenge.
func TestAuthorize(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	tok := h.tokens(id, "", h.code(id, "write"), verifier)
	access := gjson.GetBytes(tok.Body, "access_token").Str
	foreign := newHarness(t, otherKey)
	fid, _ := foreign.registerClient("none")
	foreignAccess := gjson.GetBytes(foreign.tokens(fid, "", foreign.code(fid, "write"), verifier).Body, "access_token").Str
	for _, tc := range []struct {
		name, auth, host string
		acceptMemos      bool
		later            time.Duration
		want             string // the Authorization for Memos; "" for a refusal
		wantErr          string // the challenge's error
	}{
		{name: "access token", auth: "Bearer " + access, acceptMemos: true, want: "Bearer memos_pat_x"},
		{name: "no token", auth: "", acceptMemos: true},
		{name: "Memos token", auth: "Bearer memos_pat_pasted", acceptMemos: true, want: "Bearer memos_pat_pasted"},
		{name: "Memos token refused", auth: "Bearer memos_pat_pasted", wantErr: "invalid_token"},
		{name: "tampered", auth: "Bearer " + access[:len(access)-3] + "AAA", acceptMemos: true, wantErr: "invalid_token"},
		{name: "another secret", auth: "Bearer " + foreignAccess, acceptMemos: true, wantErr: "invalid_token"},
		{name: "expired", auth: "Bearer " + access, acceptMemos: true, later: accessTTL, wantErr: "invalid_token"},
		{name: "another resource", auth: "Bearer " + access, host: "https://other.example.com", acceptMemos: true, wantErr: "invalid_token"},
		{name: "refresh token as access token", auth: "Bearer " + gjson.GetBytes(tok.Body, "refresh_token").Str, acceptMemos: true, wantErr: "invalid_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.s.opts.AcceptMemosTokens = tc.acceptMemos
			saved := h.now
			h.now = h.now.Add(tc.later)
			defer func() { h.now = saved }()
			req := mcpRequest(tc.auth)
			if tc.host != "" {
				req.URL = tc.host + "/mcp"
			}
			got, _, refusal := h.s.Authorize(req)
			if got != tc.want || (refusal == nil) != (tc.want != "") {
				t.Fatalf("Authorize = %q, %v; want %q", got, refusal, tc.want)
			}
			if refusal == nil {
				return
			}
			challenge := refusal.Header.Get("www-authenticate")
			if refusal.Status != 401 || !strings.Contains(challenge, `resource_metadata="`+strings.TrimSuffix(req.URL, "/mcp")+`/.well-known/oauth-protected-resource/mcp"`) {
				t.Errorf("refusal %d, challenge %q", refusal.Status, challenge)
			}
			if hasErr := strings.Contains(challenge, `error="`+tc.wantErr+`"`); tc.wantErr != "" && !hasErr || tc.wantErr == "" && strings.Contains(challenge, "error=") {
				t.Errorf("challenge %q, want error %q", challenge, tc.wantErr)
			}
		})
	}
}

// An access token whose Memos token Memos refuses gets the invalid_token
// challenge, for the client to refresh (which then fails, see
// TestFlow) and sign in again; a plain Memos token gets
// nothing, and keeps its tool error.
func TestRevoked(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	access := gjson.GetBytes(h.tokens(id, "", h.code(id, "write"), verifier).Body, "access_token").Str
	resp := h.s.Revoked(mcpRequest("Bearer " + access))
	if resp == nil || resp.Status != 401 || !strings.Contains(resp.Header.Get("www-authenticate"), `error="invalid_token"`) ||
		!strings.Contains(resp.Header.Get("www-authenticate"), `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("access token: %+v", resp)
	}
	if !strings.Contains(gjson.GetBytes(resp.Body, "error_description").Str, "connect again") {
		t.Errorf("description: %s", resp.Body)
	}
	if resp := h.s.Revoked(mcpRequest("Bearer memos_pat_pasted")); resp != nil {
		t.Errorf("a plain Memos token: %d %s", resp.Status, resp.Body)
	}
}

// The consent step refuses forged and cross-site answers, denies, and shows
// problems to the person.
func TestConsent(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	pending, cookie := h.consent(id, "")
	post := func(header web.Header, body string) *web.Response {
		if header == nil {
			header = web.Header{}
		}
		header["content-type"] = "application/x-www-form-urlencoded"
		return h.do("POST", "/authorize", header, body)
	}
	for _, tc := range []struct {
		name     string
		header   web.Header
		body     string
		status   int
		location string // a prefix of the redirect
		page     string // a part of the page shown
	}{
		{name: "no cookie", body: form("request", pending, "decision", "allow", "token", "memos_pat_pasted"), status: 403, page: "not sent from the page"},
		{name: "another browser's cookie", header: web.Header{"cookie": csrfCookie + "=someone-else"}, body: form("request", pending, "decision", "allow", "token", "memos_pat_pasted"), status: 403},
		{name: "cross-site origin", header: web.Header{"cookie": cookie, "origin": "https://evil.example.com"}, body: form("request", pending, "decision", "allow", "token", "memos_pat_pasted"), status: 403, page: "another site"},
		{name: "forged request", header: web.Header{"cookie": cookie}, body: form("request", pending[:len(pending)-4]+"AAAA", "decision", "allow", "token", "memos_pat_pasted"), status: 400, page: "expired"},
		{name: "deny", header: web.Header{"cookie": cookie}, body: form("request", pending, "decision", "deny"), status: 303, location: callback + "?error=access_denied"},
		{name: "wrong password", header: web.Header{"cookie": cookie}, body: form("request", pending, "decision", "allow", "username", "ann", "password", "nope"), status: 400, page: "did not accept this username and password"},
		{name: "unknown token", header: web.Header{"cookie": cookie}, body: form("request", pending, "decision", "allow", "token", "memos_pat_bogus"), status: 400, page: "did not accept this access token"},
		{name: "nothing entered", header: web.Header{"cookie": cookie}, body: form("request", pending, "decision", "allow"), status: 400, page: "Enter your Memos username"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(tc.header, tc.body)
			if resp.Status != tc.status || !strings.HasPrefix(resp.Header.Get("location"), tc.location) || !strings.Contains(string(resp.Body), tc.page) {
				t.Errorf("%d %s %.400s", resp.Status, resp.Header.Get("location"), resp.Body)
			}
			if strings.Contains(string(resp.Body), "nope") || strings.Contains(resp.Header.Get("location"), "memos_pat") {
				t.Errorf("the answer repeats a credential")
			}
		})
	}
	// The page itself is locked down.
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}}
	resp := h.do("GET", "/authorize?"+q.Encode(), nil, "")
	csp := resp.Header.Get("content-security-policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "form-action 'self' https://app.example.net"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if resp.Header.Get("cache-control") != "no-store" || resp.Header.Get("referrer-policy") != "same-origin" || !strings.Contains(string(resp.Body), "Test &lt;App&gt;") {
		t.Errorf("consent page headers or escaping: %v %s", resp.Header, resp.Body)
	}
}

// Authorization requests that are wrong are refused: to the person while
// the client or its redirect are unknown, to the client after that.
func TestAuthorizationRequests(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	good := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {callback}, "state": {"s"},
		"code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}}
	with := func(k, v string) string {
		q := url.Values{}
		for key, val := range good {
			q[key] = val
		}
		if v == "" {
			delete(q, k)
		} else {
			q.Set(k, v)
		}
		return q.Encode()
	}
	for _, tc := range []struct {
		name, query string
		status      int
		errCode     string // the error sent back to the client
	}{
		{name: "unknown client", query: with("client_id", "nobody"), status: 400},
		{name: "tampered client", query: with("client_id", id[:len(id)-2]+"AA"), status: 400},
		{name: "unregistered redirect", query: with("redirect_uri", "https://evil.example.com/cb"), status: 400},
		{name: "no PKCE", query: with("code_challenge", ""), status: 303, errCode: "invalid_request"},
		{name: "plain PKCE", query: with("code_challenge_method", "plain"), status: 303, errCode: "invalid_request"},
		{name: "token response", query: with("response_type", "token"), status: 303, errCode: "unsupported_response_type"},
		{name: "foreign resource", query: with("resource", "https://evil.example.com/mcp"), status: 303, errCode: "invalid_target"},
		{name: "unknown scope", query: with("scope", "admin"), status: 303, errCode: "invalid_scope"},
		{name: "CIMD client", query: with("client_id", "https://client.example.org/meta.json"), status: 200},
		{name: "CIMD document naming another client", query: with("client_id", "https://liar.example.org/meta.json"), status: 400},
		{name: "CIMD on a private address", query: with("client_id", "https://10.0.0.1/meta.json"), status: 400},
		{name: "CIMD over http", query: with("client_id", "http://client.example.org/meta.json"), status: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.do("GET", "/authorize?"+tc.query, nil, "")
			loc, _ := url.Parse(resp.Header.Get("location"))
			if resp.Status != tc.status || tc.errCode != "" && (loc.Query().Get("error") != tc.errCode || loc.Query().Get("iss") != base) {
				t.Errorf("%d %s %.300s", resp.Status, resp.Header.Get("location"), resp.Body)
			}
		})
	}
}

func TestRegistration(t *testing.T) {
	h := newHarness(t, testSecret)
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{name: "public client", body: `{"redirect_uris":["http://127.0.0.1:33418/callback"],"token_endpoint_auth_method":"none"}`, status: 201},
		{name: "no redirect", body: `{"client_name":"x"}`, status: 400, want: "invalid_redirect_uri"},
		{name: "custom scheme", body: `{"redirect_uris":["myapp://cb"]}`, status: 400, want: "invalid_redirect_uri"},
		{name: "plain http elsewhere", body: `{"redirect_uris":["http://app.example.net/cb"]}`, status: 400, want: "invalid_redirect_uri"},
		{name: "fragment", body: `{"redirect_uris":["https://app.example.net/cb#x"]}`, status: 400, want: "invalid_redirect_uri"},
		{name: "too many", body: `{"redirect_uris":[` + strings.Repeat(`"https://a.example/cb",`, 8) + `"https://a.example/cb"]}`, status: 400, want: "invalid_redirect_uri"},
		{name: "unknown auth method", body: `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, status: 400, want: "invalid_client_metadata"},
		{name: "implicit grant", body: `{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`, status: 400, want: "invalid_client_metadata"},
		{name: "not JSON", body: `redirect_uris=x`, status: 400, want: "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.do("POST", "/register", web.Header{"content-type": "application/json"}, tc.body)
			if resp.Status != tc.status || oauthErr(resp) != tc.want {
				t.Errorf("%d %s", resp.Status, resp.Body)
			}
		})
	}
	// A registration reads back with its registration access token only.
	resp := h.do("POST", "/register", web.Header{"content-type": "application/json"}, `{"client_name":"Claude","redirect_uris":["`+callback+`"],"token_endpoint_auth_method":"client_secret_post"}`)
	reg := gjson.ParseBytes(resp.Body)
	uri := strings.TrimPrefix(reg.Get("registration_client_uri").Str, base)
	if got := h.do("GET", uri, web.Header{"authorization": "Bearer " + reg.Get("registration_access_token").Str}, ""); got.Status != 200 || gjson.GetBytes(got.Body, "client_name").Str != "Claude" {
		t.Errorf("read back: %d %s", got.Status, got.Body)
	}
	if got := h.do("GET", uri, web.Header{"authorization": "Bearer nope"}, ""); got.Status != 401 {
		t.Errorf("read back without the token: %d %s", got.Status, got.Body)
	}
}

func TestMetadata(t *testing.T) {
	h := newHarness(t, testSecret)
	prm := gjson.ParseBytes(h.do("GET", "/.well-known/oauth-protected-resource/mcp", nil, "").Body)
	if prm.Get("resource").Str != base+"/mcp" || prm.Get("authorization_servers.0").Str != base {
		t.Errorf("resource metadata %s", prm.Raw)
	}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		as := gjson.ParseBytes(h.do("GET", path, nil, "").Body)
		if as.Get("issuer").Str != base || as.Get("code_challenge_methods_supported.0").Str != "S256" || !as.Get("client_id_metadata_document_supported").Bool() ||
			!as.Get("authorization_response_iss_parameter_supported").Bool() || as.Get("token_endpoint_auth_methods_supported.#").Int() != 3 {
			t.Errorf("%s: %s", path, as.Raw)
		}
	}
}

// The spent set stays bounded, and forgets expired entries first.
func TestSpentSetBounded(t *testing.T) {
	var p spentSet
	now := time.Unix(0, 0)
	for i := range maxSpent + 100 {
		if !p.spend(strings.Repeat("x", i), now.Add(time.Minute), now) {
			t.Fatalf("entry %d counted as spent", i)
		}
	}
	if len(p.seen) > maxSpent {
		t.Errorf("%d entries, want at most %d", len(p.seen), maxSpent)
	}
	if p.spend(strings.Repeat("x", maxSpent+99), now.Add(time.Minute), now) {
		t.Error("the last entry was forgotten")
	}
}

// BenchmarkAuthorize is what opening an access token adds to an /mcp
// request natively.
func BenchmarkAuthorize(b *testing.B) {
	keys, _ := seal.New(testSecret, "")
	s := New(Options{Keys: keys, Memos: newFakeMemos()})
	access := s.seal(purposeAccess, accessPrefix, record{Token: "memos_pat_" + strings.Repeat("x", 32), Scope: scopeAll,
		Client: clientRef("https://claude.ai/oauth/mcp-oauth-client-metadata"), Resource: base + "/mcp"}, accessTTL)
	req := mcpRequest("Bearer " + access)
	for b.Loop() {
		if _, _, refusal := s.Authorize(req); refusal != nil {
			b.Fatal(string(refusal.Body))
		}
	}
}
