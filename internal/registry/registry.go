// Package registry holds the tools the gateway serves: the curated Memos
// tools, compiled at build time from Memos' OpenAPI document by ./generate
// into tools_gen.go, then the hand-written ones of package finder, whose
// definitions ./generate compacts into the same file; and the selection of
// them a deployment serves. Nothing here parses OpenAPI or
// YAML at run time.
package registry

//go:generate go run ./generate -curation ../../spec/curation.json -o tools_gen.go

import (
	"sync"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
)

// Tool is one MCP tool and the Memos route it calls.
type Tool struct {
	Name        string
	OperationID string
	Method      string  // HTTP method of the Memos route
	Path        string  // route template, e.g. /api/v1/memos/{memo}
	Params      []Param // path and query parameters, in template order then name order
	HasBody     bool    // the request body is the "body" argument
	ReadOnly    bool    // annotated readOnlyHint: the tool changes nothing
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

// MemosVersion is the Memos release whose OpenAPI document the registry was
// generated from.
func MemosVersion() string { return memosVersion }

// All returns every tool in the order tools/list serves them.
func All() []Tool { return catalog() }

// catalog is the generated tools and the hand-written ones in name order,
// joined once. Each hand-written tool moves into place from the end (a
// generic sort would add 20 KB of wasm for a handful of tools).
var catalog = sync.OnceValue(func() []Tool {
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
})

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
