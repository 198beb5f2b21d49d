package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

const componentPrefix = "#/components/schemas/"

// standardFormats are the JSON Schema formats kept in served schemas; the
// document's others (enum, bytes, field-mask, int32, float, double) are
// OpenAPI or generator words that portable validators do not know.
var standardFormats = map[string]bool{"date-time": true, "date": true, "time": true, "email": true, "uri": true, "uuid": true}

// outputDepth is how many levels of nested objects an output schema spells
// out: objects deeper than that keep only their type. Results describe
// themselves; what a client needs from the schema is their shape near the
// top, and every level costs tokens in every conversation.
const outputDepth = 2

// converter turns OpenAPI schemas into self-contained, portable JSON
// Schemas. For tool input, component references become local $defs,
// read-only properties are left out and descriptions kept. For tool output,
// references are expanded in place down to outputDepth and prose is left
// out.
type converter struct {
	components map[string]map[string]any // generic form of every component schema
	input      bool
	defs       map[string]any  // input: converted components, by name
	expanding  map[string]bool // output: components being expanded (cycle guard)
}

func newConverter(components map[string]map[string]any, input bool) *converter {
	return &converter{components: components, input: input, defs: map[string]any{}, expanding: map[string]bool{}}
}

// root converts a top-level schema; a reference there is expanded in place.
func (c *converter) root(s map[string]any) (map[string]any, error) {
	if ref, ok := s["$ref"].(string); ok {
		comp, err := c.component(ref)
		if err != nil {
			return nil, err
		}
		s = comp
	}
	return c.schema(s, 0)
}

func (c *converter) component(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, componentPrefix)
	if !ok {
		return nil, fmt.Errorf("schema reference %q is not a component schema, so it cannot be made self-contained", ref)
	}
	comp, ok := c.components[name]
	if !ok {
		return nil, fmt.Errorf("schema reference %q names no component", ref)
	}
	return comp, nil
}

// ref converts a reference found depth levels below the root.
func (c *converter) ref(ref string, depth int) (map[string]any, error) {
	comp, err := c.component(ref)
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(ref, componentPrefix)
	if !c.input {
		if c.expanding[name] {
			// A cycle: stop here, keeping only the type.
			stub := map[string]any{}
			if t, ok := comp["type"].(string); ok {
				stub["type"] = t
			}
			return stub, nil
		}
		c.expanding[name] = true
		defer delete(c.expanding, name)
		return c.schema(comp, depth)
	}
	// Input: convert the component into $defs once; the placeholder stored
	// first makes cycles terminate.
	if _, done := c.defs[name]; !done {
		c.defs[name] = map[string]any{}
		def, err := c.schema(comp, 0)
		if err != nil {
			return nil, err
		}
		c.defs[name] = def
	}
	return map[string]any{"$ref": "#/$defs/" + name}, nil
}

// schema converts one schema object found depth property levels below the
// root.
func (c *converter) schema(s map[string]any, depth int) (map[string]any, error) {
	if ref, ok := s["$ref"].(string); ok {
		return c.ref(ref, depth)
	}
	// allOf with a single reference only attaches a description to it.
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if member, _ := all[0].(map[string]any); member != nil {
			if ref, ok := member["$ref"].(string); ok {
				out, err := c.ref(ref, depth)
				if err != nil {
					return nil, err
				}
				if d, ok := s["description"].(string); ok && c.input {
					out["description"] = inputText(d)
				}
				return out, nil
			}
		}
	}
	if !c.input && depth >= outputDepth && (s["type"] == "object" || s["properties"] != nil) {
		return map[string]any{"type": "object"}, nil
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch k {
		case "readOnly", "writeOnly", "nullable", "example", "externalDocs", "xml", "deprecated":
			// Annotations that cost tokens and teach nothing; read-only
			// properties are dropped from input instead.
		case "description", "title":
			// Output schemas serve validation; the result itself shows the
			// model what each field holds, so their prose is left out.
			if d, ok := v.(string); ok && c.input {
				out[k] = inputText(d)
			}
		case "enum":
			// A caller never needs to send an enum's *_UNSPECIFIED zero
			// value: leaving the field out means the same. Results show
			// their values, and a release that adds one must not fail a
			// client's check of them: output schemas list none.
			if !c.input {
				break
			}
			values, _ := v.([]any)
			out[k] = slices.DeleteFunc(slices.Clone(values), func(e any) bool {
				str, _ := e.(string)
				return strings.HasSuffix(str, "_UNSPECIFIED")
			})
		case "format":
			// Formats only annotate; in output schemas nothing reads them.
			switch f, _ := v.(string); {
			case !c.input:
			case f == "bytes" || f == "byte":
				out["contentEncoding"] = "base64"
			case standardFormats[f]:
				out[k] = f
			}
		case "additionalProperties":
			switch ap := v.(type) {
			case bool:
				if !ap {
					out[k] = false
				}
			case map[string]any:
				conv, err := c.schema(ap, depth+1)
				if err != nil {
					return nil, err
				}
				out[k] = conv
			}
		case "properties":
			props, _ := v.(map[string]any)
			conv, required, err := c.properties(props, s["required"], depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = conv
			if len(required) > 0 && c.input {
				out["required"] = required
			}
		case "required":
			// Set with properties, which may drop read-only names; output
			// schemas list none: they check a result's shape, and what
			// Memos leaves out of an answer is no fault of it.
		case "items", "not":
			sub, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s must be a schema object", k)
			}
			conv, err := c.schema(sub, depth)
			if err != nil {
				return nil, err
			}
			out[k] = conv
		case "allOf", "anyOf", "oneOf":
			list, _ := v.([]any)
			conv := make([]any, len(list))
			for i, item := range list {
				sub, ok := item.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s members must be schema objects", k)
				}
				var err error
				if conv[i], err = c.schema(sub, depth); err != nil {
					return nil, err
				}
			}
			out[k] = conv
		default:
			out[k] = v
		}
	}
	if _, ok := out["properties"]; ok && out["type"] == nil {
		out["type"] = "object"
	}
	if req, ok := s["required"].([]any); ok && out["properties"] == nil && len(req) > 0 && c.input {
		out["required"] = req
	}
	return out, nil
}

// properties converts an object's properties, leaving out read-only ones in
// input schemas, and returns the matching required list.
func (c *converter) properties(props map[string]any, required any, depth int) (map[string]any, []any, error) {
	out := make(map[string]any, len(props))
	for name, v := range props {
		p, ok := v.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("property %q must be a schema object", name)
		}
		if c.input && p["readOnly"] == true {
			continue
		}
		conv, err := c.schema(p, depth)
		if err != nil {
			return nil, nil, fmt.Errorf("property %q: %w", name, err)
		}
		out[name] = conv
	}
	var req []any
	list, _ := required.([]any)
	for _, r := range list {
		if name, _ := r.(string); out[name] != nil {
			req = append(req, r)
		}
	}
	return out, req, nil
}

// withDefs attaches the collected $defs to a root schema.
func (c *converter) withDefs(s map[string]any) map[string]any {
	if len(c.defs) > 0 {
		s["$defs"] = c.defs
	}
	return s
}

// cleanText undoes the generator's habit of indenting continuation lines by
// one space, and trims the ends.
func cleanText(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		if i > 0 {
			lines[i] = strings.TrimPrefix(l, " ")
		}
	}
	return strings.Join(lines, "\n")
}

// fieldLabels are the words protobuf comments start field descriptions with;
// the schema's required list already says what they say.
var fieldLabels = []string{"Optional. ", "Required. ", "Input only. ", "Output only. "}

// inputText is a description as an input schema serves it.
func inputText(s string) string {
	s = cleanText(s)
	for _, label := range fieldLabels {
		s = strings.TrimPrefix(s, label)
	}
	return s
}

// toGeneric turns a typed value (a kin-openapi schema) into its generic JSON
// form, where references appear as {"$ref": …}.
func toGeneric(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// keepDefProperties keeps only the listed properties of the named $defs,
// and of their required lists the names left.
func keepDefProperties(defs map[string]any, keep map[string][]string) error {
	for name, kept := range keep {
		def, ok := defs[name].(map[string]any)
		if !ok {
			return fmt.Errorf("curation keeps properties of $defs %q, which the input does not have", name)
		}
		props, _ := def["properties"].(map[string]any)
		for _, p := range kept {
			if _, ok := props[p]; !ok {
				return fmt.Errorf("curation keeps property %q of $defs %q, which it does not have", p, name)
			}
		}
		for p := range props {
			if !slices.Contains(kept, p) {
				delete(props, p)
			}
		}
		if req, ok := def["required"].([]any); ok {
			req = slices.DeleteFunc(slices.Clone(req), func(r any) bool { return props[r.(string)] == nil })
			if len(req) > 0 {
				def["required"] = req
			} else {
				delete(def, "required")
			}
		}
	}
	return nil
}

// pruneDefs drops the $defs of a root schema that nothing outside them
// refers to, directly or through other $defs: those of fields the
// curation left out.
func pruneDefs(root map[string]any) {
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		return
	}
	used := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/$defs/")
				if !used[name] {
					used[name] = true
					visit(defs[name])
				}
			}
			for k, child := range v {
				if k != "$defs" {
					visit(child)
				}
			}
		case []any:
			for _, child := range v {
				visit(child)
			}
		}
	}
	visit(root)
	for name := range defs {
		if !used[name] {
			delete(defs, name)
		}
	}
	if len(defs) == 0 {
		delete(root, "$defs")
	}
}
