package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/caller"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

const (
	base     = "https://mcp.example.com"
	callback = "https://app.example.net/callback"
	verifier = "0123456789abcdef0123456789abcdef0123456789abcdef"
	password = "correct horse"
)

// refused is how fakeMemos refuses credentials, as the Memos client does.
var refused = &memos.Error{Status: 401, Msg: "refused", Refused: true}

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
		return "", "", refused
	}
	return "session-jwt", "users/ann", nil
}

func (m *fakeMemos) CreateToken(_ context.Context, bearer, user, description string, days int) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[bearer]; bearer != "session-jwt" && !ok || user != "users/ann" {
		return "", "", refused
	}
	m.created = append(m.created, description)
	token := "memos_pat_" + strings.Repeat("x", len(m.created))
	m.tokens[token] = "users/ann/personalAccessTokens/" + token
	return token, m.tokens[token], nil
}

func (m *fakeMemos) CurrentUser(_ context.Context, token string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[token]; !ok {
		return "", refused
	}
	return "users/ann", nil
}

func (m *fakeMemos) DeleteToken(_ context.Context, token, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens[token] != name {
		return refused
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
	store *faultyStore
	now   time.Time
	// digestDown makes the runtime's SHA-256 fail, as a Web Crypto call
	// that throws would.
	digestDown bool
}

// sha256 is the harness's Options.SHA256: the standard library's, as
// natively (bridge.SHA256), unless the digest is down.
func (h *harness) sha256(_ context.Context, data []byte) ([]byte, error) {
	if h.digestDown {
		return nil, errors.New("digest: down")
	}
	sum := sha256.Sum256(data)
	return sum[:], nil
}

// faultyStore is a grants.Memory that fails every operation while down,
// as an unreachable Durable Object would.
type faultyStore struct {
	*grants.Memory
	down bool
}

func (f *faultyStore) Advance(ctx context.Context, key string, from int64, until time.Time) (grants.Step, error) {
	if f.down {
		return grants.Step{}, grants.ErrUnavailable
	}
	return f.Memory.Advance(ctx, key, from, until)
}

func (f *faultyStore) End(ctx context.Context, key string, until time.Time) error {
	if f.down {
		return grants.ErrUnavailable
	}
	return f.Memory.End(ctx, key, until)
}

func (f *faultyStore) Get(ctx context.Context, key string) (int64, error) {
	if f.down {
		return 0, grants.ErrUnavailable
	}
	return f.Memory.Get(ctx, key)
}

func (f *faultyStore) Hit(ctx context.Context, key string, limit int, window time.Duration) (time.Duration, error) {
	if f.down {
		return 0, grants.ErrUnavailable
	}
	return f.Memory.Hit(ctx, key, limit, window)
}

func newHarness(t *testing.T, secret string) *harness {
	keys, err := seal.New(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, memos: newFakeMemos(), now: time.Unix(1_900_000_000, 0)}
	h.store = &faultyStore{Memory: grants.NewMemory(func() time.Time { return h.now })}
	h.s = New(Options{
		Keys: keys, Memos: h.memos, Store: h.store, Instance: "memos.example.com", AcceptMemosTokens: true,
		Callers: caller.New(h.memos.CurrentUser, caller.Options{Now: func() time.Time { return h.now }}),
		Fetch: docServer{"https://client.example.org/meta.json": `{"client_id":"https://client.example.org/meta.json","client_name":"Doc App","redirect_uris":["` + callback + `"]}`,
			"https://liar.example.org/meta.json": `{"client_id":"https://client.example.org/meta.json","redirect_uris":["` + callback + `"]}`},
		Now:    func() time.Time { return h.now },
		SHA256: h.sha256,
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
	auth, readOnly, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access))
	if refusal != nil || auth != "Bearer memos_pat_x" || readOnly {
		t.Errorf("Authorize: %q %v %v", auth, readOnly, refusal)
	}
	// Refresh rotates, twice.
	for range 2 {
		resp = h.refresh(id, secret, refresh)
		if resp.Status != 200 || gjson.GetBytes(resp.Body, "refresh_token").Str == refresh {
			t.Fatalf("refresh: %d %s", resp.Status, resp.Body)
		}
		refresh = gjson.GetBytes(resp.Body, "refresh_token").Str
	}
	// Revocation ends the grant at once and deletes its Memos token: the
	// access token and the refresh token work no more.
	if resp := h.do("POST", "/revoke", formHeader, form("token", access, "client_id", id, "client_secret", secret)); resp.Status != 200 {
		t.Errorf("revoke: %d %s", resp.Status, resp.Body)
	}
	if _, err := h.memos.CurrentUser(context.Background(), "memos_pat_x"); err == nil {
		t.Error("revocation left the Memos token in place")
	}
	if _, _, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access)); refusal == nil || refusal.Status != 401 {
		t.Errorf("access token after revocation: %v", refusal)
	}
	if resp := h.refresh(id, secret, refresh); oauthErr(resp) != "invalid_grant" {
		t.Errorf("refresh after revocation: %d %s", resp.Status, resp.Body)
	}
}

func (h *harness) refresh(id, secret, refresh string) *web.Response {
	return h.do("POST", "/token", formHeader, form("grant_type", "refresh_token", "refresh_token", refresh, "client_id", id, "client_secret", secret))
}

// A code or a refresh token works once, however it is spelled, and its
// second use ends the grant, for the thief and the rightful client alike,
// and deletes the grant's Memos token.
func TestReplay(t *testing.T) {
	respell := []struct {
		name  string
		spell func(string) string
	}{
		{"with a newline", func(s string) string { return s + "\n" }},
		{"with CRLF inside", func(s string) string { return s[:20] + "\r\n" + s[20:] }},
		{"padded with space", func(s string) string { return s + " " }},
		{"as it was", func(s string) string { return s }}, // last: it ends the grant
	}
	t.Run("code", func(t *testing.T) {
		h := newHarness(t, testSecret)
		id, _ := h.registerClient("none")
		code := h.code(id, "write")
		first := h.tokens(id, "", code, verifier)
		if first.Status != 200 {
			t.Fatalf("first use: %d %s", first.Status, first.Body)
		}
		for _, r := range respell {
			if again := h.tokens(id, "", r.spell(code), verifier); again.Status != 400 || oauthErr(again) != "invalid_grant" {
				t.Errorf("second use %s: %d %s", r.name, again.Status, again.Body)
			}
		}
		h.now = h.now.Add(grantStatusTTL)
		access := gjson.GetBytes(first.Body, "access_token").Str
		if _, _, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access)); refusal == nil || refusal.Status != 401 {
			t.Errorf("the grant of a replayed code still works: %v", refusal)
		}
		if resp := h.refresh(id, "", gjson.GetBytes(first.Body, "refresh_token").Str); oauthErr(resp) != "invalid_grant" {
			t.Errorf("the grant of a replayed code refreshes: %d %s", resp.Status, resp.Body)
		}
		if len(h.memos.tokens) != 1 {
			t.Errorf("the grant's Memos token is still there: %v", h.memos.tokens)
		}
	})
	t.Run("refresh token", func(t *testing.T) {
		h := newHarness(t, testSecret)
		id, _ := h.registerClient("none")
		old := gjson.GetBytes(h.tokens(id, "", h.code(id, "write"), verifier).Body, "refresh_token").Str
		rotated := h.refresh(id, "", old)
		if rotated.Status != 200 {
			t.Fatalf("refresh: %d %s", rotated.Status, rotated.Body)
		}
		// Its successor is used: old is now a replay, not a retry.
		next := h.refresh(id, "", gjson.GetBytes(rotated.Body, "refresh_token").Str)
		if next.Status != 200 {
			t.Fatalf("the successor's refresh: %d %s", next.Status, next.Body)
		}
		for _, r := range respell {
			if again := h.refresh(id, "", r.spell(old)); oauthErr(again) != "invalid_grant" {
				t.Errorf("reused refresh token %s: %d %s", r.name, again.Status, again.Body)
			}
		}
		// The rightful chain is ended too.
		if after := h.refresh(id, "", gjson.GetBytes(next.Body, "refresh_token").Str); oauthErr(after) != "invalid_grant" {
			t.Errorf("the rotated refresh token after a reuse: %d %s", after.Status, after.Body)
		}
		if len(h.memos.tokens) != 1 {
			t.Errorf("the grant's Memos token is still there: %v", h.memos.tokens)
		}
	})
}

// A grant ends after the days chosen at consent, however often it is
// refreshed.
func TestGrantLifetime(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	tok := h.tokens(id, "", h.code(id, "write"), verifier) // 30 days
	refresh := gjson.GetBytes(tok.Body, "refresh_token").Str
	for day := 0; day < 29; day += 7 {
		h.now = h.now.Add(7 * 24 * time.Hour)
		resp := h.refresh(id, "", refresh)
		if day < 28 && resp.Status != 200 {
			t.Fatalf("refresh on day %d: %d %s", day+7, resp.Status, resp.Body)
		}
		if day >= 28 {
			if resp.Status == 200 {
				t.Fatalf("a refresh on day %d outlived the 30-day grant", day+7)
			}
			return
		}
		if exp := gjson.GetBytes(resp.Body, "expires_in").Int(); exp > int64(accessTTL.Seconds()) || exp <= 0 {
			t.Errorf("expires_in %d", exp)
		}
		refresh = gjson.GetBytes(resp.Body, "refresh_token").Str
	}
	t.Fatal("the grant never ended")
}

// When the grant store cannot be reached, nothing is issued or accepted on
// a guess: token requests, consent and /mcp fail with 503.
func TestStoreDown(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	tok := h.tokens(id, "", h.code(id, "write"), verifier)
	access, refresh := gjson.GetBytes(tok.Body, "access_token").Str, gjson.GetBytes(tok.Body, "refresh_token").Str
	code := h.code(id, "read")
	pending, cookie := h.consent(id, "")
	h.now = h.now.Add(grantStatusTTL)
	h.store.down = true
	if resp := h.tokens(id, "", code, verifier); resp.Status != 503 || oauthErr(resp) != "temporarily_unavailable" {
		t.Errorf("code exchange: %d %s", resp.Status, resp.Body)
	}
	if resp := h.refresh(id, "", refresh); resp.Status != 503 {
		t.Errorf("refresh: %d %s", resp.Status, resp.Body)
	}
	if resp := h.do("POST", "/revoke", formHeader, form("token", access, "client_id", id)); resp.Status != 503 {
		t.Errorf("revocation: %d %s", resp.Status, resp.Body)
	}
	if _, _, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access)); refusal == nil || refusal.Status != 503 {
		t.Errorf("/mcp: %v", refusal)
	}
	resp := h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
		form("request", pending, "decision", "allow", "username", "ann", "password", password))
	if resp.Status != 503 || resp.Header.Get("location") != "" {
		t.Errorf("consent: %d %s", resp.Status, resp.Header.Get("location"))
	}
	if len(h.memos.created) != 2 {
		t.Errorf("Memos tokens created while the store was down: %q", h.memos.created)
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
	auth, readOnly, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+gjson.GetBytes(tok.Body, "access_token").Str))
	if refusal != nil || auth != "Bearer memos_pat_x" || !readOnly {
		t.Errorf("Authorize: %q %v %v (the grant must carry a token of its own, not the pasted one)", auth, readOnly, refusal)
	}
	if len(h.memos.created) != 1 || h.memos.created[0] != "MCP: Test <App>" {
		t.Errorf("tokens created: %q", h.memos.created)
	}
	// Revoking the grant deletes its own token, not the pasted one.
	h.do("POST", "/revoke", formHeader, form("token", gjson.GetBytes(tok.Body, "refresh_token").Str, "client_id", id))
	if _, err := h.memos.CurrentUser(context.Background(), "memos_pat_x"); err == nil {
		t.Error("revocation left the grant's token in place")
	}
	if _, err := h.memos.CurrentUser(context.Background(), "memos_pat_pasted"); err != nil {
		t.Error("revocation deleted the pasted token")
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

// A code whose verifier cannot be hashed is answered with server_error and
// stays unspent: the client's retry gets its tokens.
func TestCodeVerifierDigestFails(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	code := h.code(id, "write")
	h.digestDown = true
	if resp := h.tokens(id, "", code, verifier); resp.Status != 500 || oauthErr(resp) != "server_error" {
		t.Fatalf("digest down: %d %s", resp.Status, resp.Body)
	}
	h.digestDown = false
	if resp := h.tokens(id, "", code, verifier); resp.Status != 200 || gjson.GetBytes(resp.Body, "access_token").Str == "" {
		t.Errorf("the retry: %d %s", resp.Status, resp.Body)
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
		{name: "Memos token unknown to Memos", auth: "Bearer memos_pat_made_up", acceptMemos: true, wantErr: "invalid_token"},
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
			got, _, refusal := h.s.Authorize(context.Background(), req)
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
	// A plain Memos token is refused the same way, and forgotten: the next
	// request asks Memos again.
	if resp := h.s.Revoked(mcpRequest("Bearer memos_pat_pasted")); resp == nil || resp.Status != 401 {
		t.Errorf("a plain Memos token: %+v", resp)
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

// Authorization requests that are wrong are refused on a page shown to the
// person, never redirected to the client: nobody has acted yet.
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
		page        string // a part of the error page
	}{
		{name: "unknown client", query: with("client_id", "nobody"), status: 400},
		{name: "tampered client", query: with("client_id", id[:len(id)-2]+"AA"), status: 400},
		{name: "unregistered redirect", query: with("redirect_uri", "https://evil.example.com/cb"), status: 400},
		{name: "no PKCE", query: with("code_challenge", ""), status: 400, page: "PKCE"},
		{name: "plain PKCE", query: with("code_challenge_method", "plain"), status: 400, page: "PKCE"},
		{name: "token response", query: with("response_type", "token"), status: 400, page: "response_type"},
		{name: "foreign resource", query: with("resource", "https://evil.example.com/mcp"), status: 400, page: "grants access to"},
		{name: "unknown scope", query: with("scope", "admin"), status: 400, page: "scopes"},
		{name: "offline_access", query: with("scope", "memos:read offline_access"), status: 200},
		{name: "CIMD client", query: with("client_id", "https://client.example.org/meta.json"), status: 200},
		{name: "CIMD document naming another client", query: with("client_id", "https://liar.example.org/meta.json"), status: 400},
		{name: "CIMD on a private address", query: with("client_id", "https://10.0.0.1/meta.json"), status: 400},
		{name: "CIMD over http", query: with("client_id", "http://client.example.org/meta.json"), status: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.do("GET", "/authorize?"+tc.query, nil, "")
			if resp.Status != tc.status || resp.Header.Get("location") != "" || !strings.Contains(string(resp.Body), tc.page) {
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

// BenchmarkAuthorize is what opening an access token adds to an /mcp
// request natively.
func BenchmarkAuthorize(b *testing.B) {
	keys, _ := seal.New(testSecret, "")
	store := grants.NewMemory(nil)
	memos := newFakeMemos()
	s := New(Options{Keys: keys, Memos: memos, Store: store, Callers: caller.New(memos.CurrentUser, caller.Options{})})
	store.Advance(context.Background(), grantKey("g"), 0, time.Now().Add(time.Hour))
	store.Advance(context.Background(), grantKey("g"), 1, time.Now().Add(time.Hour))
	access := s.seal(purposeAccess, accessPrefix, record{Token: "memos_pat_pasted", Scope: scopeAll,
		Client: clientRef("https://claude.ai/oauth/mcp-oauth-client-metadata"), Resource: base + "/mcp", Grant: "g"}, accessTTL)
	req := mcpRequest("Bearer " + access)
	for b.Loop() {
		if _, _, refusal := s.Authorize(context.Background(), req); refusal != nil {
			b.Fatal(string(refusal.Body))
		}
	}
}

// A consent page posted twice makes one grant and one Memos token.
func TestConsentOnce(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	pending, cookie := h.consent(id, "")
	post := func() *web.Response {
		return h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
			form("request", pending, "decision", "allow", "username", "ann", "password", password))
	}
	if first := post(); first.Status != 303 {
		t.Fatalf("first post: %d %s", first.Status, first.Body)
	}
	if second := post(); second.Status != 409 || second.Header.Get("location") != "" {
		t.Errorf("second post: %d %s", second.Status, second.Header.Get("location"))
	}
	if len(h.memos.created) != 1 {
		t.Errorf("tokens created: %q", h.memos.created)
	}
}

// Sign-in attempts are bounded per consent page, per username and per
// client address; past a budget Memos is not asked at all.
func TestSignInBudgets(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	counting := &countingMemos{fakeMemos: h.memos}
	h.s.opts.Memos = counting
	attempt := func(pending, cookie, addr, username, pw string) *web.Response {
		return h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie, "cf-connecting-ip": addr},
			form("request", pending, "decision", "allow", "username", username, "password", pw))
	}
	// One page: three attempts, then a clear refusal, even with the right
	// password.
	pending, cookie := h.consent(id, "")
	for i := range attemptsPerRequest {
		if resp := attempt(pending, cookie, "192.0.2.1", "ann", "wrong"); resp.Status != 400 {
			t.Fatalf("attempt %d: %d", i+1, resp.Status)
		}
	}
	resp := attempt(pending, cookie, "192.0.2.1", "ann", password)
	if resp.Status != 429 || !strings.Contains(string(resp.Body), "too many sign-in attempts") {
		t.Errorf("past the page's budget: %d %.300s", resp.Status, resp.Body)
	}
	if counting.signIns != attemptsPerRequest {
		t.Errorf("Memos was asked %d times, want %d", counting.signIns, attemptsPerRequest)
	}
	// The username's budget holds across pages and addresses.
	for i := attemptsPerRequest; i < attemptsPerUser; i++ {
		p, c := h.consent(id, "")
		attempt(p, c, "192.0.2."+strconv.Itoa(10+i), "ANN", "wrong")
	}
	p, c := h.consent(id, "")
	if resp := attempt(p, c, "192.0.2.99", "ann", password); resp.Status != 429 || !strings.Contains(string(resp.Body), "this username") {
		t.Errorf("past the username's budget: %d %.300s", resp.Status, resp.Body)
	}
	// The address's budget holds across pages and usernames.
	for i := range attemptsPerAddress {
		p, c := h.consent(id, "")
		attempt(p, c, "198.51.100.7", "user"+strconv.Itoa(i), "wrong")
	}
	p, c = h.consent(id, "")
	if resp := attempt(p, c, "198.51.100.7", "bob", "wrong"); resp.Status != 429 || !strings.Contains(string(resp.Body), "your network") {
		t.Errorf("past the address's budget: %d %.300s", resp.Status, resp.Body)
	}
	// Time heals.
	h.now = h.now.Add(attemptWindow)
	p, c = h.consent(id, "")
	if resp := attempt(p, c, "192.0.2.1", "ann", password); resp.Status != 303 {
		t.Errorf("after the window: %d %.300s", resp.Status, resp.Body)
	}
}

// countingMemos counts the sign-ins Memos is asked for.
type countingMemos struct {
	*fakeMemos
	signIns int
}

func (c *countingMemos) SignIn(ctx context.Context, username, pw string) (string, string, error) {
	c.signIns++
	return c.fakeMemos.SignIn(ctx, username, pw)
}

// A grant whose Memos token was deleted in Memos is refused at /mcp, not
// served as an anonymous visitor.
func TestGrantTokenDeletedInMemos(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	access := gjson.GetBytes(h.tokens(id, "", h.code(id, "write"), verifier).Body, "access_token").Str
	h.memos.DeleteToken(context.Background(), "memos_pat_x", "users/ann/personalAccessTokens/memos_pat_x")
	if _, _, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access)); refusal == nil || refusal.Status != 401 {
		t.Errorf("a grant whose Memos token is gone: %v", refusal)
	}
}

// limitedMemos answers every sign-in as Memos v0.31 does when it limits
// sign-ins or asks for a captcha.
type limitedMemos struct {
	*fakeMemos
	err error
}

func (l limitedMemos) SignIn(context.Context, string, string) (string, string, error) {
	return "", "", l.err
}

// Memos' own refusals reach the person as what they are, with the page's
// choices kept: a rate limit as 429 with when to try again, a captcha as
// advice to paste a token.
func TestMemosRefusalsOnConsent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		page   string
	}{
		{"rate limited", &memos.Error{Status: 429, Msg: "Memos refused the sign-in", Wait: 90 * time.Second}, 429, "Try again in 2 minutes"},
		{"captcha", &memos.Error{Status: 400, Msg: "Memos refused the sign-in", Challenge: true}, 400, "paste it here instead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testSecret)
			id, _ := h.registerClient("none")
			h.s.opts.Memos = limitedMemos{h.memos, tc.err}
			pending, cookie := h.consent(id, "")
			resp := h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
				form("request", pending, "decision", "allow", "access", "read", "username", "ann", "password", password))
			if resp.Status != tc.status || !strings.Contains(string(resp.Body), tc.page) || !strings.Contains(string(resp.Body), `value="ann"`) {
				t.Errorf("%d %.600s", resp.Status, resp.Body)
			}
		})
	}
}

// The address and username budgets refuse before anything is stored for the
// page: past them, a burst of fresh consent pages adds no key to the store.
// IPv6 addresses share the budget of their /64.
func TestSignInBudgetsStoreNothingPastThem(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	attempt := func(addr, username string) *web.Response {
		p, c := h.consent(id, "")
		return h.do("POST", "/authorize", web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": c, "cf-connecting-ip": addr},
			form("request", p, "decision", "allow", "username", username, "password", "wrong"))
	}
	for i := range attemptsPerAddress {
		if resp := attempt("2001:db8:1:2::"+strconv.FormatInt(int64(i+1), 16), "user"+strconv.Itoa(i)); resp.Status != 400 {
			t.Fatalf("attempt %d: %d", i+1, resp.Status)
		}
	}
	keys := h.store.Len()
	for i := range 20 {
		resp := attempt("2001:db8:1:2:"+strconv.Itoa(i+1)+"::7", "other"+strconv.Itoa(i))
		if resp.Status != 429 || !strings.Contains(string(resp.Body), "your network") {
			t.Fatalf("refused attempt %d from the same /64: %d %.300s", i+1, resp.Status, resp.Body)
		}
	}
	if got := h.store.Len(); got != keys {
		t.Errorf("20 refused attempts added %d keys to the store, want none", got-keys)
	}
	if resp := attempt("2001:db8:1:3::1", "ann"); resp.Status != 400 {
		t.Errorf("the next /64: %d, want its own budget", resp.Status)
	}
	// Past a username's budget likewise, from addresses with budget left.
	for i := range attemptsPerUser {
		attempt("192.0.2."+strconv.Itoa(i+1), "bob")
	}
	keys = h.store.Len()
	for i := range 5 {
		if resp := attempt("192.0.2."+strconv.Itoa(i+1), "Bob"); resp.Status != 429 || !strings.Contains(string(resp.Body), "this username") {
			t.Fatalf("refused attempt %d for the username: %d", i+1, resp.Status)
		}
	}
	if got := h.store.Len(); got != keys {
		t.Errorf("5 refused attempts for a username added %d keys, want none", got-keys)
	}
}
