package visible

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Claude", "Claude"},
		{"right-to-left override", "Evil\u202egpj.exe", "Evilgpj.exe"},
		{"isolates and marks", "\u2066a\u2069\u200fb\u061c\u200ec", "abc"},
		{"zero width", "Cl\u200baude\ufeff\u2060", "Claude"},
		{"controls", "a\x00b\nc\x7f\u0085d", "abcd"},
		{"soft hyphen and tags", "a\u00adb\U000E0041", "ab"},
		{"invalid UTF-8", "a\xffb", "a\ufffdb"},
		{"spaces kept inside, trimmed outside", "  My App  ", "My App"},
		{"other scripts kept", "Приложение 日本", "Приложение 日本"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.want {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"lines and tabs kept", "# Title\n\n- [ ] a\tb\n", "# Title\n\n- [ ] a\tb\n"},
		{"bidi override", "pay \u202eliame\u202c now", "pay liame now"},
		{"hidden instructions in tags", "ok\U000E0069\U000E0067\U000E006E", "ok"},
		{"zero widths and controls", "a\u200b\u200db\x00\r\x1bc", "abc"},
		{"spaces at the ends kept", "  indented", "  indented"},
		{"invalid UTF-8", "a\xffb", "a\ufffdb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
