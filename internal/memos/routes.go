package memos

import (
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// The routes hand-written code calls come from the releases' documents
// (routes_gen.go, written by internal/registry/generate from
// spec/curation.json's routes), never from a literal: a release that
// moves one fails the generation instead of a call at run time.

// Path fills route's placeholders, in order, with ids, each escaped as one
// path segment: Path(RouteMemoComments, "abc") is
// /api/v1/memos/abc/comments. A placeholder left without an id stays
// as it is, which Memos answers with 404.
func Path(route string, ids ...string) string {
	var b strings.Builder
	b.Grow(len(route) + 16)
	for _, id := range ids {
		open := strings.IndexByte(route, '{')
		end := strings.IndexByte(route, '}')
		if open < 0 || end < open {
			break
		}
		b.WriteString(route[:open])
		b.WriteString(uri.PathEscape(id))
		route = route[end+1:]
	}
	b.WriteString(route)
	return b.String()
}

// NamePath returns the path of the object called name (a resource name,
// users/alice/personalAccessTokens/7) at route, each of whose
// placeholders stands for one segment of the name; false when the name
// does not fit the route or a segment climbs (..).
func NamePath(route, name string) (string, bool) {
	want := strings.Split(strings.TrimPrefix(route, APIRoot), "/")
	got := strings.Split(name, "/")
	if len(want) != len(got) {
		return "", false
	}
	var ids []string
	for i, w := range want {
		switch {
		case strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}"):
			if got[i] == "" || got[i] == "." || got[i] == ".." {
				return "", false // a segment that names no object
			}
			ids = append(ids, got[i])
		case w != got[i]:
			return "", false
		}
	}
	return Path(route, ids...), true
}
