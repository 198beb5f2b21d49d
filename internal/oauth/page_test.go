package oauth

import (
	"html"
	"strings"
	"testing"
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
