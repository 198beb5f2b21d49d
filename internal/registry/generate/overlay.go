package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// overlay is spec/memos-v0.31.json: how a later Memos release's API differs
// from the pinned document's where the curated tools meet it, written as
// the project's own facts. Applied to the pinned document it stands in for
// the later release's, which the module proxy does not serve.
type overlay struct {
	// Release is the version the facts describe (v0.31.0); builds serve
	// it to instances of the same major.minor.
	Release    string                  `json:"release"`
	Operations []operationChange       `json:"operations"`
	Schemas    map[string]schemaChange `json:"schemas"`
	NewSchemas map[string]any          `json:"newSchemas"`
	// Filters names the fields each list operation's filter gains; the
	// curation's descriptions for the release name them.
	Filters map[string][]string `json:"filters"`
}

// operationChange is an operation renamed and moved: every route under
// its old path moves with it.
type operationChange struct {
	OperationID string `json:"operationId"`
	Becomes     string `json:"becomes"`
	Path        string `json:"path"`
}

// schemaChange is what becomes of one component schema.
type schemaChange struct {
	Becomes  string            `json:"becomes"`
	Rename   map[string]string `json:"rename"`
	Drop     []string          `json:"drop"`
	Add      map[string]any    `json:"add"`
	Required []string          `json:"required"`
}

func loadOverlay(path string) (*overlay, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var o overlay
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		Comment string `json:"comment"`
		*overlay
	}{overlay: &o}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if minor(o.Release) == "" {
		return nil, fmt.Errorf("%s: release %q is no version", path, o.Release)
	}
	return &o, nil
}

// apply returns the document spec (the pinned release's) as the overlay's
// release has it. Every fact must meet what it changes: a fact about an
// operation or schema the document lacks is an error, so that a stale
// overlay is caught when the pinned release moves.
func (o *overlay) apply(spec []byte) ([]byte, error) {
	doc, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	raw, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	paths, _ := m["paths"].(map[string]any)
	for _, c := range o.Operations {
		if err := moveOperation(paths, c); err != nil {
			return nil, err
		}
	}
	components, _ := m["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	renamed := map[string]string{}
	for _, name := range sortedKeys(o.Schemas) {
		c := o.Schemas[name]
		s, ok := schemas[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("overlay: the document has no schema %s", name)
		}
		if err := c.applyTo(name, s); err != nil {
			return nil, err
		}
		if c.Becomes != "" {
			delete(schemas, name)
			schemas[c.Becomes] = s
			renamed[componentPrefix+name] = componentPrefix + c.Becomes
		}
	}
	for _, name := range sortedKeys(o.NewSchemas) {
		if _, dup := schemas[name]; dup {
			return nil, fmt.Errorf("overlay: new schema %s is in the document already", name)
		}
		schemas[name] = o.NewSchemas[name]
	}
	rewriteRefs(m, renamed)
	return json.Marshal(m)
}

// moveOperation renames an operation and moves its route, and the routes
// under it, to c.Path.
func moveOperation(paths map[string]any, c operationChange) error {
	for _, path := range sortedKeys(paths) {
		item, _ := paths[path].(map[string]any)
		for _, op := range item {
			if op, ok := op.(map[string]any); ok && op["operationId"] == c.OperationID {
				op["operationId"] = c.Becomes
				for _, p := range sortedKeys(paths) {
					if p == path || strings.HasPrefix(p, path+"/") {
						moved := c.Path + strings.TrimPrefix(p, path)
						paths[moved] = paths[p]
						delete(paths, p)
					}
				}
				return nil
			}
		}
	}
	return fmt.Errorf("overlay: the document has no operation %s", c.OperationID)
}

// applyTo changes schema s (called name) as c says.
func (c schemaChange) applyTo(name string, s map[string]any) error {
	props, _ := s["properties"].(map[string]any)
	for _, from := range sortedKeys(c.Rename) {
		p, ok := props[from]
		if !ok {
			return fmt.Errorf("overlay: schema %s has no member %s to rename", name, from)
		}
		delete(props, from)
		props[c.Rename[from]] = p
	}
	for _, member := range c.Drop {
		if _, ok := props[member]; !ok {
			return fmt.Errorf("overlay: schema %s has no member %s to drop", name, member)
		}
		delete(props, member)
	}
	for _, member := range sortedKeys(c.Add) {
		if _, dup := props[member]; dup {
			return fmt.Errorf("overlay: schema %s has member %s already", name, member)
		}
		props[member] = c.Add[member]
	}
	if c.Required != nil {
		s["required"] = c.Required
	}
	return nil
}

// rewriteRefs points every $ref at a schema's new name, and the overlay's
// own short references (a schema name alone) at the components.
func rewriteRefs(doc any, renamed map[string]string) {
	walkObjects(doc, func(v map[string]any) {
		if ref, ok := v["$ref"].(string); ok {
			if to, ok := renamed[ref]; ok {
				v["$ref"] = to
			} else if !strings.HasPrefix(ref, "#") {
				v["$ref"] = componentPrefix + ref
			}
		}
	})
}

// walkObjects calls f on every object of a decoded JSON value, with a
// stack: its depth is the document's, not bounded by Go's.
func walkObjects(doc any, f func(map[string]any)) {
	stack := []any{doc}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case map[string]any:
			f(v)
			for _, c := range v {
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, v...)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describes checks that the filter descriptions of a release's tools name
// the fields the overlay says its release's filters gain, and that those
// of another release do not: a model is told of has_location only where
// Memos takes it (v0.30 answers a filter naming it with 400).
func (o *overlay) describes(version string, tools []tool) error {
	gains := minor(version) == minor(o.Release)
	for _, id := range sortedKeys(o.Filters) {
		var filter string
		found := false
		for _, t := range tools {
			if t.Curated == id || t.OperationID == id {
				props, _ := t.Input["properties"].(map[string]any)
				f, _ := props["filter"].(map[string]any)
				filter, _ = f["description"].(string)
				found = f != nil
			}
		}
		if !found {
			continue // a release built alone (make release) need not have the tool
		}
		for _, field := range o.Filters[id] {
			switch named := strings.Contains(filter, field); {
			case gains && !named:
				return fmt.Errorf("Memos %s: %s's filter description does not name %s, which the overlay says its filter gains: name it in the curation's release text", version, id, field)
			case !gains && named:
				return fmt.Errorf("Memos %s: %s's filter description names %s, which only the overlay's release (%s) has: move it to the curation's release text", version, id, field, o.Release)
			}
		}
	}
	return nil
}

// minor returns a version's major.minor ("0.31" of "v0.31.2"), "" for one
// that names no release.
func minor(version string) string {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" || strings.Trim(parts[0]+parts[1], "0123456789") != "" {
		return ""
	}
	return parts[0] + "." + parts[1]
}
