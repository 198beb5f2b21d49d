package uri

import "strings"

// IP is an address as ParseIP reads it: 16 bytes, an IPv4 address held as
// IPv4-mapped IPv6 (::ffff:a.b.c.d), and whether it was written as IPv4.
// The gateway needs no more than its class; net/netip, which it replaces,
// brought its canonical zone strings (package unique) and 33 KB into the
// wasm.
type IP struct {
	addr [16]byte
	is4  bool
}

// ParseIP reads the forms net/netip.ParseAddr reads: IPv4 as four decimal
// fields of 0 to 255 without leading zeros, and IPv6 as up to eight groups
// of one to four hex digits, with at most one "::" standing for one group
// of zeros or more, an optional IPv4 address in the last 32 bits and an
// optional %zone, which is checked for being there and then dropped.
func ParseIP(s string) (IP, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			ip := IP{is4: true}
			ip.addr[10], ip.addr[11] = 0xff, 0xff
			return ip, parseDotted(s, ip.addr[12:])
		case ':':
			return parseIPv6(s)
		case '%':
			return IP{}, false
		}
	}
	return IP{}, false
}

// parseDotted reads an IPv4 address in dotted decimal into b, 4 bytes.
func parseDotted(s string, b []byte) bool {
	n, field, digits := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || n == 4 {
				return false
			}
			b[n] = byte(field)
			n, field, digits = n+1, 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || digits == 1 && field == 0 {
			return false // not a digit, or after a leading zero
		}
		field, digits = field*10+int(c-'0'), digits+1
		if field > 255 {
			return false
		}
	}
	return n == 4
}

func parseIPv6(s string) (IP, bool) {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		if i == len(s)-1 {
			return IP{}, false // a zone, when given, is not empty
		}
		s = s[:i]
	}
	var ip IP
	gap := -1 // where "::" stands, as a byte offset into ip.addr
	n := 0    // bytes of ip.addr read
	if strings.HasPrefix(s, "::") {
		gap, s = 0, s[2:]
		if s == "" {
			return ip, true
		}
	}
	for n < 16 {
		digits, group := 0, 0
		for ; digits < len(s); digits++ {
			d := hexValue(s[digits])
			if d < 0 {
				break
			}
			if digits == 4 {
				return IP{}, false
			}
			group = group<<4 | d
		}
		if digits == 0 {
			return IP{}, false
		}
		if digits < len(s) && s[digits] == '.' {
			// An IPv4 address ends the address, in its last 32 bits.
			if gap < 0 && n != 12 || n+4 > 16 || !parseDotted(s, ip.addr[n:n+4]) {
				return IP{}, false
			}
			n, s = n+4, ""
			break
		}
		ip.addr[n], ip.addr[n+1] = byte(group>>8), byte(group)
		n, s = n+2, s[digits:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return IP{}, false
		}
		if s = s[1:]; s[0] == ':' {
			if gap >= 0 {
				return IP{}, false // a second "::"
			}
			gap, s = n, s[1:]
			if s == "" {
				break
			}
		}
	}
	switch {
	case s != "":
		return IP{}, false
	case n < 16 && gap < 0:
		return IP{}, false // too short
	case n == 16 && gap >= 0:
		return IP{}, false // "::" stands for nothing
	case n < 16:
		moved := n - gap
		copy(ip.addr[16-moved:], ip.addr[gap:n])
		clear(ip.addr[gap : 16-moved])
	}
	return ip, true
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// As16 returns ip's 16 bytes (an IPv4 address as IPv4-mapped IPv6).
func (ip IP) As16() [16]byte { return ip.addr }

// Is4 reports whether ip was written as an IPv4 address.
func (ip IP) Is4() bool { return ip.is4 }

// v4 returns the IPv4 address that ip is or maps (::ffff:a.b.c.d): the
// classes below treat both alike, as net/netip's do.
func (ip IP) v4() ([4]byte, bool) {
	if ip.is4 || [12]byte(ip.addr[:12]) == [12]byte{10: 0xff, 11: 0xff} {
		return [4]byte(ip.addr[12:]), true
	}
	return [4]byte{}, false
}

// IsLoopback reports whether ip is in 127.0.0.0/8 or is ::1.
func (ip IP) IsLoopback() bool {
	if a, ok := ip.v4(); ok {
		return a[0] == 127
	}
	return ip.addr == [16]byte{15: 1}
}

// ResolvesToLoopback reports whether a URL's host name (an IPv6 address
// with or without its brackets) is localhost, any name under .localhost
// (RFC 6761 has them all resolve to loopback) or a loopback address. It is
// wider than Host.IsLoopback, which takes localhost itself only.
func ResolvesToLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, ok := ParseIP(strings.Trim(host, "[]"))
	return ok && ip.IsLoopback()
}
