package config

import (
	"cmp"
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// AllowedHosts reads ALLOWED_HOSTS: comma-separated host names, each
// compared with a request's host without its port. It is the one check of
// the setting, for /healthz (through Load), make dev and the deploy check.
//
// An entry written as a URL, or with a port or a path, is the usual mistake
// (https://mcp.example.com/ for mcp.example.com): it matches no request, so
// every path answered 403, /healthz included, and nothing said why. Such an
// entry is an error that says what to write instead, and the host name in
// it is served meanwhile, so that /healthz at that name can say so. An entry
// that holds no host name at all stays as written: it matches nothing, and
// the guard against DNS rebinding never opens wider than the owner wrote.
func AllowedHosts(raw string) ([]string, error) {
	var hosts []string
	var errs []error
	for _, entry := range list(raw) {
		name, mistake := hostOf(entry)
		host, err := uri.ParseHost(strings.Trim(name, "[]"))
		switch {
		case err != nil:
			hosts = append(hosts, entry)
			errs = append(errs, errors.New("ALLOWED_HOSTS entry "+strconv.Quote(entry)+" is not a host name ("+err.Error()+
				"): write each host name in full, without a wildcard, e.g. mcp.example.com"))
		case mistake != "":
			hosts = append(hosts, host.Name)
			errs = append(errs, errors.New("ALLOWED_HOSTS entry "+strconv.Quote(entry)+" "+mistake+": write the host name alone, "+host.Name))
		default:
			hosts = append(hosts, entry)
		}
	}
	return hosts, errors.Join(errs...)
}

// hostOf returns the host name an ALLOWED_HOSTS entry holds and, when the
// entry holds more than that, what it holds (as "is a URL", "has a port").
func hostOf(entry string) (name, mistake string) {
	if strings.Contains(entry, "://") {
		u, err := uri.Parse(entry)
		if err != nil {
			return entry, ""
		}
		return u.Hostname(), "is a URL"
	}
	name, _, hasPath := strings.Cut(entry, "/")
	if hasPath {
		mistake = "has a path (the Worker answers on every path of its hosts)"
	}
	// A port follows the last colon of a name, or the bracket of an IPv6
	// address; an IPv6 address without brackets has colons of its own.
	if i := strings.LastIndexByte(name, ':'); i >= 0 && (strings.HasPrefix(name, "[") && name[i-1] == ']' || strings.Count(name, ":") == 1) {
		name = name[:i]
		mistake = cmp.Or(mistake, "has a port (a request's port is not compared)")
	}
	return name, mistake
}
