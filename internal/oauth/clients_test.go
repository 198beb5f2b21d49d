package oauth

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// documentServer answers every fetch with a client ID metadata document
// that names the id asked for (the test sets it), and records the URLs
// fetched.
type documentServer struct {
	id, name  string
	redirects []string
	fetched   []string
}

func (d *documentServer) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	d.fetched = append(d.fetched, req.URL)
	doc := `{"client_id":` + rawjson.Quote(d.id) + `,"client_name":` + rawjson.Quote(d.name) + `,"redirect_uris":[`
	for i, r := range d.redirects {
		if i > 0 {
			doc += ","
		}
		doc += rawjson.Quote(r)
	}
	return &web.Response{Status: 200, Header: web.Header{}, Body: []byte(doc + "]}")}, nil
}

func newClientServer(t *testing.T, loopback bool, fetch web.Doer) *Server {
	t.Helper()
	keys, err := seal.New(testSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Keys: keys, Memos: newFakeMemos(), Fetch: fetch, AllowLoopbackClients: loopback})
}

// A client ID URL is judged on the host fetch connects to, and fetched by
// that host: every spelling of an IP address is refused, and so are
// special-use and internal names, in any case and with a trailing dot.
func TestDocumentURL(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		loopback bool   // AllowLoopbackClients
		want     string // the URL fetched; "" when refused
	}{
		{"public name", "https://client.example.org/meta.json", false, "https://client.example.org/meta.json"},
		{"upper case and default port", "https://Client.Example.ORG:0443/meta.json?v=1", false, "https://client.example.org/meta.json?v=1"},
		{"trailing dot", "https://client.example.org./m", false, "https://client.example.org./m"},
		{"other port", "https://client.example.org:8443/m", false, "https://client.example.org:8443/m"},
		{"punycode", "https://xn--80ak6aa92e.com/m", false, "https://xn--80ak6aa92e.com/m"},
		{"short IPv4", "https://127.1/c", false, ""},
		{"IPv4 with a trailing dot", "https://127.0.0.1./c", false, ""},
		{"one number", "https://2130706433./c", false, ""},
		{"hex", "https://0x7f.0.0.1/c", false, ""},
		{"octal", "https://0177.0.0.1/c", false, ""},
		{"full-width digits", "https://１２７.０.０.１/c", false, ""},
		{"ideographic full stops", "https://127.0.0。1/c", false, ""},
		{"escaped full stop", "https://127.0.0%E3%80%821/c", false, ""},
		{"IPv4-mapped IPv6", "https://[::ffff:127.0.0.1]/c", false, ""},
		{"public IPv4", "https://8.8.8.8/c", false, ""},
		{"carrier-grade NAT", "https://100.64.0.1/c", false, ""},
		{"carrier-grade NAT in hex", "https://0x64400001/c", false, ""},
		{"public IPv6", "https://[2001:4860:4860::8888]/c", false, ""},
		{"localhost", "https://localhost/c", false, ""},
		{"localhost with a dot", "https://localhost./c", false, ""},
		{"under localhost", "https://app.LOCALHOST/c", false, ""},
		{"INTERNAL in capitals", "https://metadata.google.INTERNAL/c", false, ""},
		{"LOCAL in capitals", "https://printer.LOCAL./c", false, ""},
		{"home.arpa", "https://nas.home.arpa/c", false, ""},
		{"onion", "https://abc.onion/c", false, ""},
		{"test", "https://app.test/c", false, ""},
		{"lan", "https://router.lan/c", false, ""},
		{"corp", "https://wiki.corp/c", false, ""},
		{"single label", "https://intranet/c", false, ""},
		{"single label with a dot", "https://memos./c", false, ""},
		{"Cyrillic", "https://%D0%B0pple.com/c", false, ""},
		{"semicolon", "https://a;b.example.org/c", false, ""},
		{"ends in a number", "https://foo.0x7f/c", false, ""},
		{"http", "http://client.example.org/c", false, ""},
		{"no path", "https://client.example.org", false, ""},
		{"root path", "https://client.example.org/", false, ""},
		{"credentials", "https://u@client.example.org/c", false, ""},
		{"fragment", "https://client.example.org/c#x", false, ""},
		{"port out of range", "https://client.example.org:65536/c", false, ""},
		{"loopback http when allowed", "http://127.0.0.1:8080/c", true, "http://127.0.0.1:8080/c"},
		{"loopback http spelled short when allowed", "http://127.1:8080/c", true, "http://127.0.0.1:8080/c"},
		{"localhost http when allowed", "http://localhost:8080/c", true, "http://localhost:8080/c"},
		{"loopback http when not allowed", "http://127.0.0.1:8080/c", false, ""},
		{"private http when loopback allowed", "http://10.0.0.1/c", true, ""},
		{"loopback https even when allowed", "https://127.1:8443/c", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newClientServer(t, tc.loopback, nil)
			if got, ok := s.documentURL(tc.id); got != tc.want || ok != (tc.want != "") {
				t.Errorf("documentURL(%q) = %q, %v; want %q", tc.id, got, ok, tc.want)
			}
		})
	}
}

func TestRedirectAllowed(t *testing.T) {
	for _, tc := range []struct {
		name, uri string
		want      bool
	}{
		{"https", "https://claude.ai/api/mcp/auth_callback", true},
		{"https with port and query", "https://app.example.net:8443/cb?x=1", true},
		{"https punycode", "https://xn--pple-43d.com/cb", true},
		{"https loopback", "https://127.0.0.1:8443/cb", true},
		{"http loopback", "http://127.0.0.1:33418/callback", true},
		{"http loopback IPv6", "http://[::1]:33418/callback", true},
		{"http loopback spelled short", "http://127.1/cb", true},
		{"http localhost", "http://localhost:3000/cb", true},
		{"http public", "http://app.example.net/cb", false},
		{"http private", "http://10.0.0.1/cb", false},
		{"https private address", "https://10.0.0.1/cb", false},
		{"https public address", "https://8.8.8.8/cb", false},
		{"Cyrillic escaped", "https://%D0%B0pple.com/cb", false},
		{"Cyrillic", "https://аpple.com/cb", false},
		{"ideographic full stop", "https://claude.ai%E3%80%82evil.example/cb", false},
		{"semicolon in host", "https://a.example;script-src/cb", false},
		{"comma in host", "https://a.example,b.example/cb", false},
		{"escaped space in host", "https://a.example%20b/cb", false},
		{"underscore", "https://a_b.example/cb", false},
		{"fragment", "https://app.example.net/cb#x", false},
		{"credentials", "https://u:p@app.example.net/cb", false},
		{"other scheme", "myapp://callback", false},
		{"javascript", "javascript:alert(1)//", false},
		{"too long", "https://app.example.net/" + strings.Repeat("a", maxURILen), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redirectAllowed(tc.uri); got != tc.want {
				t.Errorf("redirectAllowed(%q) = %v, want %v", tc.uri, got, tc.want)
			}
		})
	}
}

// A client ID metadata document is held to what a registration is: its
// client_name capped, and its redirect URIs checked as DCR's are, with
// loopback clients allowed or not.
func TestClientDocument(t *testing.T) {
	const id = "http://127.0.0.1:9/client.json"
	for _, tc := range []struct {
		name, clientName string
		redirects        []string
		ok               bool
	}{
		{"good", "Doc App", []string{"http://127.0.0.1:9/cb", "https://app.example.net/cb"}, true},
		{"name at the cap", strings.Repeat("n", maxNameLen), []string{"http://127.0.0.1:9/cb"}, true},
		{"name over the cap", strings.Repeat("n", maxNameLen+1), []string{"http://127.0.0.1:9/cb"}, false},
		{"plain http to a public host", "Doc App", []string{"http://app.example.net/cb"}, false},
		{"semicolon in a redirect host", "Doc App", []string{"https://a.example;b/cb"}, false},
		{"Cyrillic redirect host", "Doc App", []string{"https://%D0%B0pple.com/cb"}, false},
		{"no redirect", "Doc App", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := &documentServer{id: id, name: tc.clientName, redirects: tc.redirects}
			s := newClientServer(t, true, docs)
			c, err := s.lookupClient(context.Background(), id, "")
			if (err == nil) != tc.ok {
				t.Fatalf("lookupClient: %+v, %v; want ok %v", c, err, tc.ok)
			}
		})
	}
	// The document is fetched by the URL as fetch reads it, and must name
	// the client_id as the client sent it.
	docs := &documentServer{id: "https://Client.Example.org:443/meta.json", redirects: []string{"https://app.example.net/cb"}}
	s := newClientServer(t, false, docs)
	if _, err := s.lookupClient(context.Background(), docs.id, ""); err != nil || len(docs.fetched) != 1 || docs.fetched[0] != "https://client.example.org/meta.json" {
		t.Errorf("lookupClient: %v; fetched %q", err, docs.fetched)
	}
	// A redirect URI the cached copy lacks (a new connector's) has the
	// document fetched again; one it holds does not.
	docs.redirects = append(docs.redirects, "https://app.example.net/connector/2")
	if c, err := s.lookupClient(context.Background(), docs.id, "https://app.example.net/connector/2"); err != nil || len(c.Redirects) != 2 || len(docs.fetched) != 2 {
		t.Errorf("a new connector's redirect URI: %v, %v; fetched %d times", c.Redirects, err, len(docs.fetched))
	}
	if _, err := s.lookupClient(context.Background(), docs.id, "https://app.example.net/cb"); err != nil || len(docs.fetched) != 2 {
		t.Errorf("a cached redirect URI: %v; fetched %d times", err, len(docs.fetched))
	}
	// A refused client ID URL is never fetched.
	docs = &documentServer{id: "https://127.1/c", redirects: []string{"https://app.example.net/cb"}}
	s = newClientServer(t, true, docs)
	if _, err := s.lookupClient(context.Background(), docs.id, ""); err == nil || len(docs.fetched) != 0 {
		t.Errorf("lookupClient: %v; fetched %q", err, docs.fetched)
	}
}

// A client authenticates at the token and revocation endpoints the way it
// registered, and in one way only.
func TestClientAuthentication(t *testing.T) {
	h := newHarness(t, testSecret)
	post, postSecret := h.registerClient("client_secret_post")
	basic, basicSecret := h.registerClient("client_secret_basic")
	public, _ := h.registerClient("none")
	basicAuth := func(id, secret string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
	}
	for _, tc := range []struct {
		name, authorization, body string
		ok                        bool
	}{
		{"post in the form", "", form("client_id", post, "client_secret", postSecret), true},
		{"post with Basic", basicAuth(post, postSecret), "", false},
		{"post without a secret", "", form("client_id", post), false},
		{"post with a wrong secret", "", form("client_id", post, "client_secret", basicSecret), false},
		{"basic with Basic", basicAuth(basic, basicSecret), "", true},
		{"basic in the form", "", form("client_id", basic, "client_secret", basicSecret), false},
		{"basic without a secret", "", form("client_id", basic), false},
		{"basic with an empty Basic secret", basicAuth(basic, ""), "", false},
		{"Basic and a form secret at once", basicAuth(basic, basicSecret), form("client_secret", basicSecret), false},
		{"Basic for one client, the form for another", basicAuth(basic, basicSecret), form("client_id", post), false},
		{"public with its id", "", form("client_id", public), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := web.Header{"content-type": "application/x-www-form-urlencoded"}
			if tc.authorization != "" {
				header["authorization"] = tc.authorization
			}
			body := "grant_type=password"
			if tc.body != "" {
				body += "&" + tc.body
			}
			// An authenticated client gets to the grant type, which is wrong.
			resp := h.do("POST", "/token", header, body)
			if got := oauthErr(resp); (got == "unsupported_grant_type") != tc.ok || !tc.ok && (resp.Status != 401 || got != "invalid_client") {
				t.Errorf("%d %s, want ok %v", resp.Status, resp.Body, tc.ok)
			}
		})
	}
}
