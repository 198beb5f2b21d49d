package oauth

import (
	"slices"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// pageStyle is the pages' only styling: inline, allowed by its hash, so the
// pages load nothing from anywhere.
const pageStyle = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}
main{max-width:34rem;margin:0 auto;padding:.75rem 1rem}
h1{font-size:1.2rem;line-height:1.3;margin:.5rem 0}
p{margin:.5rem 0}
fieldset{border:1px solid #c9c9c4;border-radius:.5rem;margin:.75rem 0;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
label{display:block;margin:.5rem 0 .2rem}
input[type=text],input[type=password],select{box-sizing:border-box;width:100%;font:inherit;padding:.5rem;border:1px solid #8a8a85;border-radius:.35rem}
.choices{display:flex;flex-wrap:wrap;gap:0 1rem}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:0 .75rem}
.choice{display:flex;gap:.4rem;align-items:center;margin:.2rem 0}
.choice label{margin:0}
.hint{color:#55554f;font-size:.9rem;margin:.5rem 0 0}
.problem{background:#fde8e6;border:1px solid #b3261e;border-radius:.35rem;padding:.5rem .75rem;color:#7a1a14}
.actions{display:flex;gap:.75rem;margin:1rem 0}
button{font:inherit;padding:.6rem 1.4rem;border-radius:.35rem;border:1px solid #1d1d1b;background:#fff;cursor:pointer}
button[value=allow]{background:#1d1d1b;color:#fff}
:focus-visible{outline:3px solid #2f6fde;outline-offset:2px}`

// styleHash is the CSP source of pageStyle: the base64 of its SHA-256,
// written here rather than computed, because hashing it at start would
// link Go's FIPS 140 module into the wasm for one constant.
// TestStyleHash checks it and gives the new value when pageStyle changes.
const styleHash = "'sha256-MGdS7SW8YwmFVy4iehaqKiiqVpYI0F41lyrbJTrp+ag='"

// page answers with an HTML page that no cache keeps, no frame shows and
// whose address no other site learns (Referrer-Policy same-origin, not
// no-referrer: with that, browsers send "Origin: null" with the form, and
// the Origin check could not tell it from a forged one); formAction lists
// where its form may lead, besides here.
func page(status int, title, body, formAction string) *web.Response {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>`)
	b.WriteString(escapeHTML(title))
	b.WriteString(`</title><style>` + pageStyle + `</style></head><body><main>`)
	b.WriteString(body)
	b.WriteString(`</main></body></html>`)
	csp := "default-src 'none'; style-src " + styleHash + "; form-action 'self'" + formAction + "; frame-ancestors 'none'; base-uri 'none'"
	return &web.Response{Status: status, Body: []byte(b.String()), Header: web.Header{
		"content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "same-origin",
		"content-security-policy": csp, "x-frame-options": "DENY", "x-content-type-options": "nosniff",
	}}
}

// escapeHTML escapes the five characters that can end text or an attribute
// value, as html.EscapeString does; that one's strings.Replacer would cost
// the wasm about 20 KB.
func escapeHTML(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		if last == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// errorPage tells the person what went wrong, when the client cannot be
// told.
func errorPage(status int, msg string) *web.Response {
	return page(status, "Cannot connect to Memos", `<h1>Cannot connect to Memos</h1><p role="alert">`+escapeHTML(msg)+`</p>`, "")
}

// choices are what the person chose on the consent page. A page shown
// again after a refused sign-in keeps them, so that retyping a password
// grants what was chosen, not the page's defaults.
type choices struct {
	Access   string // "read" or "write"
	Days     int    // one of tokenDays
	Username string
}

// maxUsernameLen bounds the username a page shows back.
const maxUsernameLen = 256

// defaultChoices are a fresh page's: all the client asked for, the default
// token lifetime.
func defaultChoices(scope string) choices {
	c := choices{Access: "read", Days: defaultTokenDays}
	if hasScope(scope, ScopeWrite) {
		c.Access = "write"
	}
	return c
}

// choicesFrom reads the person's choices from a consent form: read only
// unless write was chosen and asked for, the default lifetime for one that
// is not offered.
func choicesFrom(form uri.Values, scope string) choices {
	c := choices{Access: "read", Days: defaultTokenDays, Username: strings.TrimSpace(form.Get("username"))}
	if form.Get("access") == "write" && hasScope(scope, ScopeWrite) {
		c.Access = "write"
	}
	if d, err := strconv.Atoi(form.Get("days")); err == nil && slices.Contains(tokenDays, d) {
		c.Days = d
	}
	if len(c.Username) > maxUsernameLen {
		c.Username = ""
	}
	return c
}

// consentPage asks the person whether the client may use their Memos, and
// how they prove who they are. pending is the sealed authorization request
// the form carries back; chosen is what the page has selected; problem,
// when set, says what went wrong last time.
//
// The page names the app as it calls itself, marked as unchecked, and the
// host it returns to as the browser will read it (package uri's Origin:
// ASCII, punycode as punycode), which is what the person can trust.
func (s *Server) consentPage(req *web.Request, pending, clientName, redirect, scope string, chosen choices, problem string) *web.Response {
	esc := escapeHTML
	target, err := uri.Parse(redirect)
	var origin string
	if err == nil {
		origin, _, err = uri.Origin(target)
	}
	if err != nil {
		return errorPage(400, "The address this app returns to cannot be shown as it is. Go back to the app and connect again.")
	}
	host := strings.TrimPrefix(origin, target.Scheme+"://")
	name := visible.Line(clientName)
	var b strings.Builder
	b.WriteString(`<h1>Allow this app to use your Memos?</h1>`)
	if name == "" {
		b.WriteString(`<p>The app gave no name.`)
	} else {
		b.WriteString(`<p>The app calls itself <strong>` + esc(name) + `</strong>, a name this server cannot check.`)
	}
	b.WriteString(` After you answer, you go back to <strong>` + esc(host) + `</strong>: allow only if you trust that site.</p>`)
	// What the app asked for, not what it will do: a sentence that holds
	// whichever choice is made below (Read only among them), since without
	// script the page cannot change its words as the choice changes.
	if hasScope(scope, ScopeWrite) {
		b.WriteString(`<p>It asks to read and write memos as you on <strong>` + esc(s.opts.Instance) + `</strong>; you choose below.</p>`)
	} else {
		b.WriteString(`<p>It asks to read memos as you on <strong>` + esc(s.opts.Instance) + `</strong>, and nothing more.</p>`)
	}
	if problem != "" {
		b.WriteString(`<p role="alert" class="problem">` + esc(problem) + `</p>`)
	}
	b.WriteString(`<form method="post" action="/authorize"><input type="hidden" name="request" value="` + esc(pending) + `">`)
	b.WriteString(`<fieldset><legend>What it may do</legend><div class="choices">`)
	checked := func(on bool) string { return map[bool]string{true: " checked", false: ""}[on] }
	if hasScope(scope, ScopeWrite) {
		b.WriteString(`<div class="choice"><input type="radio" id="access-write" name="access" value="write"` + checked(chosen.Access == "write") + `><label for="access-write">Read and write memos</label></div>`)
		b.WriteString(`<div class="choice"><input type="radio" id="access-read" name="access" value="read"` + checked(chosen.Access != "write") + `><label for="access-read">Read only</label></div>`)
	} else {
		b.WriteString(`<div class="choice"><input type="radio" id="access-read" name="access" value="read" checked><label for="access-read">Read only (all this app asked for)</label></div>`)
	}
	b.WriteString(`</div><label for="days">For how long</label><select id="days" name="days" aria-describedby="days-hint">`)
	for _, d := range tokenDays {
		selected := ""
		if d == chosen.Days {
			selected = " selected"
		}
		b.WriteString(`<option value="` + strconv.Itoa(d) + `"` + selected + `>` + strconv.Itoa(d) + ` days</option>`)
	}
	tokenName := name
	if tokenName == "" {
		tokenName = "an MCP client"
	}
	b.WriteString(`</select><p class="hint" id="days-hint">The app gets its own Memos access token, “MCP: ` + esc(tokenName) +
		`”, which ends then. Delete it in Memos (Settings, Access tokens) to cut the app off sooner.</p></fieldset>`)
	// After a refused sign-in the password is what to type again.
	focus := map[bool]string{true: " autofocus", false: ""}[problem != "" && chosen.Username != ""]
	b.WriteString(`<fieldset><legend>Sign in to Memos</legend><div class="pair">`)
	b.WriteString(`<div><label for="username">Username</label><input type="text" id="username" name="username" value="` + esc(chosen.Username) + `" autocomplete="username" autocapitalize="none" spellcheck="false"></div>`)
	b.WriteString(`<div><label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password"` + focus + `></div></div></fieldset>`)
	b.WriteString(`<fieldset><legend>Or paste an access token</legend>`)
	b.WriteString(`<label for="token">Access token</label><input type="password" id="token" name="token" autocomplete="off" aria-describedby="token-hint"></fieldset>`)
	b.WriteString(`<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></div></form>`)
	// The token's explanation follows the buttons, which a phone then
	// shows without scrolling; the field still names it as its description.
	b.WriteString(`<p class="hint" id="token-hint">An access token is for those who sign in to Memos with single sign-on: create one under Settings, Access tokens, and paste it above. It is used once, to make the app's own token, and not kept.</p>`)
	return page(200, "Allow access to Memos?", b.String(), " "+origin)
}
