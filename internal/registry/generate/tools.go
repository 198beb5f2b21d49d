package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// tool is one generated tool before it is written out.
type tool struct {
	Name, Title, Description  string
	OperationID, Method, Path string
	Curated                   string // the curation's id of the operation, the same in every release
	Params                    []param
	HasBody                   bool
	Input, Output             map[string]any
	ReadOnly, Destructive     bool
	Idempotent                bool
	Guard, Confirm            string
}

type param struct {
	Name, In, Type string
	Required       bool
}

// okSchema is the output schema of operations that answer no JSON body.
func okSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
}

// operation is a document operation with its route.
type operation struct {
	method, path string
	op           *openapi3.Operation
}

// operations are the document's operations by id.
func operations(doc *openapi3.T) (map[string]operation, error) {
	ops := map[string]operation{}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if op.OperationID == "" {
				continue
			}
			if prev, dup := ops[op.OperationID]; dup {
				return nil, fmt.Errorf("operationId %q is used by both %s %s and %s %s", op.OperationID, prev.method, prev.path, method, path)
			}
			ops[op.OperationID] = operation{method: strings.ToUpper(method), path: path, op: op}
		}
	}
	return ops, nil
}

// buildTools translates every curated operation, sorted by tool name.
func buildTools(doc *openapi3.T, cur *curation, version string) ([]tool, error) {
	ops, err := operations(doc)
	if err != nil {
		return nil, err
	}
	components := map[string]map[string]any{}
	for name, ref := range doc.Components.Schemas {
		g, err := toGeneric(ref.Value)
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", name, err)
		}
		components[name] = g
	}
	var tools []tool
	names := map[string]string{}
	for _, o := range cur.Operations {
		var found []string
		for _, id := range o.names() {
			if _, ok := ops[id]; ok {
				found = append(found, id)
			}
		}
		switch {
		case len(found) == 0 && o.overrides():
			return nil, fmt.Errorf("stale override: the curation tailors operation %s, which the OpenAPI document does not have", o.label())
		case len(found) == 0:
			return nil, fmt.Errorf("curated operation %s is not in the OpenAPI document", o.label())
		case len(found) > 1:
			return nil, fmt.Errorf("curated operation %s: the OpenAPI document has %q and %q, so it is unclear which one to serve", o.label(), found[0], found[1])
		}
		id := found[0]
		t, err := buildTool(id, ops[id], o.in(version), cur, components)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		if prev, dup := names[t.Name]; dup {
			return nil, fmt.Errorf("operations %q and %q both become tool %q", prev, id, t.Name)
		}
		names[t.Name] = id
		tools = append(tools, t)
	}
	slices.SortFunc(tools, func(a, b tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}

// buildTool translates the operation the document calls id. Its name
// follows the document, as Memos' own server names its tools.
func buildTool(id string, o operation, ov override, cur *curation, components map[string]map[string]any) (tool, error) {
	t := tool{
		Name:        toolName(id),
		OperationID: id,
		Curated:     ov.OperationID,
		Method:      o.method,
		Path:        o.path,
		Description: ov.Description,
	}
	if t.Description == "" {
		return t, fmt.Errorf("the curation gives no description; write one for a model (Memos' own text is a doc comment)")
	}
	if len(t.Name) > 64 || !validName.MatchString(t.Name) {
		return t, fmt.Errorf("tool name %q is not 1–64 characters of [a-z0-9_]", t.Name)
	}
	t.Title = toolTitle(id)
	t.ReadOnly = o.method == "GET"
	t.Confirm = ov.Confirm
	if t.Guard = ov.Guard; t.Guard == "" && !t.ReadOnly {
		return t, fmt.Errorf("the curation gives the write no guard: every write runs through one of package tools (the write path)")
	}
	t.Destructive = o.method == "DELETE"
	t.Idempotent = o.method == "GET" || o.method == "DELETE" || o.method == "PUT"
	if ov.Destructive != nil {
		t.Destructive = *ov.Destructive
	}
	if ov.Idempotent != nil {
		t.Idempotent = *ov.Idempotent
	}

	in := newConverter(components, true)
	props := map[string]any{}
	var required []any
	var omitted []string // query parameters the curation leaves out
	for _, where := range []string{"path", "query"} {
		for _, pr := range orderedParams(o, where) {
			p := pr.Value
			if slices.Contains(ov.ParamsOmit, p.Name) && where == "query" {
				omitted = append(omitted, p.Name)
				continue
			}
			s, err := toGeneric(p.Schema.Value)
			if err != nil {
				return t, err
			}
			conv, err := in.schema(s, 1)
			if err != nil {
				return t, fmt.Errorf("parameter %q: %w", p.Name, err)
			}
			typ, _ := conv["type"].(string)
			if !slices.Contains([]string{"string", "integer", "number", "boolean"}, typ) {
				return t, fmt.Errorf("parameter %q has type %q; only primitive parameters are supported", p.Name, typ)
			}
			if d, ok := ov.Params[p.Name]; ok {
				conv["description"] = d
			} else if d, ok := cur.Params[p.Name]; ok {
				conv["description"] = d
			} else if p.Description != "" {
				conv["description"] = inputText(p.Description)
			}
			props[p.Name] = conv
			if p.Required || where == "path" {
				required = append(required, p.Name)
			}
			t.Params = append(t.Params, param{Name: p.Name, In: where, Type: typ, Required: p.Required || where == "path"})
		}
	}
	if rb := o.op.RequestBody; rb != nil && rb.Value != nil {
		mt := rb.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil {
			return t, fmt.Errorf("request body has no application/json schema")
		}
		s, err := toGeneric(mt.Schema)
		if err != nil {
			return t, err
		}
		body, err := in.root(s)
		if err != nil {
			return t, fmt.Errorf("request body: %w", err)
		}
		if err := applyBodyOverride(body, ov); err != nil {
			return t, err
		}
		// Closed: only the fields the tool declares reach Memos, which
		// takes unknown ones silently, and builds an update's mask from
		// the body's fields.
		body["additionalProperties"] = false
		props["body"] = body
		t.HasBody = true
		if rb.Value.Required {
			required = append(required, "body")
		}
	} else if ov.BodyRequired != nil || ov.BodyOmit != nil || ov.BodyMinProperties > 0 {
		return t, fmt.Errorf("curation overrides the body of an operation without one")
	}
	for name, s := range ov.Arguments {
		if _, ok := props[name]; ok {
			return t, fmt.Errorf("curation adds argument %q, which the operation has", name)
		}
		props[name] = s
	}
	t.Input = map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		t.Input["required"] = required
	}
	in.withDefs(t.Input)
	for name, required := range ov.DefRequired {
		def, ok := in.defs[name].(map[string]any)
		if !ok {
			return t, fmt.Errorf("curation sets the required list of $defs %q, which the input does not have", name)
		}
		list := make([]any, len(required))
		for i, r := range required {
			list[i] = r
		}
		def["required"] = list
	}
	if err := keepDefProperties(in.defs, ov.DefKeep); err != nil {
		return t, err
	}
	for _, def := range in.defs {
		if d, ok := def.(map[string]any); ok && d["properties"] != nil {
			d["additionalProperties"] = false // closed, as the body is
		}
	}
	pruneDefs(t.Input)
	for _, name := range ov.ParamsOmit {
		if !slices.Contains(omitted, name) {
			return t, fmt.Errorf("curation omits parameter %q, which the operation does not have as a query parameter", name)
		}
	}
	for name := range ov.Params {
		if !slices.ContainsFunc(t.Params, func(p param) bool { return p.Name == name }) {
			return t, fmt.Errorf("curation describes parameter %q, which the operation does not have", name)
		}
	}
	// Notes may depend on the arguments this release's document has.
	if notes := ov.Notes.text(t.Input); notes != "" {
		t.Description = strings.TrimSpace(t.Description + "\n\n" + notes)
	}

	out, err := outputSchema(o, components)
	if err != nil {
		return t, err
	}
	if len(ov.Results) > 0 {
		results, _ := out["properties"].(map[string]any)
		if results == nil {
			results = map[string]any{}
			out["properties"] = results
		}
		for name, s := range ov.Results {
			if _, ok := results[name]; ok {
				return t, fmt.Errorf("curation adds result member %q, which the operation's answer has", name)
			}
			results[name] = s
		}
	}
	t.Output = out
	return t, nil
}

// orderedParams returns the operation's parameters of one kind: path
// parameters in template order, query parameters in document order.
func orderedParams(o operation, where string) openapi3.Parameters {
	var ps openapi3.Parameters
	for _, p := range o.op.Parameters {
		if p.Value != nil && p.Value.In == where {
			ps = append(ps, p)
		}
	}
	if where == "path" {
		slices.SortStableFunc(ps, func(a, b *openapi3.ParameterRef) int {
			return strings.Index(o.path, "{"+a.Value.Name+"}") - strings.Index(o.path, "{"+b.Value.Name+"}")
		})
	}
	return ps
}

func applyBodyOverride(body map[string]any, ov override) error {
	props, _ := body["properties"].(map[string]any)
	for _, name := range ov.BodyOmit {
		if _, ok := props[name]; !ok {
			return fmt.Errorf("curation omits body property %q, which the body does not have", name)
		}
		delete(props, name)
	}
	req, _ := body["required"].([]any)
	if ov.BodyRequired != nil {
		req = nil
		for _, name := range *ov.BodyRequired {
			if _, ok := props[name]; !ok {
				return fmt.Errorf("curation requires body property %q, which the body does not have", name)
			}
			req = append(req, name)
		}
	}
	req = slices.DeleteFunc(req, func(r any) bool { return slices.Contains(ov.BodyOmit, r.(string)) })
	if len(req) > 0 {
		body["required"] = req
	} else {
		delete(body, "required")
	}
	if ov.BodyMinProperties > 0 {
		body["minProperties"] = ov.BodyMinProperties
	}
	return nil
}

// outputSchema is the operation's 200 JSON schema, object-rooted, or okSchema.
func outputSchema(o operation, components map[string]map[string]any) (map[string]any, error) {
	resp := o.op.Responses.Status(200)
	if resp == nil || resp.Value == nil {
		return okSchema(), nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return okSchema(), nil
	}
	s, err := toGeneric(mt.Schema)
	if err != nil {
		return nil, err
	}
	c := newConverter(components, false)
	out, err := c.root(s)
	if err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	if out["type"] != "object" {
		return nil, fmt.Errorf("response schema is not an object, so it cannot be an outputSchema")
	}
	return c.withDefs(out), nil
}

var (
	validName = regexp.MustCompile(`^[a-z0-9_]+$`)
	camelEdge = regexp.MustCompile(`([a-z0-9])([A-Z])`)
)

// toolName maps Service_Method to service_method in snake case, without the
// Service suffix: MemoService_ListMemos → memo_list_memos.
func toolName(operationID string) string {
	service, method, ok := strings.Cut(operationID, "_")
	if !ok {
		return snake(operationID)
	}
	return snake(strings.TrimSuffix(service, "Service")) + "_" + snake(method)
}

func snake(s string) string { return strings.ToLower(camelEdge.ReplaceAllString(s, "${1}_${2}")) }

// toolTitle is a tool's title for people: its operation's method as a
// sentence, without the service the name starts with (MemoService_
// CreateMemo → "Create memo", AuthService_GetCurrentUser → "Get current
// user").
func toolTitle(operationID string) string {
	_, method, ok := strings.Cut(operationID, "_")
	if !ok {
		method = operationID
	}
	words := strings.ReplaceAll(snake(method), "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}
