package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

var seeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `1E2`, `true`, `false`, `null`, ` {"a" : [1, 2.5, "x"] , "b":{"c":null}} `,
	`{"a":1,"a":2}`, `{"\u0061":1}`, `{"a\"b":"c\\d\/e\bf\fg\nh\ri\tj\u00e9\ud83d\ude00\ud800x\udc00"}`,
	`[[[[[[]]]]]]`, `{"a":{"b":{"c":[{"d":"e"}]}}}`, `"\u2028<&>"`,
	// invalid
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `tru`, `nul`, `"\x"`,
	`"\u12"`, "\"a\x01\"", `[1 2]`, `{"a":1}{`, `"abc`, `[`, `{"a":`, `1 2`, `[}`, `{]`, `{"a":1]`, `NaN`, `1.5e+`,
}

// Valid agrees with encoding/json's.
func TestValid(t *testing.T) {
	for _, s := range seeds {
		if got, want := Valid(s), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
	deep := strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20)
	if !Valid(deep) || Valid(deep[1:]) {
		t.Error("Valid on deep nesting")
	}
	// Long strings are checked eight bytes at a time: a byte that ends the
	// string or needs a check is found at every offset, and bytes either
	// side of the checked ranges pass.
	for _, b := range []string{"\x00", "\x1f", `"`, `\`, `\n`, `\u00e9`, `\x`, " ", "\x7f", "\x80", "é", "\xff"} {
		for n := range 20 {
			s := `"` + strings.Repeat("a", n) + b + strings.Repeat("z", 19-n) + `"`
			if got, want := Valid(s), json.Valid([]byte(s)); got != want {
				t.Errorf("Valid(%q) = %v, want %v", s, got, want)
			}
			if got, want := ValidBytes([]byte(s)), json.Valid([]byte(s)); got != want {
				t.Errorf("ValidBytes(%q) = %v, want %v", s, got, want)
			}
		}
	}
}

// decode turns a Value into the Go value encoding/json would make of it,
// keeping the first of repeated members, as Get does.
func decode(v Value) any {
	switch v.Kind {
	case Null:
		return nil
	case False, True:
		return v.Bool()
	case Number:
		return json.Number(v.Raw)
	case String:
		return v.Str
	case Array:
		a := []any{}
		v.ForEach(func(_, e Value) bool { a = append(a, decode(e)); return true })
		return a
	}
	m := map[string]any{}
	v.ForEach(func(k, e Value) bool {
		if _, seen := m[k.Str]; !seen {
			m[k.Str] = decode(e)
		}
		return true
	})
	return m
}

// reference decodes s with encoding/json, token by token so that it keeps
// the first of repeated members, as rawjson does (Unmarshal keeps the last).
func reference(t *testing.T, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var walk func() any
	walk = func() any {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("reference decoder on %q: %v", s, err)
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '[' {
				a := []any{}
				for d.More() {
					a = append(a, walk())
				}
				d.Token()
				return a
			}
			m := map[string]any{}
			for d.More() {
				k, _ := d.Token()
				v := walk()
				if _, seen := m[k.(string)]; !seen {
					m[k.(string)] = v
				}
			}
			d.Token()
			return m
		}
		return tok
	}
	return walk()
}

func check(t *testing.T, s string) {
	if !json.Valid([]byte(s)) {
		return
	}
	v := Parse(s)
	if got, want := v.Raw, strings.Trim(s, " \t\r\n"); got != want {
		t.Errorf("Parse(%q).Raw = %q, want %q", s, got, want)
	}
	if !utf8.ValidString(s) {
		return // encoding/json writes U+FFFD where rawjson keeps the bytes
	}
	if diff := cmp.Diff(reference(t, s), decode(v)); diff != "" {
		t.Errorf("Parse(%q) (-encoding/json +rawjson):\n%s", s, diff)
	}
	if got, want := v.String(), gjson.Parse(s).String(); got != want && !v.IsObject() && !v.IsArray() {
		t.Errorf("Parse(%q).String() = %q, gjson's %q", s, got, want)
	}
	// Member look-ups agree with gjson's, the reader the gateway used before.
	v.ForEach(func(k, e Value) bool {
		if v.IsObject() {
			g := gjson.Get(s, gjson.Escape(k.Str))
			if got := v.Get(k.Str); got.Raw != g.Raw || got.Str != g.Str {
				t.Errorf("Get(%q) on %q = %q, gjson %q", k.Str, s, got.Raw, g.Raw)
			}
			var want, got []string
			v.Get(k.Str).ForEach(func(_, e Value) bool { want = append(want, e.Raw); return true })
			if !v.Get(k.Str).IsArray() {
				want = nil
			}
			v.ElementsOf(k.Str, func(e Value) bool { got = append(got, e.Raw); return true })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ElementsOf(%q) on %q (-Get(key).ForEach +ElementsOf):\n%s", k.Str, s, diff)
			}
		}
		return true
	})
}

// ElementsOf walks the array of a member as Get and ForEach would, stops
// when told, and finds nothing where the member is no array.
func TestElementsOf(t *testing.T) {
	list := Parse(` {"n":1, "memos" : [ {"a":1} , 2, "x" ,[]], "memos":[9], "o":{}} `)
	var got []string
	list.ElementsOf("memos", func(e Value) bool { got = append(got, e.Raw); return true })
	if diff := cmp.Diff([]string{`{"a":1}`, "2", `"x"`, "[]"}, got); diff != "" {
		t.Errorf("ElementsOf (-want +got):\n%s", diff)
	}
	got = nil
	list.ElementsOf("memos", func(e Value) bool { got = append(got, e.Raw); return len(got) < 2 })
	if len(got) != 2 {
		t.Errorf("ElementsOf went on after false: %q", got)
	}
	for _, key := range []string{"n", "o", "none"} {
		list.ElementsOf(key, func(e Value) bool { t.Errorf("ElementsOf(%q) gave %q", key, e.Raw); return true })
	}
	Parse(`[1,2]`).ElementsOf("memos", func(e Value) bool { t.Errorf("an array's ElementsOf gave %q", e.Raw); return true })
}

func TestParse(t *testing.T) {
	for _, s := range seeds {
		check(t, s)
	}
}

func TestGet(t *testing.T) {
	doc := Parse(`{"a":1,"a":2,"b\"":{"c":"d"},"\u0065":"e","x\\\"":3}`)
	for _, tc := range []struct{ key, want string }{
		{"a", "1"}, {`b"`, `{"c":"d"}`}, {"e", `"e"`}, {`x\"`, "3"}, {`x\\\"`, ""}, {"b", ""}, {"c", ""},
	} {
		if got := doc.Get(tc.key).Raw; got != tc.want {
			t.Errorf("Get(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	if Parse(`[1]`).Get("0").Exists() || Parse(`"a"`).Get("a").Exists() {
		t.Error("Get on a value that is not an object found something")
	}
}

func TestArrayAndForEach(t *testing.T) {
	raws := func(vs []Value) (out []string) {
		for _, v := range vs {
			out = append(out, v.Raw)
		}
		return out
	}
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`[1, "a" ,{"b":[]}]`, []string{`1`, `"a"`, `{"b":[]}`}},
		{`[]`, nil}, {`null`, nil}, {``, nil}, {`"a"`, []string{`"a"`}}, {`{"a":1}`, []string{`{"a":1}`}},
	} {
		if diff := cmp.Diff(tc.want, raws(Parse(tc.doc).Array())); diff != "" {
			t.Errorf("Array of %q (-want +got):\n%s", tc.doc, diff)
		}
		// gjson's Array, which the gateway used before, does the same.
		if diff := cmp.Diff(tc.want, func() (out []string) {
			for _, r := range gjson.Parse(tc.doc).Array() {
				out = append(out, r.Raw)
			}
			return out
		}()); diff != "" {
			t.Errorf("gjson's Array of %q (-want +got):\n%s", tc.doc, diff)
		}
	}
	var seen []string
	Parse(`7`).ForEach(func(k, v Value) bool { seen = append(seen, k.Raw+"|"+v.Raw); return true })
	Parse(`null`).ForEach(func(k, v Value) bool { seen = append(seen, k.Raw+"|"+v.Raw); return true })
	Parse(`{"a":1,"b":2}`).ForEach(func(k, v Value) bool { seen = append(seen, k.Str+"|"+v.Raw); return false })
	if diff := cmp.Diff([]string{"|7", "|null", "a|1"}, seen); diff != "" {
		t.Errorf("ForEach (-want +got):\n%s", diff)
	}
}

func TestScalars(t *testing.T) {
	for _, tc := range []struct {
		doc, str string
		i        int64
		b        bool
	}{
		{`"x"`, "x", 0, false}, {`12`, "12", 12, false}, {`-3.9`, "-3.9", -3, false}, {`1e3`, "1000", 1000, false},
		{`1.50`, "1.5", 1, false}, {`-0`, "-0", 0, false}, {`1e400`, "+Inf", 0, false}, {`true`, "true", 0, true}, {`false`, "false", 0, false}, {`null`, "", 0, false},
		{`{"a":1}`, `{"a":1}`, 0, false}, {``, "", 0, false},
	} {
		v := Parse(tc.doc)
		if v.String() != tc.str || v.Int() != tc.i || v.Bool() != tc.b {
			t.Errorf("%q: String %q Int %d Bool %v, want %q %d %v", tc.doc, v.String(), v.Int(), v.Bool(), tc.str, tc.i, tc.b)
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "\"\\/\b\f\n\r\t\x00\x1f\x7f", "<a href='x'>&amp;</a>", "é😀\u2028\u2029", "bad \xff\xfe utf-8 \xe2\x82", "\xed\xa0\x80"} {
		got := string(AppendString([]byte("x"), s))
		if want := "x" + string(gjson.AppendJSONString(nil, s)); got != want {
			t.Errorf("AppendString(%q) = %s, gjson's %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got[1:]), &back); err != nil || back != strings.ToValidUTF8(s, "\uFFFD") && utf8.ValidString(s) {
			t.Errorf("AppendString(%q) = %s reads back as %q (%v)", s, got, back, err)
		}
		if want, _ := json.Marshal(s); utf8.ValidString(s) && !bytes.Equal(want, []byte(got[1:])) {
			t.Errorf("AppendString(%q) = %s, encoding/json's %s", s, got[1:], want)
		}
	}
}

// A value nested deeper than the bound is refused, the empty innermost
// container counted; one at the bound is not, and brackets in strings do not
// count. Valid itself takes any depth.
func TestValidBytesWithin(t *testing.T) {
	nest := func(open, close string, n int, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		name string
		s    string
		want bool
	}{
		{"arrays at the bound", nest("[", "]", 4, "1"), true},
		{"arrays past it", nest("[", "]", 5, "1"), false},
		{"empty innermost array past it", nest("[", "]", 5, ""), false},
		{"empty innermost array at it", nest("[", "]", 4, ""), true},
		{"objects at the bound", nest(`{"a":`, "}", 4, "1"), true},
		{"objects past it", nest(`{"a":`, "}", 4, "{}"), false},
		{"mixed past it", `{"a":[{"b":[[]]}]}`, false},
		{"siblings at the bound", `[[[[1]]],[[[2]]],[[[]]]]`, true},
		{"a sibling past it", `[[[[1]]],[[[[]]]]]`, false},
		{"brackets in strings", `[[["[[[[[[{{{{{"]]]`, true},
		{"scalar", `"x"`, true},
		{"invalid", `[[1]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidBytesWithin([]byte(tc.s), 4); got != tc.want {
				t.Errorf("ValidBytesWithin(%s, 4) = %v, want %v", tc.s, got, tc.want)
			}
		})
	}
	if deep := nest("[", "]", 100000, ""); !Valid(deep) || ValidBytesWithin([]byte(deep), 99999) || !ValidBytesWithin([]byte(deep), 100000) {
		t.Error("100,000 nested arrays: Valid refuses them or the bound is off by one")
	}
}

// Compact drops null members at every depth, wherever they stand among the
// others, keeps nulls in arrays, keeps numbers and escapes as written, and
// counts the quotes and backslashes it writes.
func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"space", " { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } } ", `{"a":[1,2],"b":{}}`},
		{"null first", `{"a":null,"b":1,"c":2}`, `{"b":1,"c":2}`},
		{"null between", `{"a":1,"b":null,"c":2}`, `{"a":1,"c":2}`},
		{"null last", `{"a":1,"b":2,"c":null}`, `{"a":1,"b":2}`},
		{"only nulls", `{"a":null,"b" : null}`, `{}`},
		{"nested", `{"a":{"b":null,"c":[null,{"d":null,"e":false}]},"f":null}`, `{"a":{"c":[null,{"e":false}]}}`},
		{"array of nulls", `[null, null]`, `[null,null]`},
		{"escapes and numbers", `{"k\\\"":"v\\n\u0022\"","n":-1.50e+3}`, `{"k\\\"":"v\\n\u0022\"","n":-1.50e+3}`},
		{"a string that says null", `{"a":"null","null":true}`, `{"a":"null","null":true}`},
		{"scalar", ` "x" `, `"x"`},
		// Runs of s are copied whole: white space and dropped members cut
		// them anywhere.
		{"space around dropped members", ` { "a" : null , "b" : 1 , "c" : null , "d" : [ null , 2 ] } `, `{"b":1,"d":[null,2]}`},
		{"space before a dropped last member", `{"a":1 ,"b":null}`, `{"a":1}`},
		{"only a spaced null", `{ "a" : null }`, `{}`},
		{"objects in an array", `[ { "a" : null } , { } , {"b":null,"c":null,"d":3}]`, `[{},{},{"d":3}]`},
		{"compact already", `{"a":[1,"x",{"b":true}],"c":"d"}`, `{"a":[1,"x",{"b":true}],"c":"d"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, escapes, ok := Compact(nil, []byte(tc.in), 8, true)
			if !ok || string(out) != tc.want || escapes != escapesIn(out) {
				t.Errorf("Compact(%s) = %s, %d escapes, %v; want %s, %d escapes", tc.in, out, escapes, ok, tc.want, escapesIn([]byte(tc.want)))
			}
			sameAs(t, []byte(tc.in), 8, true)
		})
	}
	for _, bad := range []string{``, ` `, `{"a":nul}`, `{"a":null,}`, `{"a" null}`, `{"a":1`, `[1,]`, `{"a":1}x`, `{1:2}`, `"\x"`, "\"\x01\"", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}`} {
		if out, _, ok := Compact(nil, []byte(bad), 8, true); ok {
			t.Errorf("Compact(%s) = %s, accepted", bad, out)
		}
	}
}

// sameAs checks that CompactOrSame(in) is what Compact writes, and that it
// is in's own bytes exactly when Compact leaves nothing out but the white
// space around the value.
func sameAs(t *testing.T, in []byte, maxDepth int, dropNulls bool) {
	t.Helper()
	want, wantEscapes, wantOK := Compact(nil, in, maxDepth, dropNulls)
	got, escapes, ok := CompactOrSame(in, maxDepth, dropNulls)
	if ok != wantOK || ok && (string(got) != string(want) || escapes != wantEscapes) {
		t.Fatalf("CompactOrSame(%q) = %q, %d, %v; Compact gives %q, %d, %v", in, got, escapes, ok, want, wantEscapes, wantOK)
	}
	trimmed := bytes.Trim(in, " \t\r\n")
	aliased := len(got) > 0 && unsafe.SliceData(got) == unsafe.SliceData(trimmed)
	if ok && aliased != (len(want) == len(trimmed)) {
		t.Fatalf("CompactOrSame(%q) = %q: uncopied %v", in, got, aliased)
	}
}

// escapesIn counts the quotes and backslashes of b.
func escapesIn(b []byte) int { return bytes.Count(b, []byte{'"'}) + bytes.Count(b, []byte{'\\'}) }

// depthOf is how deep arrays and objects nest in the valid JSON s.
func depthOf(s string) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func FuzzValue(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), json.Valid([]byte(s)); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json %v", s, got, want)
		}
		if got, want := ValidBytesWithin([]byte(s), 3), json.Valid([]byte(s)) && depthOf(s) <= 3; got != want {
			t.Fatalf("ValidBytesWithin(%q, 3) = %v, want %v", s, got, want)
		}
		// Compact checks what ValidBytesWithin checks and, keeping nulls,
		// writes what encoding/json's Compact writes.
		out, escapes, ok := Compact([]byte("x"), []byte(s), 3, false)
		if want := ValidBytesWithin([]byte(s), 3); ok != want {
			t.Fatalf("Compact(%q) ok = %v, want %v", s, ok, want)
		}
		if ok {
			var want bytes.Buffer
			json.Compact(&want, []byte(s))
			if string(out) != "x"+want.String() || escapes != escapesIn(out) {
				t.Fatalf("Compact(%q) = %q with %d escapes, want %q with %d", s, out[1:], escapes, want.Bytes(), escapesIn(out))
			}
		}
		sameAs(t, []byte(s), 3, true)
		if out, escapes, ok := Compact(nil, []byte(s), 3, true); ok && (!json.Valid(out) || escapes != escapesIn(out)) {
			t.Fatalf("Compact(%q) dropping nulls = %q with %d escapes", s, out, escapes)
		} else if got, want := Compacted(out), Parse(string(out)); ok && got != want {
			t.Fatalf("Compacted(%q) = %+v, Parse gives %+v", out, got, want)
		}
		if Valid(s) {
			if got, want := InPlace([]byte(s)), Parse(s); got != want {
				t.Fatalf("InPlace(%q) = %+v, Parse gives %+v", s, got, want)
			}
		}
		check(t, s)
		Parse(s).ForEach(func(k, v Value) bool { v.Get(k.Str); v.Array(); return true }) // no panic on anything
	})
}

func FuzzAppendString(f *testing.F) {
	f.Add("a<b>\u2028\xff\"")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if want := gjson.AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, gjson's %s", s, got, want)
		}
		if v := Parse(string(got)); !Valid(string(got)) || v.Str != strings.ToValidUTF8(s, "\uFFFD") && utf8.ValidString(s) {
			t.Fatalf("AppendString(%q) = %s does not read back", s, got)
		}
	})
}
