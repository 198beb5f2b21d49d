package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/caller"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// errNotOurs is a token without the prefix of the kind expected.
var errNotOurs = errors.New("not a token of this kind")

// Authorize resolves the bearer token of an /mcp request into the
// Authorization header to send to Memos and whether the grant is read-only.
// A refusal is the 401 to answer, with the challenge that starts the flow,
// or a 503 when the grant's state cannot be read (never a guess).
func (s *Server) Authorize(ctx context.Context, req *web.Request) (authorization string, readOnly bool, refusal *web.Response) {
	token, ok := web.BearerToken(req.Header.Get("authorization"))
	if !ok {
		return "", false, unauthorized(req, "", "")
	}
	if !strings.HasPrefix(token, "mme-") {
		if !s.opts.AcceptMemosTokens {
			return "", false, unauthorized(req, "invalid_token", "this server accepts only the access tokens it issues")
		}
		// A Memos token, for clients that can send one, once Memos has
		// accepted it.
		if refusal := s.verify(ctx, req, token); refusal != nil {
			return "", false, refusal
		}
		return "Bearer " + token, false, nil
	}
	r, err := s.open(purposeAccess, accessPrefix, token)
	switch {
	case errors.Is(err, seal.ErrExpired):
		return "", false, unauthorized(req, "invalid_token", "the access token has expired")
	case err != nil || r.Grant == "":
		return "", false, unauthorized(req, "invalid_token", "the access token is not valid")
	case r.Resource != resource(req):
		return "", false, unauthorized(req, "invalid_token", "the access token was issued for another resource")
	}
	switch err := s.checkAlive(ctx, r.Grant); {
	case errors.Is(err, errGrantEnded):
		return "", false, unauthorized(req, "invalid_token", "this grant has ended (revoked, or one of its tokens was used twice): connect again")
	case err != nil:
		logline.Print("grant store: ", err.Error())
		return "", false, oauthError(503, "temporarily_unavailable", "the gateway cannot check this grant right now: try again shortly")
	}
	if refusal := s.verify(ctx, req, r.Token); refusal != nil {
		return "", false, refusal
	}
	return "Bearer " + r.Token, !hasScope(r.Scope, ScopeWrite), nil
}

// verify checks with Memos (at most once per caller.DefaultAccepted per
// token and isolate) that it still accepts a Memos token: one deleted in
// Memos, or unknown, is refused here rather than served as an anonymous
// visitor.
func (s *Server) verify(ctx context.Context, req *web.Request, token string) *web.Response {
	_, err := s.opts.Callers.Verify(ctx, token)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, caller.ErrRefused):
		return unauthorized(req, "invalid_token", revokedMessage)
	}
	logline.Print("checking a Memos token: ", err.Error())
	return oauthError(503, "temporarily_unavailable", "the gateway could not check the credentials with Memos, so nothing was sent: "+err.Error())
}

const revokedMessage = "Memos does not accept the token behind this credential (it was deleted or has expired): connect again"

// Revoked answers an /mcp request whose Memos token Memos refused in a tool
// call although it was accepted moments before: it was deleted (as the
// consent page tells people they may) or expired since. The token is
// forgotten, and the 401 sends the client to refresh, which checks the
// Memos token and fails, and then to sign in again.
func (s *Server) Revoked(req *web.Request) *web.Response {
	token, _ := web.BearerToken(req.Header.Get("authorization"))
	if r, err := s.open(purposeAccess, accessPrefix, token); err == nil {
		token = r.Token
	}
	s.opts.Callers.Forget(token)
	return unauthorized(req, "invalid_token", revokedMessage)
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
