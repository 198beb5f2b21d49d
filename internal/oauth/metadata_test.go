package oauth

import (
	"testing"

	"github.com/tidwall/gjson"
)

// The protected-resource metadata names the one resource this server
// protects, /mcp, at the path form of its well-known URL only (RFC 9728
// section 3: the root form would describe the origin as a resource).
func TestResourceMetadataNamesItsResource(t *testing.T) {
	h := newHarness(t, testSecret)
	for _, tc := range []struct {
		name, path string
		status     int
		resource   string
	}{
		{"path form", "/.well-known/oauth-protected-resource/mcp", 200, base + "/mcp"},
		{"root form", "/.well-known/oauth-protected-resource", 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.do("GET", tc.path, nil, "")
			if got := gjson.GetBytes(resp.Body, "resource").Str; resp.Status != tc.status || got != tc.resource {
				t.Errorf("%d resource %q, want %d %q", resp.Status, got, tc.status, tc.resource)
			}
		})
	}
}

// A resource parameter names this server's resource with or without a
// query; anything else is another resource.
func TestSameResource(t *testing.T) {
	const ours = "https://mcp.example.com/mcp"
	for _, tc := range []struct {
		asked string
		same  bool
	}{
		{"", true},
		{ours, true},
		{ours + "?", true},
		{ours + "?connector=abc&x=1", true},
		{ours + "#top", false},
		{ours + "/", false},
		{"?connector=abc", false},
		{"https://mcp.example.com/mcp2?x", false},
		{"https://other.example.com/mcp", false},
	} {
		if got := sameResource(tc.asked, ours); got != tc.same {
			t.Errorf("sameResource(%q) = %v, want %v", tc.asked, got, tc.same)
		}
	}
}
