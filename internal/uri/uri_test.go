package uri

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var urlSeeds = []string{
	"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/callback?x=1", "http://[::1]:8080/cb", "https://[fe80::1%25en0]/",
	"https://[::ffff:1.2.3.4]/", "https://[1.2.3.4]/", "https://[::1", "https://a[::1]/", "https://h:/", "https://h:x/", "https://h:1:2/",
	"mongodb://h1:1,h2:2/db", "https://u:p@h/", "https://u@h/", "https://u%zz@h/", "https://ü@h/", "https://a@b@h/", "https://h/%zz",
	"https://h/a%2Fb/c?q#f", "https://h/a b", "https://h/#", "https://h/?", "https://h/??", "https://h#%zz", "https://h#a%20b",
	"https://%41/", "https://%c3%bc.example/", "https://h%25/", "https://ex ample/", "https://h<>/", "HTTPS://Example.COM/Path",
	"https:opaque", "https:/path", "https:///path", "///path", "//host/path", "/path", "path", "a:b", "1a:b", ":x", "*", "",
	"https://h/\x7f", "https://h/\x01#", "https://h/#\x01", "https://claude.ai", "https://claude.ai/", "javascript:alert(1)",
	"http://localhost:3000", "https://h/*", "https://h?a", "https://h/a;b,c", "https://[fe80::1%25%65n0]/", "https://[fe80::1%25%0a]/",
	"https://[fe80::1%25en 0]/", "https://[fe80::1%25en%200]/", "http://h:80:80/", "http://[::1]:a/", "x://[::1]:1:2/",
}

func TestParse(t *testing.T) {
	for _, s := range urlSeeds {
		checkParse(t, s)
	}
}

func checkParse(t *testing.T, s string) {
	want, wantErr := url.Parse(s)
	got, err := Parse(s)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("Parse(%q): error %v, net/url's %v", s, err, wantErr)
	}
	if err != nil {
		return
	}
	ref := URL{Scheme: want.Scheme, Opaque: want.Opaque, HasUser: want.User != nil, Host: want.Host, Path: want.Path,
		RawQuery: want.RawQuery, ForceQuery: want.ForceQuery, Fragment: want.Fragment, OmitHost: want.OmitHost}
	if diff := cmp.Diff(ref, got); diff != "" {
		t.Fatalf("Parse(%q) (-net/url +uri):\n%s", s, diff)
	}
	if got.Hostname() != want.Hostname() {
		t.Fatalf("Parse(%q).Hostname() = %q, net/url's %q", s, got.Hostname(), want.Hostname())
	}
	if want.User == nil && want.RawQuery == "" && !want.ForceQuery && want.Fragment == "" && !strings.Contains(s, "#") {
		want.RawPath = ""
		if got.String() != want.String() {
			t.Fatalf("Parse(%q).String() = %q, net/url's %q", s, got.String(), want.String())
		}
	}
}

var querySeeds = []string{
	"", "a=1&b=2&a=3", "a", "=x", "&&a=1&", "a=1;b=2", "a=%zz&b=2", "a=1&b=%zz&c=%yy", "a+b=c+d", "%61=%62", "a=%", "a=%4",
	"redirect_uri=https%3A%2F%2Fclaude.ai%2Fcb&state=x%20y", "a=1&b;=2&c=%zz", "a=%zz&b;", strings.Repeat("a&", 10000), strings.Repeat("a&", 9999),
}

func TestParseQuery(t *testing.T) {
	for _, s := range querySeeds {
		checkQuery(t, s)
	}
}

func checkQuery(t *testing.T, s string) {
	want, wantErr := url.ParseQuery(s)
	got, err := ParseQuery(s)
	if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("ParseQuery(%q): error %v, net/url's %v", s, err, wantErr)
	}
	if diff := cmp.Diff(map[string][]string(want), map[string][]string(got)); diff != "" {
		t.Fatalf("ParseQuery(%q) (-net/url +uri):\n%s", s, diff)
	}
	if got.Encode() != want.Encode() {
		t.Fatalf("Encode of %q = %q, net/url's %q", s, got.Encode(), want.Encode())
	}
	for name := range want {
		if got.Get(name) != want.Get(name) {
			t.Fatalf("Get(%q) on %q = %q, net/url's %q", name, s, got.Get(name), want.Get(name))
		}
	}
}

func checkEscapes(t *testing.T, s string) {
	if got, want := QueryEscape(s), url.QueryEscape(s); got != want {
		t.Fatalf("QueryEscape(%q) = %q, net/url's %q", s, got, want)
	}
	if got, want := PathEscape(s), url.PathEscape(s); got != want {
		t.Fatalf("PathEscape(%q) = %q, net/url's %q", s, got, want)
	}
	got, err := QueryUnescape(s)
	want, wantErr := url.QueryUnescape(s)
	if got != want || (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("QueryUnescape(%q) = %q, %v; net/url's %q, %v", s, got, err, want, wantErr)
	}
}

func TestEscapes(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, s := range append(querySeeds, string(all), "a b+c/d?e;f,g@h:i$j&k=l", "ü", "%41+%2b", "%", "%G0") {
		checkEscapes(t, s)
	}
}

func TestValuesEncode(t *testing.T) {
	v := Values{"state": {"a b&c"}, "code": {"x/y"}, "iss": {"https://gw.example"}, "many": {"1", "2"}, "none": {}}
	want := url.Values(v).Encode()
	if got := v.Encode(); got != want {
		t.Errorf("Encode() = %q, net/url's %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, s) })
}

func FuzzQuery(f *testing.F) {
	for _, s := range querySeeds[:len(querySeeds)-2] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkQuery(t, s)
		checkEscapes(t, s)
	})
}
