package uri

import (
	"errors"
	"strconv"
	"strings"
)

// A HostKind says what a URL's host is.
type HostKind uint8

const (
	DNSName HostKind = iota + 1
	IPv4
	IPv6
)

// A Host is the host of an http or https URL as the WHATWG URL Standard's
// host parser reads it, which is what the Workers runtime's fetch and every
// browser connect to, whatever spelling the URL used.
type Host struct {
	// Name is the host as the URL Standard serializes it (URL.hostname):
	// a lower-case ASCII DNS name (a trailing dot kept), an IPv4 address in
	// dotted decimal, or an IPv6 address in brackets, compressed.
	Name string
	Kind HostKind
	IP   IP // the address of an IPv4 or IPv6 host
}

// Domain returns a DNS name without its trailing dot: the name to judge,
// since "localhost." and "localhost" are the same host to a resolver.
func (h Host) Domain() string { return strings.TrimSuffix(h.Name, ".") }

// IsLoopback reports whether h is a loopback address, or the name
// localhost itself (RFC 8252's loopback redirects): not the names under
// .localhost, which ResolvesToLoopback takes too.
func (h Host) IsLoopback() bool {
	return h.Kind != DNSName && h.IP.IsLoopback() || h.Domain() == "localhost"
}

// maxDomainLen is the longest DNS name (RFC 1035), without a trailing dot.
const maxDomainLen = 253

var (
	errHostEmpty    = errors.New("empty host")
	errHostNotASCII = errors.New("host holds a character beyond ASCII or a percent sign: only ASCII (punycode) host names are accepted")
	errHostLabel    = errors.New("host name label is not letters, digits and inner hyphens of 1 to 63 characters")
	errHostLong     = errors.New("host name is longer than 253 characters")
	errHostIPv4     = errors.New("host ends in a number but is not an IPv4 address")
	errHostIPv6     = errors.New("invalid IPv6 address in brackets")
)

// ParseHost reads the host of an absolute http or https URL, as Parse's
// Hostname returns it (percent-decoded, an IPv6 address without brackets),
// the way the URL Standard's host parser does for special schemes: IPv4 in
// any of its number forms (1 to 4 parts; decimal, octal after a leading 0,
// hex after 0x; the last part filling the remaining bytes; one trailing
// dot), a bracketed IPv6 address, or a DNS name lower-cased. A name whose
// last label is a number must be an IPv4 address, as there.
//
// It is stricter than the standard where being exact would need Unicode
// tables (IDNA/UTS 46 mapping: golang.org/x/net/idna in ParseHost's place
// made the Worker's wasm 714 KB larger, 219 KB gzip, measured, as it brings
// fmt and the normalization and bidi tables): a host holding a character beyond ASCII or
// a percent sign is refused rather than mapped, and xn-- labels are taken
// as written. DNS names must be LDH labels (letters, digits, inner hyphens,
// 1 to 63 characters) of at most 253 characters in all; only the last label
// may be empty, as a trailing dot. The tests hold it to Node's URL parser.
func ParseHost(hostname string) (Host, error) {
	if hostname == "" {
		return Host{}, errHostEmpty
	}
	for i := 0; i < len(hostname); i++ {
		if c := hostname[i]; c >= 0x80 || c == '%' {
			return Host{}, errHostNotASCII
		}
	}
	if strings.IndexByte(hostname, ':') >= 0 {
		return parseIPv6Host(hostname)
	}
	name := strings.ToLower(hostname)
	if endsInNumber(name) {
		a, ok := parseIPv4Numbers(name)
		if !ok {
			return Host{}, errHostIPv4
		}
		ip := IP{is4: true}
		ip.addr[10], ip.addr[11] = 0xff, 0xff
		ip.addr[12], ip.addr[13], ip.addr[14], ip.addr[15] = byte(a>>24), byte(a>>16), byte(a>>8), byte(a)
		return Host{Name: dotted(a), Kind: IPv4, IP: ip}, nil
	}
	bare := strings.TrimSuffix(name, ".")
	if len(bare) > maxDomainLen {
		return Host{}, errHostLong
	}
	for label := range strings.SplitSeq(bare, ".") {
		if !ldhLabel(label) {
			return Host{}, errHostLabel
		}
	}
	return Host{Name: name, Kind: DNSName}, nil
}

// ldhLabel reports whether label is a DNS label of letters, digits and
// hyphens, 1 to 63 long, neither starting nor ending with a hyphen.
func ldhLabel(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// endsInNumber is the URL Standard's "ends in a number" test: the last
// label (past one trailing dot) is all digits, or reads as an IPv4 number
// (0x and hex digits included).
func endsInNumber(name string) bool {
	parts := strings.Split(name, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Numbers is the URL Standard's IPv4 parser on a name that ends
// in a number: one to four numbers, each but the last a byte, the last
// filling the bytes left.
func parseIPv4Numbers(name string) (uint32, bool) {
	parts := strings.Split(name, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, false
	}
	var a uint64
	for i, part := range parts {
		n, ok := parseIPv4Number(part)
		if !ok {
			return 0, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return 0, false
			}
			a |= n << (8 * (3 - i))
		} else {
			if n >= 1<<(8*(5-len(parts))) {
				return 0, false
			}
			a |= n
		}
	}
	return uint32(a), true
}

// parseIPv4Number reads one part of an IPv4 address: decimal, octal after
// a leading 0, or hex after 0x (which alone reads as 0). Values past 2^32
// are held at 2^32, which every caller refuses.
func parseIPv4Number(part string) (uint64, bool) {
	if part == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(part) >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X'):
		radix, part = 16, part[2:]
	case len(part) >= 2 && part[0] == '0':
		radix, part = 8, part[1:]
	}
	var n uint64
	for i := 0; i < len(part); i++ {
		d := uint64(hexValue(part[i]))
		if hexValue(part[i]) < 0 || d >= radix {
			return 0, false
		}
		n = min(n*radix+d, 1<<32)
	}
	return n, true
}

func dotted(a uint32) string {
	b := make([]byte, 0, 15)
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, uint64(byte(a>>(8*i))), 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return string(b)
}

// parseIPv6Host reads an IPv6 address (Parse's Hostname drops the
// brackets) and writes it as the URL Standard does: lower-case hex without
// leading zeros, the first longest run of two or more zero groups as "::",
// an embedded IPv4 address in hex too. Zones are refused, as there.
func parseIPv6Host(s string) (Host, error) {
	ip, ok := parseIPv6(s)
	if !ok || strings.IndexByte(s, '%') >= 0 {
		return Host{}, errHostIPv6
	}
	var groups [8]uint16
	for i := range groups {
		groups[i] = uint16(ip.addr[2*i])<<8 | uint16(ip.addr[2*i+1])
	}
	start, length := -1, 1
	for i := 0; i < 8; {
		j := i
		for j < 8 && groups[j] == 0 {
			j++
		}
		if j-i > length {
			start, length = i, j-i
		}
		i = max(j, i+1)
	}
	b := []byte{'['}
	for i := 0; i < 8; i++ {
		if i == start {
			b = append(b, "::"...)
			i += length - 1
			continue
		}
		if i > 0 && i != start+length {
			b = append(b, ':')
		}
		b = strconv.AppendUint(b, uint64(groups[i]), 16)
	}
	return Host{Name: string(append(b, ']')), Kind: IPv6, IP: ip}, nil
}

var errPortRange = errors.New("port is over 65535")

// Origin returns the scheme, host and port of an http or https URL as the
// URL Standard serializes its origin (scheme://host[:port], the scheme's
// default port left out, a port's leading zeros dropped), and its host.
func Origin(u URL) (string, Host, error) {
	h, err := ParseHost(u.Hostname())
	if err != nil {
		return "", Host{}, err
	}
	rest := u.Host
	if strings.HasPrefix(rest, "[") {
		_, rest, _ = strings.Cut(rest, "]")
	}
	port := ""
	if _, digits, ok := strings.Cut(rest, ":"); ok && digits != "" {
		n, err := strconv.ParseUint(digits, 10, 16)
		if err != nil {
			return "", Host{}, errPortRange
		}
		if !(u.Scheme == "https" && n == 443 || u.Scheme == "http" && n == 80) {
			port = ":" + strconv.FormatUint(n, 10)
		}
	}
	return u.Scheme + "://" + h.Name + port, h, nil
}
