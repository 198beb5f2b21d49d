package oauth

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/random"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// csrfCookie binds a consent form to the browser that asked for it. The
// __Host- prefix keeps it to this host, over https, on every path.
const csrfCookie = "__Host-mme-csrf"

// How long a grant may last, in days, as the person picks it: the Memos
// token the gateway creates for it expires with it.
var tokenDays = []int{30, 90, 365}

const defaultTokenDays = 90

// Sign-in budgets. A consent page takes a few attempts; a username and a
// client address take a few more over a window, across pages. Each attempt
// costs Memos one sign-in check, which Memos sees coming from Cloudflare's
// addresses, so its own limits cannot tell callers apart.
const (
	attemptsPerRequest = 3
	attemptsPerUser    = 10
	attemptsPerAddress = 30
	attemptWindow      = 15 * time.Minute
)

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
// page. Every problem is shown to the person, never sent to the client's
// redirect URI: nobody has acted yet, and anyone can register a client
// that names any address (an open redirector otherwise).
func (s *Server) consentRequest(ctx context.Context, req *web.Request, q uri.Values) *web.Response {
	c, err := s.lookupClient(ctx, q.Get("client_id"), q.Get("redirect_uri"))
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
	scope := requestedScopes(q.Get("scope"))
	problem := ""
	switch {
	case q.Get("response_type") != "code":
		problem = "it asked for response_type " + rawjson.Quote(q.Get("response_type")) + "; this server answers code only"
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		problem = "it sent no PKCE code challenge with method S256, which this server requires"
	case !sameResource(q.Get("resource"), resource(req)):
		problem = "it asked for access to " + rawjson.Quote(q.Get("resource")) + "; this server grants access to " + resource(req) + " only"
	case !knownScopes(scope):
		problem = "it asked for scopes this server does not know; they are " + ScopeRead + " and " + ScopeWrite
	}
	if problem != "" {
		return errorPage(400, "The app's request cannot be answered: "+problem+". Tell the app's makers, or go back to the app and try again.")
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
		Scope: scope, Resource: resource(req), Browser: browser, Grant: randomToken(),
	}, consentTTL)
	resp := s.consentPage(req, pending, c.Name, redirect, scope, defaultChoices(scope), "")
	if fresh {
		resp.Header["set-cookie"] = csrfCookie + "=" + browser + "; Path=/; Secure; HttpOnly; SameSite=Lax"
	}
	return resp
}

// consentAnswer takes the consent form: checks that it comes from the page
// this server showed to this browser, within the sign-in budgets, makes the
// grant's own Memos token, and sends the client its code.
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
	if err != nil || r.Grant == "" {
		return errorPage(400, "This sign-in page has expired. Go back to the app and connect again.")
	}
	if browser := cookie(req, csrfCookie); browser == "" || browser != r.Browser {
		return errorPage(403, "This form was not sent from the page this server showed to this browser. Go back to the app and connect again.")
	}
	iss := origin(req)
	if form.Get("decision") != "allow" {
		return redirectTo(r.Redirect, uri.Values{"error": {"access_denied"}, "error_description": {"the person declined"}, "state": {r.State}, "iss": {iss}})
	}
	chosen := choicesFrom(form, r.Scope)
	scope := ScopeRead
	if chosen.Access == "write" {
		scope = scopeAll
	}
	again := func(status int, problem string) *web.Response {
		resp := s.consentPage(req, pending, r.Name, r.Redirect, r.Scope, chosen, problem)
		resp.Status = status
		return resp
	}
	bearer, user, problem, status := s.signIn(ctx, req, form, r.Grant)
	if problem != "" {
		return again(status, problem)
	}
	// The consent is spent before the token is made: a page posted twice
	// makes one grant and one token.
	until := s.grantEnd(chosen.Days)
	switch step, err := s.opts.Store.Advance(ctx, grantKey(r.Grant), 0, until); {
	case err != nil:
		logline.Print("grant store: ", err.Error())
		return again(503, "This server cannot record the connection right now. Try again in a moment.")
	case !step.Moved:
		return errorPage(409, "This page was used already. Go back to the app and connect again if it did not connect.")
	}
	name := r.Name
	if name == "" {
		name = "an MCP client"
	}
	token, tokenName, err := s.opts.Memos.CreateToken(ctx, bearer, user, "MCP: "+name, chosen.Days)
	if err != nil {
		s.opts.Store.End(ctx, grantKey(r.Grant), until)
		return errorPage(502, memosProblem(err, "Memos did not let this account create an access token.")+" Go back to the app and connect again.")
	}
	code := s.seal(purposeCode, codePrefix, record{
		Token: token, TokenName: tokenName, Scope: scope, Client: clientRef(r.ClientID), Resource: r.Resource,
		Redirect: r.Redirect, Challenge: r.Challenge, Grant: r.Grant, Gen: strconv.Itoa(genConsented),
		Until: strconv.FormatInt(until.Unix(), 10),
	}, codeTTL)
	return redirectTo(r.Redirect, uri.Values{"code": {code}, "state": {r.State}, "iss": {iss}})
}

// signIn checks who the person is, within the sign-in budgets: by username
// and password, or by a pasted Memos token, which proves who they are and
// is used only to create the grant's own token. It returns a bearer that
// may create that token and the user's resource name, or a problem for the
// person with the page's status.
func (s *Server) signIn(ctx context.Context, req *web.Request, form uri.Values, grant string) (bearer, user, problem string, status int) {
	pasted := strings.TrimSpace(form.Get("token"))
	username, password := strings.TrimSpace(form.Get("username")), form.Get("password")
	if pasted == "" && (username == "" || password == "") {
		return "", "", "Enter your Memos username and password, or paste an access token.", 400
	}
	// The wider budgets come first: an attempt they refuse writes nothing,
	// so past them a burst of new pages (or usernames) costs no storage.
	budgets := []budget{{"address/" + clientAddress(req), attemptsPerAddress, "Too many sign-in attempts came from your network."}}
	if pasted == "" {
		budgets = append(budgets, budget{"user/" + strings.ToLower(username), attemptsPerUser, "Too many sign-in attempts were made for this username."})
	}
	budgets = append(budgets, budget{"consent/" + grant, attemptsPerRequest, "This page has had too many sign-in attempts. Go back to the app and connect again."})
	for _, b := range budgets {
		wait, err := s.opts.Store.Hit(ctx, b.key, b.limit, attemptWindow)
		if err != nil {
			logline.Print("grant store: ", err.Error())
			return "", "", "This server cannot check sign-in attempts right now. Try again in a moment.", 503
		}
		if wait > 0 {
			accesslog.From(ctx).SetOutcome(accesslog.Limited)
			return "", "", b.refusal + " Try again in " + minutes(wait) + ".", 429
		}
	}
	var err error
	if pasted != "" {
		bearer = pasted
		user, err = s.opts.Memos.CurrentUser(ctx, pasted)
	} else {
		bearer, user, err = s.opts.Memos.SignIn(ctx, username, password)
	}
	if err == nil {
		return bearer, user, "", 0
	}
	e, _ := memos.AsError(err)
	switch {
	case e != nil && e.Wait > 0:
		return "", "", "Memos is refusing sign-ins for now (too many attempts). Try again in " + minutes(e.Wait) + ".", 429
	case e != nil && e.Challenge:
		return "", "", "This Memos instance asks for a captcha at sign-in, which only its own web app can show. Sign in there, create an access token under Settings, Access tokens, and paste it here instead.", 400
	}
	refused, status := "Memos did not accept this username and password.", 502
	if pasted != "" {
		refused = "Memos did not accept this access token."
	}
	if memos.IsRefused(err) {
		accesslog.From(ctx).SetOutcome(accesslog.CredentialsRefused)
		status = 400
	}
	return "", "", memosProblem(err, refused), status
}

// budget is a sign-in budget: attempts under key, at most limit per
// attemptWindow, and what the person is told past it.
type budget struct {
	key     string
	limit   int
	refusal string
}

// clientAddress names the budget of the address the request came from, as
// Cloudflare tells it: an IPv4 address, or the /64 an IPv6 address is in
// (a subscriber commonly holds a whole /64, so each of its 2^64 addresses
// is no new budget). Requests without one (the native build) share one.
func clientAddress(req *web.Request) string {
	a := req.Header.Get("cf-connecting-ip")
	ip, ok := uri.ParseIP(a)
	switch {
	case a == "":
		return "unknown"
	case !ok || ip.Is4():
		return a
	}
	b := ip.As16()
	net := make([]byte, 0, len("ffff:ffff:ffff:ffff::/64"))
	for i := 0; i < 8; i += 2 {
		net = strconv.AppendUint(net, uint64(b[i])<<8|uint64(b[i+1]), 16)
		net = append(net, ':')
	}
	return string(net) + ":/64"
}

// minutes says how long d is, for people, rounded up to a minute.
func minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// memosProblem says what went wrong with Memos, for the person: refused
// credentials as refused, anything else as the instance's problem.
func memosProblem(err error, refused string) string {
	if memos.IsRefused(err) {
		return refused
	}
	logline.Print("consent: ", err.Error())
	return "Memos could not be reached to check this: " + err.Error()
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

// scopeOffline is asked for by clients that copy the scopes of other
// servers' metadata. Refresh tokens come without it, so it is accepted and
// dropped.
const scopeOffline = "offline_access"

// requestedScopes returns the scopes of a request without offline_access.
func requestedScopes(scope string) string {
	var kept []string
	for s := range strings.FieldsSeq(scope) {
		if s != scopeOffline {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, " ")
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
	random.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// query returns the query of a URL, without its fragment.
func query(u string) string {
	_, q, _ := strings.Cut(u, "?")
	q, _, _ = strings.Cut(q, "#")
	return q
}
