package mcp

import (
	"encoding/json"
	"testing"
)

// Versions before 2025-06-18 get a tool's result without resource_link
// items and otherwise unchanged; later ones get it as it is.
func TestWithoutResourceLinks(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no links", `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}`, `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}`},
		{"links after the text", `{"content":[{"type":"text","text":"{}"},{"type":"resource_link","uri":"memo://memos/a","name":"memos/a"},{"type":"resource_link","uri":"memo://memos/b","name":"memos/b"}],"structuredContent":{}}`,
			`{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`},
		{"a link first", `{"content":[{"type":"resource_link","uri":"memo://memos/a","name":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":false}`,
			`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":false}`},
		{"the word in a text only", `{"content":[{"type":"text","text":"\"resource_link\""}]}`, `{"content":[{"type":"text","text":"\"resource_link\""}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(withoutResourceLinks([]byte(tc.in)))
			if got != tc.want || !json.Valid([]byte(got)) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for v, want := range map[string]bool{"2024-11-05": false, "2025-03-26": false, "2025-06-18": true, "2025-11-25": true, Version2026: true} {
		if hasResourceLinks(v) != want {
			t.Errorf("hasResourceLinks(%s) = %v", v, !want)
		}
	}
}
