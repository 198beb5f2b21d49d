// Package schema validates tool arguments against the JSON Schema (2020-12)
// subset that the registry's input schemas use: type, properties, required,
// additionalProperties, items, enum, minProperties and local $ref into
// $defs, with description, format and contentEncoding as annotations.
// Compile refuses any other keyword, so no constraint is ever skipped
// silently. It replaces a general validator in the Worker because that one
// compiles every draft's meta-schema when the program starts (about 35 ms of
// every cold start) and adds a third of the wasm; its verdicts are checked
// against that validator in this package's tests.
package schema

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	root *node
}

// node is one compiled schema object.
type node struct {
	types    []string         // allowed JSON types; empty = any
	props    map[string]*node // properties
	required []string
	closed   bool  // additionalProperties: false
	extra    *node // additionalProperties as a schema
	items    *node
	enum     []any // allowed values: string, rawjson.Numeral, bool or nil
	minProps int   // -1 when absent
	ref      *node // the target of $ref, resolved at compile time
}

// annotations are keywords that constrain nothing.
var annotations = []string{"description", "title", "format", "contentEncoding", "$defs", "$schema", "$comment", "examples", "default", "readOnly", "writeOnly", "deprecated"}

// Compile compiles a schema document.
func Compile(doc string) (*Schema, error) {
	if !rawjson.Valid(doc) {
		return nil, errors.New("schema is not valid JSON")
	}
	c := &compiler{root: rawjson.Parse(doc), defs: map[string]*node{}}
	n, err := c.compile(c.root, "#")
	if err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
}

type compiler struct {
	root rawjson.Value
	defs map[string]*node // compiled $defs, by name (filled before their bodies, for cycles)
}

func (c *compiler) compile(s rawjson.Value, at string) (*node, error) {
	if !s.IsObject() {
		return nil, errors.New(at + ": a schema must be an object")
	}
	n := &node{minProps: -1}
	var err error
	s.ForEach(func(k, v rawjson.Value) bool {
		key := k.Str
		switch key {
		case "type":
			if v.Kind == rawjson.String {
				n.types = []string{v.Str}
			} else if v.IsArray() {
				v.ForEach(func(_, t rawjson.Value) bool { n.types = append(n.types, t.Str); return true })
			} else {
				err = errors.New(at + ": type must be a string or an array")
			}
		case "properties":
			n.props = map[string]*node{}
			v.ForEach(func(name, sub rawjson.Value) bool {
				n.props[name.Str], err = c.compile(sub, at+"/properties/"+name.Str)
				return err == nil
			})
		case "required":
			v.ForEach(func(_, name rawjson.Value) bool { n.required = append(n.required, name.Str); return true })
		case "additionalProperties":
			switch {
			case v.Kind == rawjson.False:
				n.closed = true
			case v.Kind == rawjson.True:
			default:
				n.extra, err = c.compile(v, at+"/additionalProperties")
			}
		case "items":
			n.items, err = c.compile(v, at+"/items")
		case "enum":
			n.enum = []any{}
			v.ForEach(func(_, e rawjson.Value) bool {
				switch e.Kind {
				case rawjson.String:
					n.enum = append(n.enum, e.Str)
				case rawjson.Number:
					n.enum = append(n.enum, rawjson.Numeral(e.Raw))
				case rawjson.True, rawjson.False:
					n.enum = append(n.enum, e.Bool())
				case rawjson.Null:
					n.enum = append(n.enum, nil)
				default:
					err = errors.New(at + ": enum values must be scalars")
				}
				return err == nil
			})
		case "minProperties":
			n.minProps = int(v.Int())
		case "$ref":
			n.ref, err = c.resolve(v.Str)
		default:
			if !slices.Contains(annotations, key) {
				err = errors.New(at + ": keyword " + strconv.Quote(key) + " is not supported")
			}
		}
		return err == nil
	})
	return n, err
}

// resolve compiles the $defs entry a local reference names, once.
func (c *compiler) resolve(ref string) (*node, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, errors.New("reference " + strconv.Quote(ref) + " is not local to $defs")
	}
	if n, ok := c.defs[name]; ok {
		return n, nil
	}
	def := c.root.Get("$defs").Get(name)
	if !def.Exists() {
		return nil, errors.New("reference " + strconv.Quote(ref) + " names no definition")
	}
	n := &node{minProps: -1}
	c.defs[name] = n // before compiling the body, so that a cycle ends here
	compiled, err := c.compile(def, ref)
	if err != nil {
		return nil, err
	}
	*n = *compiled
	return n, nil
}
