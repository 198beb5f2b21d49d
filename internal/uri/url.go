package uri

import (
	"errors"
	"strings"
)

// A URL is what Parse found in a URL (technically a URI reference):
//
//	scheme:opaque?query#fragment
//	scheme://userinfo@host/path?query#fragment
//
// Host, Path and Fragment are decoded. Only whether user information was
// given is kept, since the gateway refuses URLs that carry it.
type URL struct {
	Scheme     string // lower case
	Opaque     string // the rest of a scheme:rest URL whose rest is not rooted
	HasUser    bool
	Host       string // host or host:port; an IPv6 address in brackets
	Path       string
	RawQuery   string // without the '?'
	ForceQuery bool   // a '?' with nothing after it
	Fragment   string
	OmitHost   bool // scheme:/path: no authority at all
}

var (
	errControl     = errors.New("net/url: invalid control character in URL")
	errNoScheme    = errors.New("missing protocol scheme")
	errColon       = errors.New("first path segment in URL cannot contain colon")
	errUserinfo    = errors.New("net/url: invalid userinfo")
	errIPLiteral   = errors.New("invalid IP-literal")
	errNoBracket   = errors.New("missing ']' in host")
	errPort        = errors.New("invalid port after host")
	errIPv6Literal = errors.New("invalid host: not an IPv6 address")
)

// Parse reads raw as net/url's Parse does, and fails where it fails.
func Parse(raw string) (URL, error) {
	raw, frag, hasFrag := strings.Cut(raw, "#")
	u, err := parse(raw)
	if err != nil {
		return URL{}, err
	}
	if hasFrag {
		if u.Fragment, err = unescape(frag, inFragment); err != nil {
			return URL{}, err
		}
	}
	return u, nil
}

func parse(raw string) (URL, error) {
	var u URL
	for i := 0; i < len(raw); i++ {
		if raw[i] < ' ' || raw[i] == 0x7f {
			return u, errControl
		}
	}
	if raw == "*" {
		u.Path = "*"
		return u, nil
	}
	scheme, rest, err := splitScheme(raw)
	if err != nil {
		return u, err
	}
	u.Scheme = strings.ToLower(scheme)
	if strings.HasSuffix(rest, "?") && strings.Count(rest, "?") == 1 {
		u.ForceQuery, rest = true, rest[:len(rest)-1]
	} else {
		rest, u.RawQuery, _ = strings.Cut(rest, "?")
	}
	if !strings.HasPrefix(rest, "/") {
		if u.Scheme != "" {
			u.Opaque = rest // rootless: scheme:opaque
			return u, nil
		}
		// A relative reference's first segment cannot hold a colon: it
		// would read as a scheme (RFC 3986 §4.2).
		if first, _, _ := strings.Cut(rest, "/"); strings.Contains(first, ":") {
			return u, errColon
		}
	}
	switch {
	case (u.Scheme != "" || !strings.HasPrefix(rest, "///")) && strings.HasPrefix(rest, "//"):
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if u.HasUser, u.Host, err = parseAuthority(u.Scheme, authority); err != nil {
			return URL{}, err
		}
	case u.Scheme != "" && strings.HasPrefix(rest, "/"):
		u.OmitHost = true
	}
	if u.Path, err = unescape(rest, inPath); err != nil {
		return URL{}, err
	}
	return u, nil
}

// splitScheme splits "scheme:rest". Without a valid scheme before the first
// colon, all of raw is the rest; a colon first is an error.
func splitScheme(raw string) (scheme, rest string, err error) {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", raw, nil
			}
		case c == ':':
			if i == 0 {
				return "", "", errNoScheme
			}
			return raw[:i], raw[i+1:], nil
		default:
			return "", raw, nil
		}
	}
	return "", raw, nil
}

// parseAuthority reads [userinfo@]host[:port]; the last '@' ends userinfo.
func parseAuthority(scheme, authority string) (hasUser bool, host string, err error) {
	at := strings.LastIndexByte(authority, '@')
	if host, err = parseHost(scheme, authority[at+1:]); err != nil || at < 0 {
		return false, host, err
	}
	userinfo := authority[:at]
	for _, r := range userinfo {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._:~!$&'()*+,;=%@", r)) {
			return false, "", errUserinfo
		}
	}
	name, password, _ := strings.Cut(userinfo, ":")
	if _, err := unescape(name, inUserinfo); err != nil {
		return false, "", err
	}
	if _, err := unescape(password, inUserinfo); err != nil {
		return false, "", err
	}
	return true, host, nil
}

// parseHost reads host[:port], where host may be [IPv6 address%25zone].
func parseHost(scheme, host string) (string, error) {
	open := strings.LastIndexByte(host, '[')
	switch {
	case open > 0:
		return "", errIPLiteral
	case open == 0:
		end := strings.LastIndexByte(host, ']')
		if end < 0 {
			return "", errNoBracket
		}
		port := host[end+1:]
		if !validPort(port) {
			return "", errPort
		}
		addr, zone, hasZone := strings.Cut(host[1:end], "%25")
		name, err := unescape(addr, inHost)
		if err != nil {
			return "", err
		}
		if hasZone {
			z, err := unescape("%25"+zone, inZone)
			if err != nil {
				return "", err
			}
			name += z
		}
		// Only an IPv6 address goes in brackets (RFC 3986 §3.2.2).
		ip, ok := ParseIP(name)
		if !ok {
			return "", errIPv6Literal
		}
		if ip.Is4() {
			return "", errIPLiteral
		}
		return "[" + name + "]" + port, nil
	}
	if first := strings.IndexByte(host, ':'); first >= 0 {
		// Only one colon, before the port, in an http(s) host; other schemes
		// may list hosts (host1:1,host2:2), so their port is after the last.
		if scheme != "http" && scheme != "https" {
			first = strings.LastIndexByte(host, ':')
		}
		if !validPort(host[first:]) {
			return "", errPort
		}
	}
	return unescape(host, inHost)
}

// validPort reports whether port is empty or ':' and digits.
func validPort(port string) bool {
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// Hostname returns Host without its port, and an IPv6 address without its
// brackets.
func (u URL) Hostname() string {
	host := u.Host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && validPort(host[i:]) {
		host = host[:i]
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return host
}

// String writes u back as net/url's String does for a URL without user
// information, query or fragment, whose path takes its default escaping:
// scheme://host/path, host and path escaped again.
func (u URL) String() string {
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Opaque != "" {
		b.WriteString(u.Opaque)
		return b.String()
	}
	if (u.Scheme != "" || u.Host != "") && !(u.OmitHost && u.Host == "") {
		if u.Host != "" || u.Path != "" {
			b.WriteString("//")
		}
		b.WriteString(escape(u.Host, inHost))
	}
	path := u.Path
	if path != "*" {
		path = escape(path, inPath)
	}
	if path != "" && path[0] != '/' && u.Host != "" {
		b.WriteByte('/')
	}
	if b.Len() == 0 {
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ":") {
			b.WriteString("./")
		}
	}
	b.WriteString(path)
	return b.String()
}
