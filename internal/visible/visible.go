// Package visible removes from text what a reader cannot see but a
// renderer obeys: bidirectional controls, which can make text read as
// other text, invisible format characters (zero widths, joiners, tags),
// and control characters. It serves what other parties wrote: an app's
// name on the consent page, another Memos user's memo in a result.
package visible

import "strings"

// Text returns s without hidden characters, keeping its line breaks and
// tabs. Invalid UTF-8 becomes U+FFFD.
func Text(s string) string { return strip(s, "\n\t") }

// Line returns s as one line without hidden characters: line breaks and
// tabs go too, and spaces at either end.
func Line(s string) string { return strings.TrimSpace(strip(s, "")) }

// strip removes the hidden characters of s but those in keep.
func strip(s, keep string) string {
	return strings.Map(func(r rune) rune {
		if hidden(r) && !strings.ContainsRune(keep, r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// hidden reports whether r is a control character, a bidirectional
// control or an invisible format character.
func hidden(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r < 0xa0, r == 0xad, r == 0x61c, r == 0x180e, 0x200b <= r && r <= 0x200f,
		0x2028 <= r && r <= 0x202e, 0x2060 <= r && r <= 0x206f, r == 0xfeff, 0xfff9 <= r && r <= 0xfffb, 0xe0000 <= r && r <= 0xe007f:
		return true
	}
	return false
}
