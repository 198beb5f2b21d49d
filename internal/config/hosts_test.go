package config

import (
	"slices"
	"strings"
	"testing"
)

// A URL, a port or a path in ALLOWED_HOSTS is named with what to write
// instead, and the host name in it is served meanwhile; an entry that names
// no host stays as written, so that it matches nothing.
func TestAllowedHosts(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		hosts     []string
		wantErr   []string // one substring per problem, in order
	}{
		{"host names", " mcp.example.com, localhost,127.0.0.1,[::1],::1 ,", []string{"mcp.example.com", "localhost", "127.0.0.1", "[::1]", "::1"}, nil},
		{"unset", "", nil, nil},
		{"a URL", "https://mcp.example.com/", []string{"mcp.example.com"},
			[]string{`ALLOWED_HOSTS entry "https://mcp.example.com/" is a URL: write the host name alone, mcp.example.com`}},
		{"a URL with a port and a path", "http://MCP.example.com:8443/mcp", []string{"mcp.example.com"},
			[]string{`"http://MCP.example.com:8443/mcp" is a URL: write the host name alone, mcp.example.com`}},
		{"an IPv6 URL", "http://[::1]:8787", []string{"[::1]"}, []string{`is a URL: write the host name alone, [::1]`}},
		{"a port", "mcp.example.com:443,localhost", []string{"mcp.example.com", "localhost"},
			[]string{`ALLOWED_HOSTS entry "mcp.example.com:443" has a port (a request's port is not compared): write the host name alone, mcp.example.com`}},
		{"an IPv6 address's port", "[::1]:8787", []string{"[::1]"}, []string{`"[::1]:8787" has a port`}},
		{"a path", "mcp.example.com/mcp", []string{"mcp.example.com"},
			[]string{`ALLOWED_HOSTS entry "mcp.example.com/mcp" has a path (the Worker answers on every path of its hosts): write the host name alone, mcp.example.com`}},
		{"each mistake", "example.com/mcp*,127.0.0.1:8787", []string{"example.com", "127.0.0.1"}, []string{`"example.com/mcp*" has a path`, `"127.0.0.1:8787" has a port`}},
		{"a wildcard", "*.example.com", []string{"*.example.com"}, []string{`ALLOWED_HOSTS entry "*.example.com" is not a host name (`, "): write each host name in full, without a wildcard, e.g. mcp.example.com"}},
		{"a URL without a host", "https:///mcp", []string{"https:///mcp"}, []string{`"https:///mcp" is not a host name`}},
		{"a port alone", ":8787", []string{":8787"}, []string{`":8787" is not a host name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, err := AllowedHosts(tc.raw)
			if !slices.Equal(hosts, tc.hosts) {
				t.Errorf("hosts %q, want %q", hosts, tc.hosts)
			}
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.wantErr)
			}
			rest := err.Error()
			for _, want := range tc.wantErr {
				_, after, ok := strings.Cut(rest, want)
				if !ok {
					t.Fatalf("error %q, want %q (in this order: %q)", err, want, tc.wantErr)
				}
				rest = after
			}
		})
	}
}

// Load checks ALLOWED_HOSTS with the rest: the mistake is a configuration
// problem /healthz lists, and the host it names is served.
func TestLoadChecksAllowedHosts(t *testing.T) {
	c, err := Load(env(map[string]string{"MEMOS_URL": "https://memos.example.com", "ALLOWED_HOSTS": "https://mcp.example.com/"}), noBindings)
	if err == nil || !strings.Contains(err.Error(), "is a URL: write the host name alone, mcp.example.com") {
		t.Errorf("error %v, want the ALLOWED_HOSTS mistake", err)
	}
	if !slices.Equal(c.AllowedHosts, []string{"mcp.example.com"}) {
		t.Errorf("AllowedHosts %q, want the host name the URL holds", c.AllowedHosts)
	}
}
