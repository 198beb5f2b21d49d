//go:build e2e

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// What the hosted clients look for, against the Worker: Claude uses a
// client ID metadata document only when the server advertises it with
// "none" among the token endpoint's methods, and checks the issuer
// exactly; ChatGPT's one client document prefers private_key_jwt, offers
// none, and names a redirect URI per connector, one more for each new
// connector; some clients send a resource with the query of the URL they
// were given.
func TestClientQuirks(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	doc := &clientDocument{}
	srv := httptest.NewServer(doc)
	t.Cleanup(srv.Close)
	doc.id = srv.URL + "/oauth/client.json"
	doc.redirects = []string{srv.URL + "/connector/oauth/one"}
	getJSON := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Get(gw.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	prm := getJSON("/.well-known/oauth-protected-resource/mcp")
	servers, _ := prm["authorization_servers"].([]any)
	if len(servers) != 1 {
		t.Fatalf("authorization_servers: %v", prm["authorization_servers"])
	}
	issuer, _ := servers[0].(string)

	t.Run("metadata", func(t *testing.T) {
		for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp",
			"/.well-known/openid-configuration", "/.well-known/openid-configuration/mcp", "/mcp/.well-known/openid-configuration"} {
			as := getJSON(path)
			methods, _ := as["token_endpoint_auth_methods_supported"].([]any)
			if as["issuer"] != issuer || as["client_id_metadata_document_supported"] != true || !slices.Contains(methods, any("none")) {
				t.Errorf("%s: issuer %v (the resource names %q), client_id_metadata_document_supported %v, token endpoint methods %v",
					path, as["issuer"], issuer, as["client_id_metadata_document_supported"], methods)
			}
		}
	})

	// connector is the client of the document, returning to redirect.
	connector := func(t *testing.T, redirect string) *oauthClient {
		return &oauthClient{t: t, base: gw.URL, id: doc.id, redirect: redirect, verifier: strings.Repeat("q", 50)}
	}
	first := doc.redirects[0]
	exchange := func(t *testing.T, what string, c *oauthClient, params url.Values) {
		t.Helper()
		next := actAsPerson(t, c.authorizeURLWith(params), "read")
		if next.Query().Get("iss") != issuer {
			t.Errorf("%s: iss %q on the redirect, want exactly %q", what, next.Query().Get("iss"), issuer)
		}
		form := url.Values{"grant_type": {"authorization_code"}, "code": {next.Query().Get("code")}, "code_verifier": {c.verifier}, "redirect_uri": {c.redirect}}
		for k, v := range params {
			form[k] = v
		}
		status, out := c.token(form)
		if status != 200 || out["access_token"] == nil {
			t.Fatalf("%s: token exchange %d %v", what, status, out)
		}
		if status, _ := mcpStatus(t, gw.URL, out["access_token"].(string)); status != 200 {
			t.Errorf("%s: its access token: %d", what, status)
		}
	}

	t.Run("a redirect URI per connector", func(t *testing.T) {
		exchange(t, "the first connector", connector(t, first), nil)
		// A new connector: the same document now lists its redirect URI
		// too, while the Worker still holds the earlier copy.
		doc.add(srv.URL + "/connector/oauth/two")
		exchange(t, "the second connector", connector(t, srv.URL+"/connector/oauth/two"), nil)
	})

	t.Run("a resource with a query", func(t *testing.T) {
		exchange(t, "resource with a query", connector(t, first), url.Values{"resource": {gw.URL + "/mcp?connector=one"}})
	})

	t.Run("the issuer on a refusal", func(t *testing.T) {
		pending, cookie := openConsentPage(t, connector(t, first).authorizeURL())
		_, _, next := postConsent(t, gw.URL, pending, cookie, url.Values{"decision": {"deny"}})
		if next == nil || next.Query().Get("error") != "access_denied" || next.Query().Get("iss") != issuer {
			t.Errorf("deny: sent to %v, want access_denied with iss %q", next, issuer)
		}
	})
}

// clientDocument serves a client ID metadata document shaped like
// ChatGPT's: private_key_jwt preferred, and a redirect URI per connector.
type clientDocument struct {
	mu        sync.Mutex
	id        string
	redirects []string
}

func (d *clientDocument) add(redirect string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.redirects = append(d.redirects, redirect)
}

func (d *clientDocument) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"client_id": d.id, "client_name": "Connector platform", "redirect_uris": d.redirects,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "private_key_jwt", "jwks_uri": strings.TrimSuffix(d.id, "client.json") + "jwks.json",
	})
}
