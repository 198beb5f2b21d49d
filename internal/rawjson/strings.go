package rawjson

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// unquote returns the value of the JSON string raw, quotes included. A
// string without escapes is returned as a part of raw. An escaped surrogate
// that is not half of a pair becomes U+FFFD; other bytes are kept as they are.
// The runs between escapes are found eight bytes at a time and copied whole:
// a memo's text has an escape a line, and memos are most of a large answer.
func unquote(raw string) string {
	s := raw[1 : len(raw)-1]
	i := nextEscape(s, 0)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for run := 0; ; run = i {
		i = nextEscape(s, i)
		b = append(b, s[run:i]...)
		if i++; i >= len(s) {
			break
		}
		switch s[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s, i+1)
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo := hex4(s, i+3); lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			b = utf8.AppendRune(b, r) // a lone surrogate is not a rune: U+FFFD
		default: // '"', '\\', '/'
			b = append(b, s[i])
		}
		if i++; i >= len(s) {
			break
		}
	}
	return string(b)
}

func needsUnescape(s string) bool { return nextEscape(s, 0) < len(s) }

// nextEscape returns the index of the first backslash of s at or after i,
// or len(s).
func nextEscape(s string, i int) int {
	for i < len(s) {
		if i = plainEnd(s, i); i >= len(s) || s[i] == '\\' {
			return i
		}
		i++ // a byte of the last seven, or one plainEnd stops at that is no escape
	}
	return len(s)
}

// hex4 reads the four hex digits at s[i:]; -1 when they are not.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string. Like encoding/json, it
// escapes <, > and & (the string stays safe inside HTML) and U+2028 and
// U+2029 (it stays safe inside JavaScript), and writes U+FFFD for each byte
// that is not part of valid UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		// The bytes that need nothing are copied as runs.
		if j := quotedEnd(s, i); j > i {
			dst = append(dst, s[i:j]...)
			if i = j; i >= len(s) {
				break
			}
		}
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c < ' ' || c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				dst = append(dst, "\uFFFD"...)
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				dst = append(dst, s[i:i+n]...)
			}
			i += n - 1
		}
	}
	return append(dst, '"')
}

// quotedEnd skips the bytes at s[i:] that AppendString copies as they
// are, eight at a time while none of the eight is a quote, a backslash, a
// control character, <, >, & or a byte of a multi-byte character, and
// returns where it stopped, as plainEnd does.
func quotedEnd(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i:])))
		m := x | (x-ones*' ')&^x // a byte from 0x80, or below 0x20
		for _, c := range [...]uint64{'"', '\\', '<', '>', '&'} {
			y := x ^ (ones * c)
			m |= (y - ones) &^ y
		}
		// The lowest flagged byte is the first such (a borrow flags only
		// higher ones).
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
}

// Quote returns s as a JSON string.
func Quote(s string) string { return string(AppendString(nil, s)) }
