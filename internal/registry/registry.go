// Package registry holds the curated Memos tools, compiled at build time from
// Memos' OpenAPI document by ./generate into tools_gen.go. Nothing here parses
// OpenAPI or YAML at run time.
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
	// InputSchema and OutputSchema are the tool's JSON Schemas as served.
	InputSchema  string
	OutputSchema string
}

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

// ListJSON returns the tools array of tools/list, prepared at build time.
func ListJSON() []byte { return []byte(toolsJSON) }

var byName = sync.OnceValue(func() map[string]*Tool {
	m := make(map[string]*Tool, len(tools))
	for i := range tools {
		m[tools[i].Name] = &tools[i]
	}
	return m
})

// Lookup returns the tool called name.
func Lookup(name string) (*Tool, bool) {
	t, ok := byName()[name]
	return t, ok
}
