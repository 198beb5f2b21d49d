// Package registry holds the tools the gateway serves: the curated Memos
// tools, compiled at build time from Memos' OpenAPI document by ./generate
// into tools_gen.go, then the hand-written ones of package finder, whose
// definitions ./generate compacts into the same file; and the selection of
// them a deployment serves. Nothing here parses OpenAPI or
// YAML at run time.
package registry

//go:generate go run ./generate -curation ../../spec/curation.json -overlay ../../spec/memos-v0.31.json -o tools_gen.go -routes ../memos/routes_gen.go

import (
	"strings"
	"sync"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
)

// Tool is one MCP tool and the Memos route it calls.
type Tool struct {
	Name        string
	OperationID string
	// Curated is the operation's id in spec/curation.json, the same in
	// every release: what is keyed by the operation (guards,
	// confirmations, tests) is keyed by it, not by a name a release gives.
	Curated  string
	Method   string  // HTTP method of the Memos route
	Path     string  // route template, e.g. /api/v1/memos/{memo}
	Params   []Param // path and query parameters, in template order then name order
	HasBody  bool    // the request body is the "body" argument
	ReadOnly bool    // annotated readOnlyHint: the tool changes nothing
	// Guard names the function of package tools that runs the tool in
	// place of a plain request (spec/curation.json); every write has one.
	Guard string
	// Confirm names the function of package tools that asks the person
	// before the tool runs, where the client can; "" for none.
	Confirm string
	// Handwritten is a tool of package finder, which runs it; it has no
	// route of its own (Method, Path and Params are empty). nil for the
	// generated tools.
	Handwritten *finder.Tool
	// definition is the tool's entry in tools/list, prepared at build time;
	// input and output are where its schemas stand in it.
	definition    string
	input, output span
}

// span is a start and an end offset into a tool's definition.
type span [2]int32

// InputSchema returns the tool's input JSON Schema as served.
func (t *Tool) InputSchema() string { return t.definition[t.input[0]:t.input[1]] }

// OutputSchema returns the tool's output JSON Schema as served.
func (t *Tool) OutputSchema() string { return t.definition[t.output[0]:t.output[1]] }

// Param is a path or query parameter of a tool's route, given as the
// top-level argument of the same name.
type Param struct {
	Name     string
	In       string // "path" or "query"
	Type     string // JSON Schema type: string, integer, number or boolean
	Required bool
}

// Release is one Memos release's tools: the generated ones of its
// OpenAPI document (the pinned one's, or the overlay's for the next) and
// the hand-written ones, which every release shares.
type Release struct {
	Version string // as its document names it, v0.31.0
	tools   []Tool
	catalog func() []Tool
	index   int // its place in Releases
}

// Releases returns the releases the build serves, the pinned one first.
func Releases() []*Release { return built() }

var built = sync.OnceValue(func() []*Release {
	rs := make([]*Release, len(releases))
	for i := range releases {
		r := &releases[i]
		r.catalog = sync.OnceValue(func() []Tool { return join(r.tools) })
		r.index = i
		rs[i] = r
	}
	return rs
})

// Pinned returns the release of the Memos module go.mod pins (or the one
// make release chose), which the build serves an instance it cannot place.
func Pinned() *Release { return built()[0] }

// For returns the release of the build with version's major.minor (a
// patch release changes no route), or nil when the build has none.
func For(version string) *Release {
	want := minor(version)
	for _, r := range built() {
		if want != "" && minor(r.Version) == want {
			return r
		}
	}
	return nil
}

// Index is the release's place in Releases: 0 for the pinned one.
func (r *Release) Index() int { return r.index }

// Marker returns the path of a route that only this release of the build
// serves, its parameters filled with "-", for telling the release of an
// instance that does not name it (a source build says "dev"): Memos
// answers a request there without a token with 401 where the route is,
// and 404 where it is not. "" when the release has no such route.
func (r *Release) Marker() string {
	for _, t := range r.tools {
		if t.Method != "GET" || !Differs(t.Path) || servedElsewhere(r, t.Path) {
			continue
		}
		path := t.Path
		for {
			open, close := strings.IndexByte(path, '{'), strings.IndexByte(path, '}')
			if open < 0 || close < open {
				return path
			}
			path = path[:open] + "-" + path[close+1:]
		}
	}
	return ""
}

// servedElsewhere reports whether a release of the build other than r
// serves route.
func servedElsewhere(r *Release, route string) bool {
	for _, o := range built() {
		for i := range o.tools {
			if o != r && o.tools[i].Path == route {
				return true
			}
		}
	}
	return false
}

// Tools returns every tool of the release in the order tools/list serves
// them.
func (r *Release) Tools() []Tool { return r.catalog() }

// Curated returns the release's tool of the operation the curation calls
// id (whatever the release names it), or nil.
func (r *Release) Curated(id string) *Tool {
	for i := range r.tools {
		if r.tools[i].Curated == id {
			return &r.tools[i]
		}
	}
	return nil
}

// Differs reports whether a route template is not served alike by every
// release of the build (renamed or gone in one): only there may a 404 be
// the release's rather than the object's.
func Differs(route string) bool { return differing()[route] }

var differing = sync.OnceValue(func() map[string]bool {
	count := map[string]int{}
	for _, r := range built() {
		for _, t := range r.tools {
			count[t.Path]++
		}
	}
	d := map[string]bool{}
	for route, n := range count {
		if n < len(built()) {
			d[route] = true
		}
	}
	return d
})

// minor returns a version's major.minor, "0.31" of "v0.31.1"; "" for one
// that names no release ("dev").
func minor(version string) string {
	major, rest, ok := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	m, _, _ := strings.Cut(rest, ".")
	if !ok || major == "" || m == "" || strings.Trim(major+m, "0123456789") != "" {
		return ""
	}
	return major + "." + m
}

// MemosVersion is the Memos release of the pinned registry.
func MemosVersion() string { return Pinned().Version }

// All returns every tool of the pinned release in the order tools/list
// serves them.
func All() []Tool { return Pinned().Tools() }

// join is a release's generated tools and the hand-written ones in name
// order. Each hand-written tool moves into place from the end (a generic
// sort would add 20 KB of wasm for a handful of tools).
func join(tools []Tool) []Tool {
	defs := finder.Tools()
	all := make([]Tool, len(tools), len(tools)+len(defs))
	copy(all, tools)
	for i := range defs {
		all = append(all, handwritten(&defs[i]))
		for i := len(all) - 1; i > 0 && all[i].Name < all[i-1].Name; i-- {
			all[i], all[i-1] = all[i-1], all[i]
		}
	}
	return all
}

// handwritten makes a registry tool of a finder tool, with the definition
// ./generate prepared for it. One it has none for (tools_gen.go older than
// package finder, which TestGeneratedUpToDate catches) would serve an
// empty definition rather than stop the Worker.
func handwritten(d *finder.Tool) Tool {
	t := Tool{Name: d.Name, ReadOnly: d.ReadOnly, Handwritten: d}
	for _, p := range handwrittenDefinitions {
		if p.name == d.Name {
			t.definition, t.input, t.output = p.definition, p.input, p.output
		}
	}
	return t
}

// prepared is a hand-written tool's definition, compacted at build time,
// and where its schemas stand in it.
type prepared struct {
	name, definition string
	input, output    span
}

// ListJSON returns the tools array of tools/list with every tool.
func ListJSON() []byte { return everything().Full().ListJSON() }

var everything = sync.OnceValue(func() *Selection {
	s, _ := Select(false, nil) // selects every tool: cannot fail
	return s
})
