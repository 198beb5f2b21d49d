package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// client is a client the server knows: registered here (DCR, its
// registration sealed in its client_id) or described by a client ID
// metadata document at its client_id URL (CIMD).
type client struct {
	ID         string
	Name       string
	Redirects  []string
	AuthMethod string // none, client_secret_post or client_secret_basic
}

// DocumentMaxBytes is the most a client ID metadata document may hold;
// Options.Fetch must refuse longer answers.
const DocumentMaxBytes = 16 << 10

// Limits on what a client may register or describe.
const (
	maxRedirects = 8
	// A client document may list more: some clients (ChatGPT) give each
	// connector a redirect URI of its own, all in their one document.
	maxDocumentRedirects = 64
	maxURILen            = 512
	maxNameLen           = 100
	cimdTimeout          = 5 * time.Second
	cimdCacheTTL         = 10 * time.Minute
	cimdCacheLimit       = 64
)

var errUnknownClient = errors.New("unknown client")

// lookupClient returns the client called id. A client document is read
// from this isolate's cache, unless the copy there lacks redirect (when not
// empty): a client that gives each connector a redirect URI of its own
// adds one to its document for a new connector, so it is fetched again.
func (s *Server) lookupClient(ctx context.Context, id, redirect string) (client, error) {
	if strings.HasPrefix(id, clientPrefix) {
		r, err := s.open(purposeClient, clientPrefix, id)
		if err != nil {
			return client{}, errUnknownClient
		}
		return client{ID: id, Name: r.Name, Redirects: r.Redirects, AuthMethod: r.AuthMethod}, nil
	}
	fetchURL, ok := s.documentURL(id)
	if !ok {
		return client{}, errUnknownClient
	}
	now := s.opts.Now()
	s.clients.mu.Lock()
	cached, ok := s.clients.docs[id]
	s.clients.mu.Unlock()
	if ok && cached.expires.After(now) && (redirect == "" || slices.Contains(cached.c.Redirects, redirect)) {
		return cached.c, nil
	}
	return s.fetchClient(ctx, id, fetchURL)
}

// checkedURL parses u, an absolute http(s) URL without fragment or
// credentials, and reads its origin as the runtime's fetch and browsers
// will (package uri's Origin): what is judged is the host they connect to.
func checkedURL(u string) (uri.URL, string, uri.Host, bool) {
	p, err := uri.Parse(u)
	if err != nil || len(u) > maxURILen || p.Host == "" || p.Fragment != "" || strings.Contains(u, "#") || p.HasUser ||
		p.Scheme != "https" && p.Scheme != "http" {
		return uri.URL{}, "", uri.Host{}, false
	}
	origin, h, err := uri.Origin(p)
	return p, origin, h, err == nil
}

// redirectAllowed reports whether u may be a redirect URI: https to a DNS
// name (LDH labels, punycode as written) or a loopback address, or http to
// a loopback address or localhost (native apps, RFC 8252). Its origin,
// which the consent page's form-action names, can then hold nothing but
// the scheme, that host and a port.
func redirectAllowed(u string) bool {
	p, _, h, ok := checkedURL(u)
	if !ok {
		return false
	}
	if p.Scheme == "http" {
		return h.IsLoopback()
	}
	return h.Kind == uri.DNSName || h.IsLoopback()
}

// documentURL reports whether id may be a client ID metadata document's
// URL, and returns the URL to fetch it from: id with its origin written
// the way fetch reads it. It must be https with a path, on a public DNS
// name: no IP address in any spelling, no single-label, special-use or
// internal name. Plain http to a loopback host only when allowed, for
// tests.
func (s *Server) documentURL(id string) (string, bool) {
	p, origin, h, ok := checkedURL(id)
	if !ok || p.Path == "" || p.Path == "/" {
		return "", false
	}
	switch {
	case p.Scheme == "http" && s.opts.AllowLoopbackClients && h.IsLoopback():
	case p.Scheme != "https" || h.Kind != uri.DNSName || !strings.Contains(h.Domain(), ".") || internalName(h.Domain()):
		return "", false
	}
	// What follows the authority, as written: the path and query.
	rest := id[len(p.Scheme)+len("://"):]
	return origin + rest[strings.IndexByte(rest, '/'):], true
}

// internalNames are the suffixes no public client document lives under:
// special-use names (RFC 6761, 6762, 7686, 9476; arpa holds home.arpa,
// RFC 8375) and names networks commonly use inside.
var internalNames = []string{"localhost", "local", "internal", "test", "invalid", "example", "onion", "alt", "arpa",
	"lan", "home", "corp", "intranet", "private"}

// internalName reports whether name (canonical: lower case, no trailing
// dot) is, or is under, one of internalNames.
func internalName(name string) bool {
	for _, n := range internalNames {
		if name == n || strings.HasSuffix(name, "."+n) {
			return true
		}
	}
	return false
}

// clientCache keeps the client documents this isolate fetched, briefly.
type clientCache struct {
	mu   sync.Mutex
	docs map[string]cachedClient
}

type cachedClient struct {
	c       client
	expires time.Time
}

// fetchClient reads a client ID metadata document, within a size and time
// limit, without following redirects, and caches it.
func (s *Server) fetchClient(ctx context.Context, id, fetchURL string) (client, error) {
	resp, err := s.opts.Fetch.Do(ctx, &web.Request{Method: "GET", URL: fetchURL, Header: web.Header{"accept": "application/json"}, Timeout: cimdTimeout})
	if err != nil { // Fetch refuses documents over DocumentMaxBytes
		return client{}, errors.New("its client ID metadata document could not be fetched")
	}
	if resp.Status != 200 || !rawjson.ValidBytes(resp.Body) {
		return client{}, errors.New("its client ID metadata document is not a JSON document answered with 200")
	}
	doc := rawjson.ParseBytes(resp.Body)
	if doc.Get("client_id").Str != id {
		return client{}, errors.New("its client ID metadata document names another client_id")
	}
	c := client{ID: id, Name: doc.Get("client_name").Str, AuthMethod: "none"}
	if len(c.Name) > maxNameLen {
		return client{}, errors.New("its client ID metadata document's client_name is longer than " + strconv.Itoa(maxNameLen) + " bytes")
	}
	c.Name = visible.Line(c.Name)
	for _, u := range doc.Get("redirect_uris").Array() {
		if !redirectAllowed(u.Str) {
			return client{}, errors.New("its client ID metadata document lists a redirect URI that is not https to a DNS name, or http to a loopback address")
		}
		c.Redirects = append(c.Redirects, u.Str)
	}
	if len(c.Redirects) == 0 || len(c.Redirects) > maxDocumentRedirects {
		return client{}, errors.New("its client ID metadata document lists no redirect URIs, or too many")
	}
	s.clients.mu.Lock()
	if len(s.clients.docs) >= cimdCacheLimit {
		clear(s.clients.docs)
	}
	s.clients.docs[id] = cachedClient{c: c, expires: s.opts.Now().Add(cimdCacheTTL)}
	s.clients.mu.Unlock()
	return c, nil
}

// register answers dynamic client registration (RFC 7591) statelessly: the
// registration is sealed into the client_id, and a confidential client's
// secret is derived from it. GET /register/<client_id> reads a
// registration back (RFC 7592), with its registration access token.
func (s *Server) register(req *web.Request) *web.Response {
	if req.Method == "OPTIONS" {
		return preflight()
	}
	if id, ok := strings.CutPrefix(req.Path(), pathRegister+"/"); ok {
		if req.Method != "GET" {
			return oauthError(405, "invalid_request", "a registration is read with GET")
		}
		r, err := s.open(purposeClient, clientPrefix, id)
		token, _ := strings.CutPrefix(req.Header.Get("authorization"), "Bearer ")
		if err != nil || !s.opts.Keys.CheckMAC("registration", id, token) {
			return oauthError(401, "invalid_token", "the registration access token does not match this client")
		}
		return withCORS(jsonResponse(200, s.registration(req, client{ID: id, Name: r.Name, Redirects: r.Redirects, AuthMethod: r.AuthMethod})))
	}
	if req.Method != "POST" {
		return oauthError(405, "invalid_request", "register a client with POST")
	}
	if req.BodyTooLarge || !rawjson.ValidBytes(req.Body) {
		return withCORS(oauthError(400, "invalid_client_metadata", "the registration must be a JSON object within the body limit"))
	}
	doc := rawjson.ParseBytes(req.Body)
	c := client{Name: doc.Get("client_name").Str, AuthMethod: doc.Get("token_endpoint_auth_method").Str}
	if c.AuthMethod == "" {
		c.AuthMethod = "client_secret_basic" // RFC 7591's default
	}
	switch {
	case c.AuthMethod != "none" && c.AuthMethod != "client_secret_post" && c.AuthMethod != "client_secret_basic":
		return withCORS(oauthError(400, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic"))
	case len(c.Name) > maxNameLen:
		return withCORS(oauthError(400, "invalid_client_metadata", "client_name is longer than "+strconv.Itoa(maxNameLen)+" bytes"))
	}
	c.Name = visible.Line(c.Name)
	for _, g := range doc.Get("grant_types").Array() {
		if g.Str != grantCode && g.Str != grantRefresh {
			return withCORS(oauthError(400, "invalid_client_metadata", "grant_types may hold "+grantCode+" and "+grantRefresh+" only"))
		}
	}
	for _, t := range doc.Get("response_types").Array() {
		if t.Str != "code" {
			return withCORS(oauthError(400, "invalid_client_metadata", "response_types may hold code only"))
		}
	}
	uris := doc.Get("redirect_uris")
	if !uris.IsArray() || len(uris.Array()) == 0 || len(uris.Array()) > maxRedirects {
		return withCORS(oauthError(400, "invalid_redirect_uri", "redirect_uris must list 1 to "+strconv.Itoa(maxRedirects)+" URIs"))
	}
	for _, u := range uris.Array() {
		if !redirectAllowed(u.Str) {
			return withCORS(oauthError(400, "invalid_redirect_uri", "redirect URIs must be https to a DNS name (ASCII, punycode for other scripts) or a loopback address, or http to a loopback address or localhost, without a fragment"))
		}
		c.Redirects = append(c.Redirects, u.Str)
	}
	c.ID = s.seal(purposeClient, clientPrefix, record{Name: c.Name, Redirects: c.Redirects, AuthMethod: c.AuthMethod}, clientTTL)
	return withCORS(jsonResponse(201, s.registration(req, c)))
}

// registration is the registration response of c.
func (s *Server) registration(req *web.Request, c client) []byte {
	b := []byte(`{"client_id":` + rawjson.Quote(c.ID))
	b = append(b, `,"client_id_issued_at":`...)
	b = strconv.AppendInt(b, s.opts.Now().Unix(), 10)
	if c.AuthMethod != "none" {
		b = append(b, `,"client_secret":`+rawjson.Quote(s.opts.Keys.MAC(purposeSecret, c.ID))+`,"client_secret_expires_at":0`...)
	}
	if c.Name != "" {
		b = append(b, `,"client_name":`+rawjson.Quote(c.Name)...)
	}
	b = append(b, `,"redirect_uris":[`...)
	for i, u := range c.Redirects {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, rawjson.Quote(u)...)
	}
	b = append(b, `],"grant_types":`+grantTypesJSON+`,"response_types":["code"]`...)
	b = append(b, `,"token_endpoint_auth_method":`+rawjson.Quote(c.AuthMethod)...)
	b = append(b, `,"scope":"`+scopeAll+`"`...)
	b = append(b, `,"registration_client_uri":`+rawjson.Quote(origin(req)+pathRegister+"/"+c.ID)...)
	b = append(b, `,"registration_access_token":`+rawjson.Quote(s.opts.Keys.MAC("registration", c.ID))...)
	return append(b, '}')
}

// authenticateClient finds the client of a token or revocation request and
// checks its credentials the way it registered (RFC 7591
// token_endpoint_auth_method): client_secret_basic with HTTP Basic only,
// client_secret_post with client_id and client_secret in the form only; a
// public client ("none", every CIMD client) sends its client_id only. One
// request uses one method (RFC 6749 section 2.3).
func (s *Server) authenticateClient(ctx context.Context, req *web.Request, form uri.Values) (client, *web.Response) {
	id, secret, basic := form.Get("client_id"), form.Get("client_secret"), false
	if h := req.Header.Get("authorization"); len(h) > 6 && strings.EqualFold(h[:6], "basic ") {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:]))
		user, pass, ok := strings.Cut(string(raw), ":")
		if err != nil || !ok {
			return client{}, oauthError(401, "invalid_client", "the Basic credentials are malformed")
		}
		user, _ = uri.QueryUnescape(user)
		if secret != "" || id != "" && id != user {
			return client{}, oauthError(401, "invalid_client", "the client authenticates with HTTP Basic and the form at once")
		}
		id, basic = user, true
		secret, _ = uri.QueryUnescape(pass)
	}
	if id == "" {
		return client{}, oauthError(401, "invalid_client", "client_id is missing")
	}
	c, err := s.lookupClient(ctx, id, "")
	if err != nil {
		return client{}, oauthError(401, "invalid_client", "the client is not known here ("+err.Error()+"): register it again")
	}
	switch {
	case c.AuthMethod == "none":
		return c, nil
	case c.AuthMethod == "client_secret_basic" && !basic:
		return client{}, oauthError(401, "invalid_client", "this client registered client_secret_basic: send its credentials with HTTP Basic")
	case c.AuthMethod == "client_secret_post" && basic:
		return client{}, oauthError(401, "invalid_client", "this client registered client_secret_post: send client_id and client_secret in the form")
	case secret == "" || !s.opts.Keys.CheckMAC(purposeSecret, c.ID, secret):
		return client{}, oauthError(401, "invalid_client", "the client secret is missing or wrong")
	}
	return c, nil
}

// preflight answers a CORS preflight of the endpoints browser-based clients
// call directly.
func preflight() *web.Response {
	return &web.Response{Status: 204, Header: web.Header{
		"access-control-allow-origin":  "*",
		"access-control-allow-methods": "GET, POST, OPTIONS",
		"access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
		"access-control-max-age":       "86400",
	}}
}

func withCORS(resp *web.Response) *web.Response {
	resp.Header["access-control-allow-origin"] = "*"
	return resp
}
