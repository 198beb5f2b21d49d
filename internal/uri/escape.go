// Package uri parses and escapes URLs and form bodies as net/url does, for
// the few uses the gateway has: checking redirect URIs and the Memos base
// URL, reading query strings and form posts, and building query strings and
// path segments. net/url links fmt (and through it reflect and os), which
// costs the Worker's wasm about 0.4 MB; this package links neither. Its
// tests hold it to net/url's results on the same input.
//
// It also reads an http(s) URL's host as the WHATWG URL Standard does
// (ParseHost, Origin), since that, not net/url, is how the runtime's fetch
// and browsers find the host they connect to; those tests run Node's URL.
package uri

import (
	"strconv"
	"strings"
)

// A mode is a part of a URL, which decides what is escaped in it.
type mode uint8

const (
	inPath mode = iota
	inPathSegment
	inHost
	inZone // an IPv6 zone (RFC 6874)
	inUserinfo
	inQueryComponent
	inFragment
)

// mustEscape reports whether c is escaped in part m of a URL (RFC 3986,
// with net/url's choices where the RFC leaves room).
func mustEscape(c byte, m mode) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return false
	}
	if m == inHost || m == inZone {
		// sub-delims, and what a host[:port] or [ipv6] needs
		if strings.IndexByte(`!$&'()*+,;=:[]<>"`, c) >= 0 {
			return false
		}
	}
	switch c {
	case '-', '_', '.', '~':
		return false
	case '$', '&', '+', ',', '/', ':', ';', '=', '?', '@':
		switch m {
		case inPath:
			return c == '?'
		case inPathSegment:
			return c == '/' || c == ';' || c == ',' || c == '?'
		case inUserinfo:
			return c == '@' || c == '/' || c == '?' || c == ':'
		case inQueryComponent:
			return true
		case inFragment:
			return false
		}
	}
	if m == inFragment && strings.IndexByte("!()*", c) >= 0 {
		return false
	}
	return true
}

// QueryEscape escapes s for a query string's name or value: space as '+'.
func QueryEscape(s string) string { return escape(s, inQueryComponent) }

// PathEscape escapes s for one path segment ('/' too).
func PathEscape(s string) string { return escape(s, inPathSegment) }

const upperHex = "0123456789ABCDEF"

func escape(s string, m mode) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if mustEscape(s[i], m) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' && m == inQueryComponent:
			b = append(b, '+')
		case mustEscape(c, m):
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// QueryUnescape decodes a query string's name or value: %XX escapes, and
// '+' as a space. A '%' without two hex digits after it is an error.
func QueryUnescape(s string) (string, error) { return unescape(s, inQueryComponent) }

// EscapeError is a malformed %-escape, or an escape a host may not use.
type EscapeError string

func (e EscapeError) Error() string { return "invalid URL escape " + strconv.Quote(string(e)) }

// HostError is a character a host name may not hold.
type HostError string

func (e HostError) Error() string {
	return "invalid character " + strconv.Quote(string(e)) + " in host name"
}

func unescape(s string, m mode) (string, error) {
	escapes, plus := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", EscapeError(s[i:min(i+3, len(s))])
			}
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			// A host escapes only bytes beyond ASCII (RFC 3986 §3.2.2), and
			// a percent sign before an IPv6 zone (RFC 6874); a zone escapes
			// only what it could hold unescaped, and spaces.
			if m == inHost && v < 0x80 && s[i:i+3] != "%25" ||
				m == inZone && s[i:i+3] != "%25" && v != ' ' && mustEscape(v, inHost) {
				return "", EscapeError(s[i : i+3])
			}
			escapes++
			i += 2
		case c == '+':
			plus = plus || m == inQueryComponent
		case (m == inHost || m == inZone) && c < 0x80 && mustEscape(c, m):
			return "", HostError(s[i : i+1])
		}
	}
	if escapes == 0 && !plus {
		return s, nil
	}
	b := make([]byte, 0, len(s)-2*escapes)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		case c == '+' && m == inQueryComponent:
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return string(b), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
