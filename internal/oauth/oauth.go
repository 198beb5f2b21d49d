// Package oauth makes the gateway the OAuth 2.1 authorization server of its
// own /mcp endpoint, for clients that cannot send a Memos token themselves
// (Claude and ChatGPT on the web and on phones). Client registrations,
// consent requests, codes and tokens are records sealed under OAUTH_SECRET
// (package seal); what sealing cannot do (a code or refresh token that works
// once everywhere, revocation, sign-in budgets) is remembered per grant by
// package grants. Each grant carries a Memos personal access token of its
// own, created at consent, inside the gateway's tokens, which only the
// gateway can open.
package oauth

import (
	"context"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/caller"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Scopes. A read-and-write grant holds both.
const (
	ScopeRead  = "memos:read"
	ScopeWrite = "memos:write"
	scopeAll   = ScopeRead + " " + ScopeWrite
)

// Lifetimes of what the server issues. Access tokens live a day: Claude
// often never refreshes, and every use of one still checks that its grant
// is alive (grantStatusTTL). A grant ends after the days the person chose
// at consent, whatever the refreshes; its refresh tokens with it.
const (
	consentTTL = 10 * time.Minute
	codeTTL    = 2 * time.Minute
	accessTTL  = 24 * time.Hour
	clientTTL  = 10 * 365 * 24 * time.Hour // registrations do not expire in practice
)

// Seal purposes, one key each.
const (
	purposeClient  = "client"
	purposeConsent = "consent"
	purposeCode    = "code"
	purposeAccess  = "access"
	purposeRefresh = "refresh"
	purposeSecret  = "client secret"
)

// The grant types of the token endpoint, as registration checks them and
// the metadata and registration answers list them.
const (
	grantCode      = "authorization_code"
	grantRefresh   = "refresh_token"
	grantTypesJSON = `["` + grantCode + `","` + grantRefresh + `"]`
)

// Prefixes tell the gateway's tokens from Memos tokens and from each other.
const (
	clientPrefix  = "mme-client-"
	codePrefix    = "mme-code-"
	accessPrefix  = "mme-at-"
	refreshPrefix = "mme-rt-"
)

// Memos is what the consent step and revocation need of the instance.
// memos.Client implements it; its errors are *memos.Error.
type Memos interface {
	SignIn(ctx context.Context, username, password string) (token, user string, err error)
	CreateToken(ctx context.Context, bearer, user, description string, days int) (token, name string, err error)
	CurrentUser(ctx context.Context, token string) (string, error)
	DeleteToken(ctx context.Context, token, name string) error
}

// Options configure a Server.
type Options struct {
	Keys  *seal.Keys
	Memos Memos
	// Store remembers grants' generations and sign-in attempts.
	Store grants.Store
	// Callers checks with Memos the Memos tokens behind bearer tokens
	// before anything goes upstream with them.
	Callers *caller.Verifier
	// Fetch fetches client ID metadata documents.
	Fetch web.Doer
	// SHA256 hashes a PKCE verifier: in the Worker, the runtime's Web
	// Crypto does (bridge.SHA256), which keeps Go's FIPS 140 module out
	// of the wasm.
	SHA256 func(ctx context.Context, data []byte) ([]byte, error)
	// Instance names the Memos instance on the consent page.
	Instance string
	// AcceptMemosTokens lets a plain Memos token in Authorization through
	// to Memos, for clients that can send one.
	AcceptMemosTokens bool
	// AllowLoopbackClients accepts client ID metadata documents and their
	// redirect URIs on plain-http loopback addresses (tests, development).
	AllowLoopbackClients bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server answers the authorization endpoints and checks the bearer tokens
// of /mcp requests.
type Server struct {
	opts    Options
	clients clientCache
	live    liveGrants
}

// New returns a Server for opts.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{opts: opts, clients: clientCache{docs: map[string]cachedClient{}}, live: liveGrants{seen: map[string]time.Time{}}}
}

// Paths the server answers.
const (
	pathResourceMeta = "/.well-known/oauth-protected-resource"
	pathServerMeta   = "/.well-known/oauth-authorization-server"
	pathOpenIDMeta   = "/.well-known/openid-configuration"
	pathAuthorize    = "/authorize"
	pathToken        = "/token"
	pathRegister     = "/register"
	pathRevoke       = "/revoke"
)

// Handle answers req when its path is one of the authorization server's;
// ok is false for any other path.
func (s *Server) Handle(ctx context.Context, req *web.Request) (resp *web.Response, ok bool) {
	path := req.Path()
	switch {
	case path == pathResourceMeta || path == pathResourceMeta+"/mcp":
		return s.resourceMetadata(req), true
	case path == pathServerMeta || path == pathServerMeta+"/mcp" || path == pathOpenIDMeta || path == pathOpenIDMeta+"/mcp" || path == "/mcp"+pathOpenIDMeta:
		return s.serverMetadata(req), true
	case path == pathAuthorize:
		return s.authorize(ctx, req), true
	case path == pathToken:
		return s.token(ctx, req), true
	case path == pathRegister || strings.HasPrefix(path, pathRegister+"/"):
		return s.register(req), true
	case path == pathRevoke:
		return s.revoke(ctx, req), true
	}
	return nil, false
}

// origin is the scheme and host the request came to: the issuer, and the
// base of every URL the server names.
func origin(req *web.Request) string {
	scheme, _, _ := strings.Cut(req.URL, "://")
	return scheme + "://" + req.Host()
}

// resource is the protected resource's identifier: the MCP endpoint.
func resource(req *web.Request) string { return origin(req) + "/mcp" }

// sameResource reports whether a request's resource parameter (RFC 8707)
// names ours, or names none. A query is allowed there, though discouraged,
// and some clients copy the one of the URL they were given: the resource
// is compared without it. A fragment is not allowed.
func sameResource(asked, ours string) bool {
	named, _, _ := strings.Cut(asked, "?")
	return asked == "" || named == ours
}

// jsonResponse answers with a JSON body that no cache may keep.
func jsonResponse(status int, body []byte) *web.Response {
	return &web.Response{Status: status, Body: body, Header: web.Header{
		"content-type": "application/json", "cache-control": "no-store", "pragma": "no-cache",
	}}
}

// oauthError answers with an OAuth error object (RFC 6749 section 5.2).
func oauthError(status int, code, description string) *web.Response {
	b := []byte(`{"error":`)
	b = rawjson.AppendString(b, code)
	b = append(b, `,"error_description":`...)
	b = rawjson.AppendString(b, description)
	resp := jsonResponse(status, append(b, '}'))
	if status == 401 {
		resp.Header["www-authenticate"] = `Basic realm="token"`
	}
	return resp
}
