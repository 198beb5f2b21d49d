package schema

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// reference compiles a schema with the general validator this package
// stands in for.
func reference(t testing.TB, doc string) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:test", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t testing.TB, doc string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return nil, false
	}
	return v, true
}

// numerals turns the reference decoder's numbers into the ones the gateway
// decodes arguments into.
func numerals(v any) any {
	switch v := v.(type) {
	case json.Number:
		return rawjson.Numeral(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = numerals(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = numerals(e)
		}
		return out
	}
	return v
}

// Every registry input schema compiles, and its verdicts equal the general
// validator's on calls both right and wrong.
func TestRegistrySchemasAgreeWithReference(t *testing.T) {
	calls := []string{
		`{}`, `{"memo":"memos/abc"}`, `{"memo":5}`, `{"memo":"a","bogus":1}`,
		`{"pageSize":10,"filter":"\"w\" in tags","state":"ARCHIVED"}`, `{"pageSize":2.0}`, `{"pageSize":2.5}`, `{"pageSize":"ten"}`, `{"state":"BOGUS"}`,
		`{"body":{"content":"x"}}`, `{"body":{}}`, `{"body":[]}`, `{"body":{"content":1,"visibility":"SECRET"}}`,
		`{"memo":"a","body":{"relations":[{"memo":{"name":"memos/a"},"relatedMemo":{"name":"memos/b"},"type":"REFERENCE"}]}}`,
		`{"memo":"a","body":{"relations":[{"memo":{},"type":"NOPE"}]}}`,
		`{"memo":"a","body":{"attachments":[{"name":"attachments/x"}]}}`,
		`{"memo":"a","body":{"reaction":{"contentId":"memos/a","reactionType":"👍"}}}`,
		`{"memo":"a","body":{"reaction":{"reactionType":1}}}`,
		`{"body":{"filename":"a.txt","type":"text/plain","content":"aGk=","motionMedia":{"family":"APPLE_LIVE_PHOTO"}}}`,
		`{"memo":"a","updateMask":"content","body":{"content":"y","location":{"latitude":1.5,"longitude":"east"}}}`,
		`{"force":true,"memo":"a"}`, `{"force":"yes","memo":"a"}`, `{"memo":null}`,
	}
	for _, tool := range registry.All() {
		ours, err := Compile(tool.InputSchema())
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		ref := reference(t, tool.InputSchema())
		for _, call := range calls {
			v, _ := decode(t, call)
			got, want := ours.Validate(numerals(v)), ref.Validate(v)
			if (got == nil) != (want == nil) {
				t.Errorf("%s %s: ours %v, reference %v", tool.Name, call, got, want)
			}
		}
	}
}

// FuzzAgainstReference feeds arbitrary JSON to both validators, for every
// registry schema; their verdicts must agree.
func FuzzAgainstReference(f *testing.F) {
	for _, seed := range []string{`{"memo":"a"}`, `{"body":{"content":"x","pinned":true}}`, `{"pageSize":1e2}`, `{"state":"NORMAL","showDeleted":false}`, `{"memo":"a","body":{"relations":[]}}`} {
		f.Add([]byte(seed))
	}
	type pair struct {
		ours *Schema
		ref  *jsonschema.Schema
	}
	var schemas []pair
	for _, tool := range registry.All() {
		ours, err := Compile(tool.InputSchema())
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, pair{ours, reference(f, tool.InputSchema())})
	}
	hugeExponent := regexp.MustCompile(`[eE][+-]?0*[0-9]{5}`)
	f.Fuzz(func(t *testing.T, doc []byte) {
		if hugeExponent.Match(doc) {
			return // the reference's exact arithmetic on 10^10000 and beyond takes too long
		}
		v, ok := decode(t, string(doc))
		if !ok {
			return
		}
		for i, s := range schemas {
			if got, want := s.ours.Validate(numerals(v)), s.ref.Validate(v); (got == nil) != (want == nil) {
				t.Fatalf("%s %s: ours %v, reference %v", registry.All()[i].Name, doc, got, want)
			}
		}
	})
}

// FuzzIsIntegral checks the text-based test against exact arithmetic.
func FuzzIsIntegral(f *testing.F) {
	for _, s := range []string{"2", "2.0", "2.5", "1e3", "1.25e1", "125e-1", "100e-2", "-0.0", "0e5", "1E+2", "12345678901234567890.000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n json.Number
		if json.Unmarshal([]byte(s), &n) != nil || len(s) > 40 || strings.ContainsAny(s, "\" \t\n") {
			return
		}
		if _, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok && len(strings.TrimLeft(exp, "+-0")) > 4 {
			return // exact arithmetic on 10^100000 and beyond takes too long to be a test
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return
		}
		if got, want := isIntegral(s), r.IsInt(); got != want {
			t.Fatalf("isIntegral(%q) = %t, want %t", s, got, want)
		}
	})
}

func TestCompileRefusesWhatItCannotCheck(t *testing.T) {
	for doc, want := range map[string]string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`: `keyword "pattern" is not supported`,
		`{"oneOf":[{"type":"string"}]}`:                                         `keyword "oneOf" is not supported`,
		`{"properties":{"a":{"$ref":"#/$defs/Missing"}}}`:                       `names no definition`,
		`{"properties":{"a":{"$ref":"other.json"}}}`:                            `not local to $defs`,
		`{"properties":{"a":true}}`:                                             `a schema must be an object`,
		`[1]`:                                                                   `a schema must be an object`,
	} {
		if _, err := Compile(doc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%s): %v, want %q", doc, err, want)
		}
	}
}

// Messages name the first thing to fix, the way a caller writes arguments.
func TestMessages(t *testing.T) {
	s, err := Compile(`{"type":"object","additionalProperties":false,"required":["memo","body"],
		"properties":{"memo":{"type":"string"},"n":{"type":"integer"},"state":{"type":"string","enum":["A","B"]},
		"body":{"type":"object","minProperties":1,"properties":{"list":{"type":"array","items":{"$ref":"#/$defs/Item"}}}}},
		"$defs":{"Item":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for call, want := range map[string]string{
		`{"body":{"x":1}}`:                               `missing required argument "memo"`,
		`{"memo":"a","body":{"x":1},"zz":1,"aa":2}`:      `unknown argument "aa"`,
		`{"memo":1,"body":{"x":1}}`:                      `argument "memo" must be string`,
		`{"memo":"a","body":{"x":1},"n":2.5}`:            `argument "n" must be integer`,
		`{"memo":"a","body":{"x":1},"state":"C"}`:        `argument "state" must be one of "A", "B"`,
		`{"memo":"a","body":{}}`:                         `argument "body" must have at least 1 field`,
		`{"memo":"a","body":{"list":[{"name":"x"},{}]}}`: `missing required argument "body.list[1].name"`,
		`{"memo":"a","body":{"list":[{"name":3}]}}`:      `argument "body.list[0].name" must be string`,
		`[]`: `arguments must be a JSON object`,
	} {
		v, _ := decode(t, call)
		if err := s.Validate(numerals(v)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", call, err, want)
		}
	}
	v, _ := decode(t, `{"memo":"a","body":{"list":[{"name":"x"}]},"n":1e2}`)
	if err := s.Validate(numerals(v)); err != nil {
		t.Errorf("a valid call: %v", err)
	}
}
