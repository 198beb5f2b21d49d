package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

func TestEscapeHTML(t *testing.T) {
	for _, s := range []string{
		"", "plain", "<script>alert('x')</script>", `a "quoted" & 'single' <b>`, "&&&", "<", ">x", "x'",
		"ünïcödé <ok> 日本", strings.Repeat(`<&>"'`, 50), "\x00\xff<",
	} {
		if got, want := escapeHTML(s), html.EscapeString(s); got != want {
			t.Errorf("escapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}

// The consent page names the app as unchecked, without the characters that
// could make its name read as another, and the host it returns to in
// ASCII; its form may lead to that origin only.
func TestConsentPageShows(t *testing.T) {
	h := newHarness(t, testSecret)
	for _, tc := range []struct {
		name, clientName, redirect string
		want                       []string
		csp                        string
	}{
		{"punycode host", "Apple", "https://xn--pple-43d.com/cb", []string{"calls itself <strong>Apple</strong>", "cannot check", "<strong>xn--pple-43d.com</strong>"}, "form-action 'self' https://xn--pple-43d.com;"},
		{"bidi override", "Evil\u202egpj.exe", "https://app.example.net/cb", []string{"<strong>Evilgpj.exe</strong>", "MCP: Evilgpj.exe"}, "form-action 'self' https://app.example.net;"},
		{"canonical host and port", "", "https://App.Example.NET:0443/cb", []string{"gave no name", "<strong>app.example.net</strong>", "MCP: an MCP client"}, "form-action 'self' https://app.example.net;"},
		{"loopback with port", "CLI", "http://127.0.0.1:33418/cb", []string{"<strong>127.0.0.1:33418</strong>"}, "form-action 'self' http://127.0.0.1:33418;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.s.consentPage(&web.Request{URL: base + "/authorize"}, "p", tc.clientName, tc.redirect, scopeAll, defaultChoices(scopeAll), "")
			body := string(resp.Body)
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q: %s", want, body)
				}
			}
			if strings.ContainsRune(body, '\u202e') {
				t.Errorf("the page holds U+202E")
			}
			if csp := resp.Header.Get("content-security-policy"); !strings.Contains(csp, tc.csp) {
				t.Errorf("CSP %q lacks %q", csp, tc.csp)
			}
		})
	}
	// A redirect URI registered before hosts were checked is not shown.
	if resp := h.s.consentPage(&web.Request{URL: base + "/authorize"}, "p", "x", "https://a;b/cb", scopeAll, defaultChoices(scopeAll), ""); resp.Status != 400 || strings.Contains(string(resp.Body), "a;b") {
		t.Errorf("a redirect host with a semicolon: %d %s", resp.Status, resp.Body)
	}
}

// The page's sentence on what the app will do holds whichever access the
// person chooses, as it cannot follow the choice without script: it says
// what the app asked for and that the person chooses, never what the app
// "will" do.
func TestConsentPageSaysTheChoice(t *testing.T) {
	h := newHarness(t, testSecret)
	for _, tc := range []struct {
		name, scope, access string
		want                string
	}{
		{"write asked, write chosen", scopeAll, "write", "memos as you on <strong>" + escapeHTML(h.s.opts.Instance) + "</strong>; you choose below.</p>"},
		{"write asked, read chosen", scopeAll, "read", "<p>It asks to read and write memos as you on <strong>"},
		{"read asked", ScopeRead, "read", "<p>It asks to read memos as you on <strong>" + escapeHTML(h.s.opts.Instance) + "</strong>, and nothing more.</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chosen := defaultChoices(tc.scope)
			chosen.Access = tc.access
			body := string(h.s.consentPage(&web.Request{URL: base + "/authorize"}, "p", "App", "https://app.example.net/cb", tc.scope, chosen, "").Body)
			if !strings.Contains(body, tc.want) || strings.Contains(body, "It will") {
				t.Errorf("the page lacks %q, or says what the app will do: %s", tc.want, body)
			}
		})
	}
}

// A refused sign-in shows the page again with every choice the person
// made, and a grant carries no more than the last choice.
func TestConsentKeepsChoices(t *testing.T) {
	h := newHarness(t, testSecret)
	id, _ := h.registerClient("none")
	pending, cookie := h.consent(id, "")
	header := web.Header{"content-type": "application/x-www-form-urlencoded", "cookie": cookie, "origin": base}
	resp := h.do("POST", "/authorize", header, form("request", pending, "decision", "allow", "access", "read", "days", "30", "username", "ann", "password", "wrong"))
	body := string(resp.Body)
	for _, want := range []string{
		`id="access-read" name="access" value="read" checked`, `<option value="30" selected>`, `name="username" value="ann"`, `autofocus`,
	} {
		if resp.Status != 400 || !strings.Contains(body, want) {
			t.Errorf("the page shown again lacks %q: %d %s", want, resp.Status, body)
		}
	}
	for _, unwanted := range []string{`value="write" checked`, `<option value="90" selected>`, "wrong"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("the page shown again holds %q", unwanted)
		}
	}
	m := hiddenRequest.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no request on the page shown again")
	}
	resp = h.do("POST", "/authorize", header, form("request", strings.ReplaceAll(m[1], "&amp;", "&"), "decision", "allow", "access", "read", "days", "30", "username", "ann", "password", password))
	loc, _ := url.Parse(resp.Header.Get("location"))
	tokens := h.tokens(id, "", loc.Query().Get("code"), verifier)
	if scope := gjson.GetBytes(tokens.Body, "scope").Str; scope != ScopeRead {
		t.Errorf("the grant's scope is %q (%s), want %q", scope, tokens.Body, ScopeRead)
	}
}

func TestChoicesFrom(t *testing.T) {
	for _, tc := range []struct {
		name, form, scope string
		want              choices
	}{
		{"read", "access=read&days=30&username=+ann+", scopeAll, choices{"read", 30, "ann"}},
		{"write asked and chosen", "access=write&days=30", scopeAll, choices{"write", 30, ""}},
		{"a lifetime without end", "days=0", scopeAll, choices{"read", defaultTokenDays, ""}},
		{"write not asked", "access=write&days=365", ScopeRead, choices{"read", 365, ""}},
		{"nothing chosen", "", scopeAll, choices{"read", defaultTokenDays, ""}},
		{"a lifetime not offered", "days=7", scopeAll, choices{"read", defaultTokenDays, ""}},
		{"a username too long", "username=" + strings.Repeat("a", maxUsernameLen+1), scopeAll, choices{"read", defaultTokenDays, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form, _ := url.ParseQuery(tc.form)
			if got := choicesFrom(uri.Values(form), tc.scope); got != tc.want {
				t.Errorf("choicesFrom(%q) = %+v, want %+v", tc.form, got, tc.want)
			}
		})
	}
}

// styleHash is the CSP source of pageStyle as it is now.
func TestStyleHash(t *testing.T) {
	sum := sha256.Sum256([]byte(pageStyle))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; styleHash != want {
		t.Errorf("styleHash = %s; pageStyle's is %s", styleHash, want)
	}
}
