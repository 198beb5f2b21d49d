package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// checkOverlay builds the tools from a real document of the overlay's
// release and from the overlay, and fails naming every difference the
// overlay does not state: a route, a parameter, a schema's members or
// types. Descriptions are left out of the comparison: the overlay's tools
// carry the pinned document's, and Memos' wording is no difference a
// tool's caller meets.
func checkOverlay(real, stated document, cur *curation) error {
	want, err := toolsOf(real, cur)
	if err != nil {
		return err
	}
	got, err := toolsOf(stated, cur)
	if err != nil {
		return fmt.Errorf("the overlay: %w", err)
	}
	var diffs []string
	byName := map[string]tool{}
	for _, t := range got {
		byName[t.Name] = t
	}
	for _, w := range want {
		g, ok := byName[w.Name]
		if !ok {
			diffs = append(diffs, "tool "+w.Name+" ("+w.OperationID+") is not in the overlay's release")
			continue
		}
		delete(byName, w.Name)
		diffs = append(diffs, compareTools(w, g)...)
	}
	for _, name := range sortedKeys(byName) {
		diffs = append(diffs, "tool "+name+" is in the overlay's release, not in the document")
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the overlay (spec/memos-v0.31.json) does not state %d differences of the %s document; add them:\n\t%s",
			len(diffs), real.version, strings.Join(diffs, "\n\t"))
	}
	return nil
}

// compareTools lists how the document's tool w and the overlay's g differ.
func compareTools(w, g tool) []string {
	var diffs []string
	at := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			diffs = append(diffs, fmt.Sprintf("%s %s: the document has %s, the overlay %s", w.Name, what, show(a), show(b)))
		}
	}
	at("operation", w.OperationID, g.OperationID)
	at("route", w.Method+" "+w.Path, g.Method+" "+g.Path)
	at("parameters", w.Params, g.Params)
	at("body", w.HasBody, g.HasBody)
	diffs = append(diffs, compareSchemas(w.Name+" input", bare(w.Input), bare(g.Input))...)
	diffs = append(diffs, compareSchemas(w.Name+" output", bare(w.Output), bare(g.Output))...)
	return diffs
}

// compareSchemas names each member path where a and b differ.
func compareSchemas(path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if reflect.DeepEqual(a, b) {
			return nil
		}
		return []string{fmt.Sprintf("%s: the document has %s, the overlay %s", path, show(a), show(b))}
	}
	var diffs []string
	keys := sortedKeys(am)
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		av, inA := am[k]
		bv, inB := bm[k]
		switch {
		case !inA:
			diffs = append(diffs, path+"."+k+": only in the overlay")
		case !inB:
			diffs = append(diffs, path+"."+k+": not in the overlay")
		default:
			diffs = append(diffs, compareSchemas(path+"."+k, av, bv)...)
		}
	}
	return diffs
}

// bare is a schema without its descriptions, through JSON: the form the
// comparison reads.
func bare(s map[string]any) any {
	b, _ := json.Marshal(s)
	var v any
	_ = json.Unmarshal(b, &v)
	walkObjects(v, func(x map[string]any) {
		if _, isSchema := x["type"]; isSchema {
			delete(x, "description")
		} else if _, isRef := x["$ref"]; isRef {
			delete(x, "description")
		}
	})
	return v
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
