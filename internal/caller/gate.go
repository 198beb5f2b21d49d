package caller

import (
	"context"
	"errors"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Authorize admits an /mcp request of a gateway without OAuth: a request
// with no credentials stays anonymous (the upstream never lends it the
// Access service token), a Bearer token goes on only once Memos has accepted
// it, and anything else is refused before it reaches Memos. Its shape is
// mcp.Options.Authorize.
func (v *Verifier) Authorize(ctx context.Context, req *web.Request) (authorization string, readOnly bool, refusal *web.Response) {
	raw := req.Header.Get("authorization")
	scheme, credentials := web.Credentials(raw)
	token, bearer := web.BearerToken(raw)
	switch {
	case scheme == "" || credentials == "" && strings.EqualFold(scheme, "bearer"):
		return "", false, nil // no header, or "Bearer " alone: no credentials
	case credentials == "":
		// A token without its scheme, the most common slip.
		return "", false, unauthorized("invalid_request", "the Authorization header holds no scheme: send your Memos access token as Authorization: Bearer <token>")
	case !bearer:
		return "", false, unauthorized("invalid_request", "send your Memos access token as Authorization: Bearer <token>")
	}
	_, err := v.Verify(ctx, token)
	if refusal := verdict(err); refusal != nil {
		return "", false, refusal
	}
	return "Bearer " + token, false, nil
}

// verdict is the refusal of a request whose check ended with err, nil when
// Memos accepted its token.
func verdict(err error) *web.Response {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrRefused):
		return unauthorized("invalid_token", refusedToken)
	}
	return unavailable(err)
}

// Ahead admits an /mcp request before its check has ended, where that
// check would keep it waiting: the token's acceptance has run out
// (Options.Accepted), a caller back from a pause, but is still remembered
// (Options.Stale), and reads reports that the request only reads (it is
// asked only then). It starts the check and returns the Authorization to
// send Memos, ctx for the request's work (in which Verify waits for this
// check rather than ask again), and wait, which returns Authorize's
// refusal once the check has ended, nil for an acceptance; the request
// must not be answered before wait has returned. ok is false, and nothing
// started, for any other request: Authorize admits those.
//
// It must be used only for work whose requests to Memos read with the
// caller's token alone: they leave before Memos has said whose the token
// is, so they must carry nothing of the gateway's (the Access service
// token), change nothing, and their answers go nowhere until wait has
// accepted the token. A token Memos never accepted, or refused moments
// ago, always waits.
func (v *Verifier) Ahead(ctx context.Context, req *web.Request, reads func() bool) (_ context.Context, authorization string, wait func() *web.Response, ok bool) {
	token, bearer := web.BearerToken(req.Header.Get("authorization"))
	if !bearer {
		return ctx, "", nil, false
	}
	k := key(blake2b.Sum256([]byte(token)))
	now := v.opts.Now()
	v.mu.Lock()
	e, known := v.accepted[k]
	v.mu.Unlock()
	if !known || now.Sub(e.at) < v.opts.Accepted || now.Sub(e.at) >= v.opts.Accepted+v.opts.Stale || !reads() {
		return ctx, "", nil, false
	}
	p := &pending{k: k, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.user, p.err = v.ask(ctx, k, token)
	}()
	return context.WithValue(ctx, pendingKey{}, p), "Bearer " + token, func() *web.Response {
		<-p.done
		return verdict(p.err)
	}, true
}

// refusedToken describes a token Memos refused.
const refusedToken = "Memos does not accept this access token: it is unknown, was deleted or has expired; create a new one in Memos (Settings, Access Tokens) and connect again"

// Revoked answers an /mcp request whose token Memos refused in a tool call,
// although it had accepted it moments before: it was deleted or expired
// since. The token is forgotten, and the 401 tells the client so.
// An anonymous request keeps the tool's error result.
func (v *Verifier) Revoked(req *web.Request) *web.Response {
	_, token := web.Credentials(req.Header.Get("authorization"))
	if token == "" {
		return nil
	}
	v.Forget(token)
	return unauthorized("invalid_token", refusedToken)
}

// unauthorized is a 401 with the challenge of RFC 6750, whose error code
// makes MCP clients ask for new credentials, and the same words in a JSON
// body for people.
func unauthorized(code, description string) *web.Response {
	resp := problem(401, code, description)
	resp.Header["www-authenticate"] = `Bearer error="` + code + `", error_description="` + description + `"`
	return resp
}

// unavailable answers a request whose token could not be checked because
// Memos gave no answer about it: 429 with Retry-After when Memos asked to
// slow down, 503 otherwise. Nothing is forwarded on a guess.
func unavailable(err error) *web.Response {
	msg := "the gateway could not check your access token with Memos, so nothing was sent: " + err.Error()
	if e, ok := memos.AsError(err); ok && e.Wait > 0 {
		resp := problem(429, "temporarily_unavailable", msg)
		resp.Header["retry-after"] = web.RetryAfter(e.Wait)
		return resp
	}
	return problem(503, "temporarily_unavailable", msg)
}

// problem is an error answer with an OAuth-style JSON body.
func problem(status int, code, description string) *web.Response {
	body := []byte(`{"error":`)
	body = rawjson.AppendString(body, code)
	body = append(body, `,"error_description":`...)
	body = rawjson.AppendString(body, description)
	body = append(body, '}')
	return &web.Response{Status: status, Header: web.Header{"content-type": "application/json", "cache-control": "no-store"}, Body: body}
}
