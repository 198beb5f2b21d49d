package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// curation is spec/curation.json: which operations become tools and how each
// differs from a mechanical translation. One curation serves every Memos
// release the project builds for.
type curation struct {
	// Params gives better descriptions for parameters, by name.
	Params     map[string]string `json:"params"`
	Operations []override        `json:"operations"`
	// Routes are the routes hand-written code calls: a name (Memo, for
	// memos.RouteMemo) and the operations it calls there, which every
	// release's document must hold at that one route.
	Routes map[string][]string `json:"routes"`
}

// override is one curated operation.
type override struct {
	OperationID string `json:"operationId"`
	// Aliases are the same operation's ids in other Memos releases, its
	// predecessors or successors. A document must hold exactly one of
	// OperationID and Aliases; the tool is named after the one it holds.
	Aliases []string `json:"aliases"`
	// Guard names the function of package tools that runs the tool in
	// place of a plain request; every write has one (the write path), and
	// package tools' tests fail for a name it has no function for.
	Guard string `json:"guard"`
	// Confirm names the function of package tools that asks the person
	// before the tool runs, where the client can ask (elicitation).
	Confirm string `json:"confirm"`
	// ParamsOmit names query parameters the tool does not take: ones that
	// promise what Memos does not do.
	ParamsOmit []string `json:"paramsOmit"`
	// BodyRequired replaces the body's required list when set; [] clears it.
	BodyRequired *[]string `json:"bodyRequired"`
	// BodyOmit names body properties the tool does not take: bound from
	// the path instead, or changed through another tool.
	BodyOmit          []string `json:"bodyOmit"`
	BodyMinProperties int      `json:"bodyMinProperties"`
	Destructive       *bool    `json:"destructive"`
	Idempotent        *bool    `json:"idempotent"`
	// Description is the tool's description, written for a model; it
	// replaces the operation's own, which is Memos' doc comment. Required.
	Description string `json:"description"`
	// Notes are appended to the description.
	Notes notes `json:"notes"`
	// Params replaces the descriptions of the operation's parameters, by
	// name, before the curation-wide ones.
	Params map[string]string `json:"params"`
	// Arguments are the gateway's own arguments of the tool, beside the
	// operation's (JSON Schemas by name): the gateway reads them and never
	// sends them to Memos.
	Arguments map[string]any `json:"arguments"`
	// Results are the members the gateway adds to the operation's answer
	// (JSON Schemas by name), which the output schema lists.
	Results map[string]any `json:"results"`
	// DefRequired replaces the required list of schemas of the tool's
	// input $defs, by name: for a tool that fills in the rest itself.
	DefRequired map[string][]string `json:"defRequired"`
	// DefKeep keeps only the listed properties of schemas of the tool's
	// input $defs, by name (their required lists keep what is left): the
	// fields a model sends there. $defs no longer referenced are dropped.
	DefKeep map[string][]string `json:"defKeep"`
	// Release replaces the description and parameter descriptions in
	// the tools of one release, by major.minor ("0.31"): where what the
	// tool does or its filter's idioms differ between releases.
	Release map[string]releaseText `json:"release"`
}

// releaseText is what one release's tool says in place of the curation's.
type releaseText struct {
	Description string            `json:"description"`
	Params      map[string]string `json:"params"`
}

// in returns the operation's curation as the tools of version have it.
func (o override) in(version string) override {
	r, ok := o.Release[minor(version)]
	if !ok {
		return o
	}
	if r.Description != "" {
		o.Description = r.Description
	}
	params := make(map[string]string, len(o.Params)+len(r.Params))
	for k, v := range o.Params {
		params[k] = v
	}
	for k, v := range r.Params {
		params[k] = v
	}
	o.Params = params
	return o
}

// note is a usage note. With When set, it is kept only when the tool's
// input schema has that argument: a dotted path such as
// body.reaction.contentId, so that a note never names a field the release
// does not have.
type note struct {
	Text string `json:"text"`
	When string `json:"when"`
}

// notes are written as one string (an unconditional note) or as a list of
// notes.
type notes []note

func (n *notes) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		var text string
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
		*n = notes{{Text: text}}
		return nil
	}
	var list []note
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("notes must be a string or a list of {text, when}: %w", err)
	}
	*n = list
	return nil
}

func loadCuration(path string) (*curation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c curation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Operations) == 0 {
		return nil, fmt.Errorf("%s: no operations", path)
	}
	return &c, nil
}

// overrides reports whether o tailors its operation beyond selecting it.
func (o override) overrides() bool {
	return o.BodyRequired != nil || o.BodyOmit != nil || o.BodyMinProperties > 0 || o.Destructive != nil || o.Idempotent != nil || len(o.Notes) > 0 ||
		len(o.Arguments) > 0 || len(o.Results) > 0 || len(o.DefRequired) > 0 || len(o.DefKeep) > 0 || len(o.Params) > 0
}

// names are every id the operation is known by, its own first.
func (o override) names() []string { return append([]string{o.OperationID}, o.Aliases...) }

// label names the operation in an error: its id and any aliases.
func (o override) label() string {
	s := fmt.Sprintf("%q", o.OperationID)
	if len(o.Aliases) > 0 {
		quoted := make([]string, len(o.Aliases))
		for i, a := range o.Aliases {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		s += " (also known as " + strings.Join(quoted, ", ") + ")"
	}
	return s
}

// text is the notes that apply to a tool with the given input schema.
func (n notes) text(input map[string]any) string {
	var kept []string
	for _, nt := range n {
		if nt.When == "" || hasArgument(input, nt.When) {
			kept = append(kept, nt.Text)
		}
	}
	return strings.Join(kept, " ")
}

// hasArgument reports whether an input schema has the argument at a dotted
// path, following local $defs references.
func hasArgument(input map[string]any, path string) bool {
	defs, _ := input["$defs"].(map[string]any)
	s := input
	for name := range strings.SplitSeq(path, ".") {
		for range 8 { // resolve a chain of references
			ref, ok := s["$ref"].(string)
			if !ok {
				break
			}
			s, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		props, _ := s["properties"].(map[string]any)
		if s, _ = props[name].(map[string]any); s == nil {
			return false
		}
	}
	return true
}
