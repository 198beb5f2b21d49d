package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/crypt"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// csrfCookie binds a consent form to the browser that asked for it. The
// __Host- prefix keeps it to this host, over https, on every path.
const csrfCookie = "__Host-mme-csrf"

// Token lifetimes a person may pick for a Memos token the gateway creates,
// in days; 0 never expires.
var tokenDays = []int{30, 90, 365, 0}

const defaultTokenDays = 90

// authorize answers /authorize: GET shows the consent page for a valid
// authorization request; POST takes the person's answer.
func (s *Server) authorize(ctx context.Context, req *web.Request) *web.Response {
	switch req.Method {
	case "GET":
		q, _ := uri.ParseQuery(query(req.URL))
		return s.consentRequest(ctx, req, q)
	case "POST":
		return s.consentAnswer(ctx, req)
	}
	return errorPage(405, "This address takes GET and POST only.")
}

// consentRequest checks an authorization request and shows the consent
// page. Until the client and its redirect URI are known good, problems are
// shown to the person; after that they go back to the client.
func (s *Server) consentRequest(ctx context.Context, req *web.Request, q uri.Values) *web.Response {
	c, err := s.lookupClient(ctx, q.Get("client_id"))
	if err != nil {
		return errorPage(400, "The app that sent you here is not known to this server: "+err.Error()+". Go back to the app and connect again.")
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.Redirects) == 1 {
		redirect = c.Redirects[0]
	}
	if !slices.Contains(c.Redirects, redirect) {
		return errorPage(400, "The app asked to return to an address it did not register. Go back to the app and connect again.")
	}
	back := func(code, description string) *web.Response {
		return redirectTo(redirect, uri.Values{"error": {code}, "error_description": {description}, "state": {q.Get("state")}, "iss": {origin(req)}})
	}
	scope := q.Get("scope")
	switch {
	case q.Get("response_type") != "code":
		return back("unsupported_response_type", "response_type must be code")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		return back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method S256")
	case q.Get("resource") != "" && q.Get("resource") != resource(req):
		return back("invalid_target", "this server grants access to "+resource(req)+" only")
	case !knownScopes(scope):
		return back("invalid_scope", "the scopes are "+ScopeRead+" and "+ScopeWrite)
	}
	if scope == "" {
		scope = scopeAll
	}
	browser, fresh := cookie(req, csrfCookie), false
	if browser == "" {
		browser, fresh = randomToken(), true
	}
	pending := s.seal(purposeConsent, "", record{
		ClientID: c.ID, Name: c.Name, Redirect: redirect, State: q.Get("state"), Challenge: q.Get("code_challenge"),
		Scope: scope, Resource: resource(req), Browser: browser,
	}, consentTTL)
	resp := s.consentPage(req, pending, c.Name, redirect, scope, defaultChoices(scope), "")
	if fresh {
		resp.Header["set-cookie"] = csrfCookie + "=" + browser + "; Path=/; Secure; HttpOnly; SameSite=Lax"
	}
	return resp
}

// consentAnswer takes the consent form: checks that it comes from the page
// this server showed to this browser, gets the person's Memos token, and
// sends the client its code.
func (s *Server) consentAnswer(ctx context.Context, req *web.Request) *web.Response {
	if o := req.Header.Get("origin"); o != "" && o != origin(req) {
		return errorPage(403, "This form was sent from another site.")
	}
	if req.BodyTooLarge {
		return errorPage(413, "The form is too large.")
	}
	form, err := uri.ParseQuery(string(req.Body))
	if err != nil {
		return errorPage(400, "The form could not be read.")
	}
	pending := form.Get("request")
	r, err := s.open(purposeConsent, "", pending)
	if err != nil {
		return errorPage(400, "This sign-in page has expired. Go back to the app and connect again.")
	}
	if browser := cookie(req, csrfCookie); browser == "" || browser != r.Browser {
		return errorPage(403, "This form was not sent from the page this server showed to this browser. Go back to the app and connect again.")
	}
	iss := origin(req)
	if form.Get("decision") != "allow" {
		return redirectTo(r.Redirect, uri.Values{"error": {"access_denied"}, "error_description": {"the person declined"}, "state": {r.State}, "iss": {iss}})
	}
	scope := ScopeRead
	if form.Get("access") == "write" && hasScope(r.Scope, ScopeWrite) {
		scope = scopeAll
	}
	token, name, problem := s.memosToken(ctx, form, r.Name)
	if problem != "" {
		resp := s.consentPage(req, pending, r.Name, r.Redirect, r.Scope, choicesFrom(form, r.Scope), problem)
		resp.Status = 400
		return resp
	}
	code := s.seal(purposeCode, codePrefix, record{
		Token: token, TokenName: name, Scope: scope, Client: clientRef(r.ClientID), Resource: r.Resource,
		Redirect: r.Redirect, Challenge: r.Challenge,
	}, codeTTL)
	return redirectTo(r.Redirect, uri.Values{"code": {code}, "state": {r.State}, "iss": {iss}})
}

// memosToken gets the Memos token the grant will carry: a pasted one, or a
// new one created after signing in with the username and password. It is
// checked against Memos either way. problem, when set, is for the person.
func (s *Server) memosToken(ctx context.Context, form uri.Values, clientName string) (token, name, problem string) {
	if token = strings.TrimSpace(form.Get("token")); token == "" {
		username, password := strings.TrimSpace(form.Get("username")), form.Get("password")
		if username == "" || password == "" {
			return "", "", "Enter your Memos username and password, or paste an access token."
		}
		bearer, user, err := s.opts.Memos.SignIn(ctx, username, password)
		if err != nil {
			return "", "", memosProblem(err, "Memos did not accept this username and password.")
		}
		days, err := strconv.Atoi(form.Get("days"))
		if err != nil || !slices.Contains(tokenDays, days) {
			days = defaultTokenDays
		}
		if clientName == "" {
			clientName = "an MCP client"
		}
		if token, name, err = s.opts.Memos.CreateToken(ctx, bearer, user, "MCP: "+clientName, days); err != nil {
			return "", "", memosProblem(err, "Memos did not let this account create an access token.")
		}
	}
	if _, err := s.opts.Memos.CurrentUser(ctx, token); err != nil {
		return "", "", memosProblem(err, "Memos did not accept this access token.")
	}
	return token, name, ""
}

// memosProblem says what went wrong with Memos, for the person: refused
// credentials as refused, anything else as the instance's problem.
func memosProblem(err error, refused string) string {
	if refusedByMemos(err) {
		return refused
	}
	logline.Print("consent: ", err.Error())
	return "Memos could not be reached to check this: " + err.Error()
}

// refusedByMemos reports whether Memos refused the credentials behind err:
// Memos implementations mark such errors with a Refused method.
func refusedByMemos(err error) bool {
	var r interface{ Refused() bool }
	return errors.As(err, &r) && r.Refused()
}

// redirectTo sends the browser back to the client with params.
func redirectTo(target string, params uri.Values) *web.Response {
	for k, v := range params {
		if len(v) == 0 || v[0] == "" {
			delete(params, k)
		}
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	return &web.Response{Status: 303, Header: web.Header{
		"location": target + sep + params.Encode(), "cache-control": "no-store", "referrer-policy": "no-referrer",
	}}
}

func knownScopes(scope string) bool {
	for s := range strings.FieldsSeq(scope) {
		if s != ScopeRead && s != ScopeWrite {
			return false
		}
	}
	return true
}

// cookie returns the value of the named cookie of req.
func cookie(req *web.Request, name string) string {
	for part := range strings.SplitSeq(req.Header.Get("cookie"), ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		if k == name {
			return v
		}
	}
	return ""
}

func randomToken() string {
	b := make([]byte, 24)
	crypt.Random(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// query returns the query of a URL, without its fragment.
func query(u string) string {
	_, q, _ := strings.Cut(u, "?")
	q, _, _ = strings.Cut(q, "#")
	return q
}
