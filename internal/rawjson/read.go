// Package rawjson reads JSON values where they lie in the document, without
// decoding them into Go values, checks and compacts documents, and writes
// JSON strings. It is all the JSON code the gateway links: encoding/json,
// and any library that links it, costs the Worker's wasm about 0.4 MB, while
// the gateway only ever needs to check and compact a document, look up
// members, walk arrays and quote strings.
//
// Its behaviour follows github.com/tidwall/gjson, which the gateway used
// before: a lookup finds a member's first occurrence, and a string's value
// keeps bytes that are not UTF-8 as they are. Look-ups take one member name,
// not a path, so no name needs escaping.
package rawjson

import (
	"strconv"
	"unsafe"
)

// Kind is the JSON type of a Value. The zero Value is Null and does not
// exist; the literal null exists.
type Kind uint8

const (
	Null Kind = iota
	False
	True
	Number
	String
	Object
	Array
)

// A Value is one JSON value: its text as it lies in the document and its
// kind; a string's value, unescaped, is in Str.
type Value struct {
	Raw  string
	Kind Kind
	Str  string
}

// Numeral is a JSON number as written, kept as text so that no precision is
// lost before it is checked or passed on.
type Numeral string

// Parse returns the JSON value s holds, surrounding white space aside. It
// does not check s: call Valid first on anything that came from outside.
func Parse(s string) Value {
	i := skipSpace(s, 0)
	end := skipValue(s, i)
	if end < 0 {
		return Value{}
	}
	return valueOf(s[i:end])
}

// ParseBytes is Parse on a copy of b.
func ParseBytes(b []byte) Value { return Parse(string(b)) }

// InPlace is Parse of b where it lies, for b that holds one valid value
// (checked with Valid, as Memos' answers are): it neither copies b nor
// looks for the value's end, which ParseBytes does at the cost of two
// passes over a page of memos. b must not change while the Value, or a
// string read from it, is in use.
func InPlace(b []byte) Value {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	i, j := skipSpace(s, 0), len(s)
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '\r') {
		j--
	}
	if i == j {
		return Value{}
	}
	return valueOf(s[i:j])
}

// Compacted is the value b holds as Compact writes it: one value, no white
// space around it. It neither copies b nor looks for the value's end, so it
// costs the same however long b is (a page of memos can be megabytes); b
// must not change while the Value is in use.
func Compacted(b []byte) Value {
	if len(b) == 0 {
		return Value{}
	}
	return valueOf(unsafe.String(unsafe.SliceData(b), len(b)))
}

// Exists reports whether v is a value: a missing member, or the result of
// parsing nothing, is not.
func (v Value) Exists() bool { return v.Raw != "" }

func (v Value) IsObject() bool { return v.Kind == Object }
func (v Value) IsArray() bool  { return v.Kind == Array }

// Bool reports whether v is true.
func (v Value) Bool() bool { return v.Kind == True }

// String returns a string's value, "" for null or nothing, a number as an
// integer's digits or else in Go's shortest decimal form (1e3 is "1000",
// as gjson spells it), and the JSON text of any other value.
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return ""
	case String:
		return v.Str
	case Number:
		start := 0
		if v.Raw[0] == '-' {
			start = 1
		}
		if digits(v.Raw, start) != len(v.Raw) {
			f, _ := strconv.ParseFloat(v.Raw, 64)
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return v.Raw
}

// Int returns a number's value as an integer (a fraction is cut off; a
// number beyond int64 is 0) and 0 for anything else.
func (v Value) Int() int64 {
	if v.Kind != Number {
		return 0
	}
	if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(v.Raw, 64); err == nil && f >= -1<<63 && f < 1<<63 {
		return int64(f)
	}
	return 0
}

// Get returns the first member of object v named key, or the zero Value
// when v is not an object or has no such member.
func (v Value) Get(key string) Value {
	if v.Kind != Object {
		return Value{}
	}
	var found Value
	v.members(func(k, val string) bool {
		if memberName(k) == key {
			found = valueOf(val)
			return false
		}
		return true
	})
	return found
}

// ElementsOf calls fn with each element of the array that is member key of
// v, an object, in order, until fn returns false. It reads the array once,
// where Get(key).ForEach reads it twice (Get finds its end first): the
// way through a page of memos, which can be megabytes.
func (v Value) ElementsOf(key string, fn func(element Value) bool) {
	if v.Kind != Object {
		return
	}
	s := v.Raw
	for i := skipSpace(s, 1); i < len(s) && s[i] == '"'; {
		k, j := memberAt(s, i)
		if j < 0 {
			return
		}
		if memberName(k) == key {
			if s[j] == '[' {
				Value{Kind: Array, Raw: s[j:]}.elements(func(val string) bool { return fn(valueOf(val)) })
			}
			return
		}
		end := skipValue(s, j)
		if end < 0 {
			return
		}
		i = nextItem(s, end)
	}
}

// memberName is the name of a member as its raw text k gives it.
func memberName(k string) string {
	if name := k[1 : len(k)-1]; !needsUnescape(name) {
		return name
	}
	return unquote(k)
}

// ForEach calls fn with each member of an object (its name as a String
// value) or each element of an array (with a zero key), in order, until fn
// returns false. Any other value that exists is passed once, with a zero key.
func (v Value) ForEach(fn func(key, value Value) bool) {
	switch {
	case v.Kind == Object:
		v.members(func(k, val string) bool { return fn(valueOf(k), valueOf(val)) })
	case v.Kind == Array:
		v.elements(func(val string) bool { return fn(Value{}, valueOf(val)) })
	case v.Exists():
		fn(Value{}, v)
	}
}

// Array returns the elements of an array; nothing for null or nothing; and
// v alone for any other value.
func (v Value) Array() []Value {
	switch {
	case v.Kind == Array:
		var vs []Value
		v.elements(func(val string) bool { vs = append(vs, valueOf(val)); return true })
		return vs
	case v.Kind == Null:
		return nil
	}
	return []Value{v}
}

// members calls fn with the raw text of each member's name and value.
func (v Value) members(fn func(key, value string) bool) {
	s := v.Raw
	for i := skipSpace(s, 1); i < len(s) && s[i] == '"'; {
		k, j := memberAt(s, i)
		if j < 0 {
			return
		}
		end := skipValue(s, j)
		if end < 0 || !fn(k, s[j:end]) {
			return
		}
		i = nextItem(s, end)
	}
}

// memberAt reads the name of the member at s[i] and the colon after it: it
// returns the name's raw text and where the value starts, or -1.
func memberAt(s string, i int) (string, int) {
	kend := skipValue(s, i)
	if kend < 0 {
		return "", -1
	}
	j := skipSpace(s, kend)
	if j >= len(s) || s[j] != ':' {
		return "", -1
	}
	if j = skipSpace(s, j+1); j >= len(s) {
		return "", -1
	}
	return s[i:kend], j
}

// nextItem is where the member or element after the one ending at end
// starts: past white space and a comma.
func nextItem(s string, end int) int {
	i := skipSpace(s, end)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	return i
}

// elements calls fn with the raw text of each element.
func (v Value) elements(fn func(value string) bool) {
	s := v.Raw
	for i := skipSpace(s, 1); i < len(s) && s[i] != ']'; {
		end := skipValue(s, i)
		if end < 0 || !fn(s[i:end]) {
			return
		}
		i = nextItem(s, end)
	}
}

// valueOf makes a Value of the raw text of one value.
func valueOf(raw string) Value {
	v := Value{Raw: raw}
	switch raw[0] {
	case '{':
		v.Kind = Object
	case '[':
		v.Kind = Array
	case '"':
		v.Kind, v.Str = String, unquote(raw)
	case 't':
		v.Kind = True
	case 'f':
		v.Kind = False
	case 'n':
		v.Kind = Null
	default:
		v.Kind = Number
	}
	return v
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value that starts at s[i], or -1 when
// s ends first. It trusts that s is valid, but stays within s when not.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				end := skipString(s, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipString returns the end of the string that starts at s[i], after its
// closing quote, or -1. The text between escapes is skipped eight bytes at
// a time (plainEnd): strings are most of a large answer.
func skipString(s string, i int) int {
	for i++; i < len(s); i++ {
		if i = plainEnd(s, i); i >= len(s) {
			break
		}
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
