package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// token answers the token endpoint: the authorization_code grant (PKCE S256
// required) and the refresh_token grant, which rotates the refresh token.
func (s *Server) token(ctx context.Context, req *web.Request) *web.Response {
	c, form, refusal := s.clientRequest(ctx, req)
	if refusal != nil {
		return refusal
	}
	var resp *web.Response
	switch form.Get("grant_type") {
	case grantCode:
		resp = s.exchangeCode(ctx, c, form)
	case grantRefresh:
		resp = s.refresh(ctx, c, form)
	default:
		resp = oauthError(400, "unsupported_grant_type", "grant_type must be "+grantCode+" or "+grantRefresh)
	}
	return withCORS(resp)
}

// exchangeCode turns a code into tokens, once everywhere, for the client it
// was issued to, with the verifier of its challenge.
func (s *Server) exchangeCode(ctx context.Context, c client, form uri.Values) *web.Response {
	r, refusal := s.openGrant(purposeCode, codePrefix, "code", form.Get("code"), c, form)
	switch {
	case refusal != nil:
		return refusal
	case form.Get("redirect_uri") != "" && form.Get("redirect_uri") != r.Redirect:
		return oauthError(400, "invalid_grant", "redirect_uri differs from the authorization request's")
	}
	switch ok, err := s.verifierMatches(ctx, form.Get("code_verifier"), r.Challenge); {
	case err != nil:
		return oauthError(500, "server_error", "the code_verifier could not be checked: try again")
	case !ok:
		return oauthError(400, "invalid_grant", "code_verifier does not match the code challenge")
	}
	gen, refusal := s.advance(ctx, r, "code", 0)
	if refusal != nil {
		return refusal
	}
	return s.issue(r, gen)
}

// refresh issues new tokens for a refresh token, after checking that the
// Memos token inside still works (deleting it in Memos ends the grant), and
// advances the grant so that the old refresh token works no more, beyond a
// retry of this refresh (refreshRetryWindow).
func (s *Server) refresh(ctx context.Context, c client, form uri.Values) *web.Response {
	r, refusal := s.openGrant(purposeRefresh, refreshPrefix, "refresh token", form.Get("refresh_token"), c, form)
	if refusal != nil {
		return refusal
	}
	if scope := requestedScopes(form.Get("scope")); scope != "" {
		for s := range strings.FieldsSeq(scope) {
			if !hasScope(r.Scope, s) {
				return oauthError(400, "invalid_scope", "a refresh may narrow the grant's scopes ("+r.Scope+"), not widen them")
			}
		}
		r.Scope = scope
	}
	if _, err := s.opts.Memos.CurrentUser(ctx, r.Token); err != nil {
		if memos.IsRefused(err) {
			s.end(ctx, r)
			return oauthError(400, "invalid_grant", "the Memos access token behind this grant was deleted or has expired: connect again")
		}
		logline.Print("token refresh: ", err.Error())
		return oauthError(503, "temporarily_unavailable", "Memos could not be reached to check the grant")
	}
	gen, refusal := s.advance(ctx, r, "refresh token", refreshRetryWindow)
	if refusal != nil {
		return refusal
	}
	return s.issue(r, gen)
}

// openGrant opens a code or a refresh token (what names it for messages)
// presented by client c, and checks it was issued to c for the resource the
// form asks for, if it asks.
func (s *Server) openGrant(purpose, prefix, what, text string, c client, form uri.Values) (record, *web.Response) {
	r, err := s.open(purpose, prefix, text)
	switch {
	case err != nil || r.Grant == "":
		return r, oauthError(400, "invalid_grant", "the "+what+" is not valid or has expired")
	case r.Client != clientRef(c.ID):
		return r, oauthError(400, "invalid_grant", "the "+what+" was issued to another client")
	case !sameResource(form.Get("resource"), r.Resource):
		return r, oauthError(400, "invalid_target", "this server grants access to "+r.Resource+" only")
	}
	return r, nil
}

// issue answers with a new access token and a refresh token that may
// advance grant r from gen. Neither outlives the grant.
func (s *Server) issue(r record, gen int64) *web.Response {
	left := r.until().Sub(s.opts.Now())
	grant := record{Token: r.Token, TokenName: r.TokenName, Scope: r.Scope, Client: r.Client, Resource: r.Resource, Grant: r.Grant, Until: r.Until}
	access := s.seal(purposeAccess, accessPrefix, grant, min(accessTTL, left))
	grant.Gen = strconv.FormatInt(gen, 10)
	refresh := s.seal(purposeRefresh, refreshPrefix, grant, left)
	return jsonResponse(200, []byte(`{"access_token":`+rawjson.Quote(access)+`,"token_type":"Bearer","expires_in":`+
		strconv.Itoa(int(min(accessTTL, left).Seconds()))+`,"refresh_token":`+rawjson.Quote(refresh)+`,"scope":`+rawjson.Quote(r.Scope)+`}`))
}

// revoke answers RFC 7009 revocation: the grant of the access or refresh
// token ends everywhere, and its Memos token is deleted. The answer is 200
// whatever the token was, as the RFC asks, unless the grant could not be
// ended, when a 503 asks the client to try again.
func (s *Server) revoke(ctx context.Context, req *web.Request) *web.Response {
	c, form, refusal := s.clientRequest(ctx, req)
	if refusal != nil {
		return refusal
	}
	token := form.Get("token")
	r, err := s.open(purposeAccess, accessPrefix, token)
	if errors.Is(err, errNotOurs) {
		r, err = s.open(purposeRefresh, refreshPrefix, token)
	}
	if err == nil && r.Grant != "" && r.Client == clientRef(c.ID) {
		if err := s.end(ctx, r); err != nil {
			return withCORS(oauthError(503, "temporarily_unavailable", "the grant could not be ended right now: try again"))
		}
	}
	return withCORS(jsonResponse(200, []byte(`{}`)))
}

// clientRequest reads the form of a POST by a client to the token or the
// revocation endpoint and authenticates the client; refusal, when set, is
// the answer (a CORS preflight included).
func (s *Server) clientRequest(ctx context.Context, req *web.Request) (client, uri.Values, *web.Response) {
	if req.Method == "OPTIONS" {
		return client{}, nil, preflight()
	}
	if req.Method != "POST" {
		return client{}, nil, withCORS(oauthError(405, "invalid_request", "this endpoint takes POST"))
	}
	form, problem := readForm(req)
	if problem != nil {
		return client{}, nil, withCORS(problem)
	}
	c, refusal := s.authenticateClient(ctx, req, form)
	if refusal != nil {
		return client{}, nil, withCORS(refusal)
	}
	return c, form, nil
}

// readForm reads a form-encoded POST body.
func readForm(req *web.Request) (uri.Values, *web.Response) {
	if req.BodyTooLarge {
		return nil, oauthError(413, "invalid_request", "the request body is too large")
	}
	if ct, _, _ := strings.Cut(req.Header.Get("content-type"), ";"); strings.TrimSpace(strings.ToLower(ct)) != "application/x-www-form-urlencoded" {
		return nil, oauthError(400, "invalid_request", "send the parameters as application/x-www-form-urlencoded")
	}
	form, err := uri.ParseQuery(string(req.Body))
	if err != nil {
		return nil, oauthError(400, "invalid_request", "the form cannot be parsed")
	}
	return form, nil
}

// verifierMatches checks a PKCE S256 verifier against its challenge.
func (s *Server) verifierMatches(ctx context.Context, verifier, challenge string) (bool, error) {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false, nil
	}
	sum, err := s.opts.SHA256(ctx, []byte(verifier))
	if err != nil {
		return false, err
	}
	got := base64.RawURLEncoding.EncodeToString(sum)
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1, nil
}
