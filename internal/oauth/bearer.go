package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// errNotOurs is a token without the prefix of the kind expected.
var errNotOurs = errors.New("not a token of this kind")

// Authorize resolves the bearer token of an /mcp request into the
// Authorization header to send to Memos and whether the grant is read-only.
// A refusal is the 401 to answer, with the challenge that starts the flow.
func (s *Server) Authorize(_ context.Context, req *web.Request) (authorization string, readOnly bool, refusal *web.Response) {
	raw := strings.TrimSpace(req.Header.Get("authorization"))
	token, ok := bearerToken(raw)
	if !ok {
		return "", false, unauthorized(req, "", "")
	}
	if !strings.HasPrefix(token, "mme-") {
		if !s.opts.AcceptMemosTokens {
			return "", false, unauthorized(req, "invalid_token", "this server accepts only the access tokens it issues")
		}
		return raw, false, nil // a Memos token, for clients that can send one
	}
	r, err := s.open(purposeAccess, accessPrefix, token)
	switch {
	case errors.Is(err, seal.ErrExpired):
		return "", false, unauthorized(req, "invalid_token", "the access token has expired")
	case err != nil:
		return "", false, unauthorized(req, "invalid_token", "the access token is not valid")
	case r.Resource != resource(req):
		return "", false, unauthorized(req, "invalid_token", "the access token was issued for another resource")
	}
	return "Bearer " + r.Token, !hasScope(r.Scope, ScopeWrite), nil
}

// bearerToken returns the token of an Authorization header value, and
// whether the value is of the Bearer scheme with a token.
func bearerToken(authorization string) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	return token, strings.EqualFold(scheme, "bearer") && token != ""
}

// Revoked answers an /mcp request whose access token Memos no longer
// honours: the Memos token inside was deleted (as the consent page tells
// people they may) or expired. The 401 sends the client to refresh, which
// checks the Memos token and fails, and then to sign in again. A plain
// Memos token gets nil: no client can renew it, and the tool's error
// result says what happened.
func (s *Server) Revoked(req *web.Request) *web.Response {
	if token, _ := bearerToken(req.Header.Get("authorization")); !strings.HasPrefix(token, accessPrefix) {
		return nil
	}
	return unauthorized(req, "invalid_token", "Memos no longer accepts the token behind this grant (it was deleted or has expired): connect again")
}

// ScopeChallenge is the WWW-Authenticate value of the 403 a read-only grant
// gets for a tool that writes: it names every scope the call needs.
func (s *Server) ScopeChallenge(req *web.Request) string {
	return challenge(req, "insufficient_scope", "this tool needs the "+ScopeWrite+" scope")
}

// unauthorized is a 401 at /mcp with the challenge of RFC 9728.
// Without a token the challenge names no error (RFC 6750 section 3.1).
func unauthorized(req *web.Request, code, description string) *web.Response {
	header := challenge(req, code, description)
	if code == "" {
		code, description = "invalid_request", "this endpoint needs an access token: sign in through the authorization server named in WWW-Authenticate"
	}
	resp := oauthError(401, code, description)
	resp.Header["www-authenticate"] = header
	return resp
}

// hasScope reports whether the space-separated scopes hold want.
func hasScope(scopes, want string) bool {
	for s := range strings.FieldsSeq(scopes) {
		if s == want {
			return true
		}
	}
	return false
}
