// Package registry holds the curated Memos tools, compiled at build time from
// Memos' OpenAPI document by ./generate into tools_gen.go, and the selection
// of them a deployment serves. Nothing here parses OpenAPI or YAML at run
// time.
package registry

//go:generate go run ./generate -curation ../../spec/curation.json -o tools_gen.go

import "sync"

// Tool is one MCP tool and the Memos route it calls.
type Tool struct {
	Name        string
	OperationID string
	Method      string  // HTTP method of the Memos route
	Path        string  // route template, e.g. /api/v1/memos/{memo}
	Params      []Param // path and query parameters, in template order then name order
	HasBody     bool    // the request body is the "body" argument
	ReadOnly    bool    // annotated readOnlyHint: the tool changes nothing
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
func All() []Tool { return tools }

// ListJSON returns the tools array of tools/list with every tool.
func ListJSON() []byte { return everything().Served(false).ListJSON() }

var everything = sync.OnceValue(func() *Selection {
	s, _ := Select(false, nil) // selects every tool: cannot fail
	return s
})

// Lookup returns the tool called name.
func Lookup(name string) (*Tool, bool) { return everything().Served(false).Lookup(name) }
