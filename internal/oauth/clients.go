package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
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
	maxRedirects   = 8
	maxURILen      = 512
	maxNameLen     = 100
	cimdTimeout    = 5 * time.Second
	cimdCacheTTL   = 10 * time.Minute
	cimdCacheLimit = 64
)

var errUnknownClient = errors.New("unknown client")

// lookupClient returns the client called id.
func (s *Server) lookupClient(ctx context.Context, id string) (client, error) {
	if strings.HasPrefix(id, clientPrefix) {
		r, err := s.open(purposeClient, clientPrefix, id)
		if err != nil {
			return client{}, errUnknownClient
		}
		return client{ID: id, Name: r.Name, Redirects: r.Redirects, AuthMethod: r.AuthMethod}, nil
	}
	if s.documentURL(id) {
		return s.fetchClient(ctx, id)
	}
	return client{}, errUnknownClient
}

// redirectAllowed reports whether u may be a redirect URI: an absolute URL
// without fragment or credentials, https, or http to a loopback host (native
// apps, RFC 8252).
func redirectAllowed(u string) bool {
	p, err := uri.Parse(u)
	if err != nil || len(u) > maxURILen || p.Host == "" || p.Fragment != "" || strings.Contains(u, "#") || p.HasUser {
		return false
	}
	return p.Scheme == "https" || p.Scheme == "http" && uri.IsLoopbackHost(p.Hostname())
}

// documentURL reports whether id may be a client ID metadata document's
// URL: https with a path, on a public host name (loopback http only when
// allowed, for tests).
func (s *Server) documentURL(id string) bool {
	p, err := uri.Parse(id)
	if err != nil || len(id) > maxURILen || p.Host == "" || p.HasUser || p.Fragment != "" || strings.Contains(id, "#") || p.Path == "" || p.Path == "/" {
		return false
	}
	if p.Scheme == "http" && s.opts.AllowLoopbackClients && uri.IsLoopbackHost(p.Hostname()) {
		return true
	}
	if p.Scheme != "https" || uri.IsLoopbackHost(p.Hostname()) {
		return false
	}
	if ip, ok := uri.ParseIP(p.Hostname()); ok {
		return ip.IsGlobalUnicast() && !ip.IsPrivate()
	}
	return strings.Contains(p.Hostname(), ".") && !strings.HasSuffix(p.Hostname(), ".local") && !strings.HasSuffix(p.Hostname(), ".internal")
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
// limit, without following redirects.
func (s *Server) fetchClient(ctx context.Context, id string) (client, error) {
	now := s.opts.Now()
	s.clients.mu.Lock()
	cached, ok := s.clients.docs[id]
	s.clients.mu.Unlock()
	if ok && cached.expires.After(now) {
		return cached.c, nil
	}
	resp, err := s.opts.Fetch.Do(ctx, &web.Request{Method: "GET", URL: id, Header: web.Header{"accept": "application/json"}, Timeout: cimdTimeout})
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
	for _, u := range doc.Get("redirect_uris").Array() {
		if !redirectAllowed(u.Str) && !(s.opts.AllowLoopbackClients && strings.HasPrefix(u.Str, "http://")) {
			return client{}, errors.New("its client ID metadata document lists a redirect URI that is not https or loopback http")
		}
		c.Redirects = append(c.Redirects, u.Str)
	}
	if len(c.Redirects) == 0 || len(c.Redirects) > maxRedirects {
		return client{}, errors.New("its client ID metadata document lists no redirect URIs, or too many")
	}
	s.clients.mu.Lock()
	if len(s.clients.docs) >= cimdCacheLimit {
		clear(s.clients.docs)
	}
	s.clients.docs[id] = cachedClient{c: c, expires: now.Add(cimdCacheTTL)}
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
	for _, g := range doc.Get("grant_types").Array() {
		if g.Str != "authorization_code" && g.Str != "refresh_token" {
			return withCORS(oauthError(400, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only"))
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
			return withCORS(oauthError(400, "invalid_redirect_uri", "redirect URIs must be https, or http on a loopback host, without a fragment"))
		}
		c.Redirects = append(c.Redirects, u.Str)
	}
	c.ID = s.seal(purposeClient, clientPrefix, record{Name: c.Name, Redirects: c.Redirects, AuthMethod: c.AuthMethod}, clientTTL)
	return withCORS(jsonResponse(201, s.registration(req, c)))
}

// registration is the registration response of c.
func (s *Server) registration(req *web.Request, c client) []byte {
	b := []byte(`{"client_id":` + quote(c.ID))
	b = append(b, `,"client_id_issued_at":`...)
	b = strconv.AppendInt(b, s.opts.Now().Unix(), 10)
	if c.AuthMethod != "none" {
		b = append(b, `,"client_secret":`+quote(s.opts.Keys.MAC(purposeSecret, c.ID))+`,"client_secret_expires_at":0`...)
	}
	if c.Name != "" {
		b = append(b, `,"client_name":`+quote(c.Name)...)
	}
	b = append(b, `,"redirect_uris":[`...)
	for i, u := range c.Redirects {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, quote(u)...)
	}
	b = append(b, `],"grant_types":["authorization_code","refresh_token"],"response_types":["code"]`...)
	b = append(b, `,"token_endpoint_auth_method":`+quote(c.AuthMethod)...)
	b = append(b, `,"scope":"`+scopeAll+`"`...)
	b = append(b, `,"registration_client_uri":`+quote(origin(req)+pathRegister+"/"+c.ID)...)
	b = append(b, `,"registration_access_token":`+quote(s.opts.Keys.MAC("registration", c.ID))...)
	return append(b, '}')
}

// authenticateClient finds the client of a token or revocation request and
// checks its credentials: HTTP Basic, or client_id and client_secret in the
// form; a public client sends its client_id only.
func (s *Server) authenticateClient(ctx context.Context, req *web.Request, form uri.Values) (client, *web.Response) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if h := req.Header.Get("authorization"); len(h) > 6 && strings.EqualFold(h[:6], "basic ") {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:]))
		user, pass, ok := strings.Cut(string(raw), ":")
		if err != nil || !ok {
			return client{}, oauthError(401, "invalid_client", "the Basic credentials are malformed")
		}
		id, _ = uri.QueryUnescape(user)
		secret, _ = uri.QueryUnescape(pass)
	}
	if id == "" {
		return client{}, oauthError(401, "invalid_client", "client_id is missing")
	}
	c, err := s.lookupClient(ctx, id)
	if err != nil {
		return client{}, oauthError(401, "invalid_client", "the client is not known here ("+err.Error()+"): register it again")
	}
	if c.AuthMethod == "none" {
		return c, nil
	}
	if secret == "" || !s.opts.Keys.CheckMAC(purposeSecret, c.ID, secret) {
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
