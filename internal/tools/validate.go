package tools

import (
	"errors"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// arguments are a tool call's arguments, decoded once for validation and
// request building.
type arguments struct {
	values  map[string]any // for the schema validator; null members left out
	bodyRaw string         // the "body" argument exactly as the caller wrote it
}

// MaxArgumentValues bounds how many JSON values (objects, arrays, members and
// items all count) a tool call's arguments may hold. Decoded values take
// several times their text's size: 1 MB of "[1,1,…]" would take tens of MB.
// The tools' real arguments hold a few dozen.
const MaxArgumentValues = 10000

// decodeArguments turns the call's arguments into plain values without
// reflection. Absent or null arguments are an empty object. Members whose
// value is null count as absent, as they do for Memos; a key given twice
// anywhere is refused, so that what is validated is what is sent. More than
// MaxArgumentValues values are refused before they are decoded.
func decodeArguments(args rawjson.Value) (arguments, error) {
	var a arguments
	if !args.Exists() || args.Kind == rawjson.Null {
		a.values = map[string]any{}
		return a, nil
	}
	if !args.IsObject() {
		return a, errors.New("arguments must be a JSON object, not " + jsonKind(args))
	}
	if countValues(args, MaxArgumentValues+1) > MaxArgumentValues {
		return a, errors.New("arguments hold more than " + strconv.Itoa(MaxArgumentValues) + " values: send less in one call")
	}
	v, err := decodeValue(args, nil)
	if err != nil {
		return a, err
	}
	a.values = v.(map[string]any)
	if body := args.Get("body"); body.Kind != rawjson.Null {
		a.bodyRaw = body.Raw
	}
	return a, nil
}

func decodeValue(r rawjson.Value, path []string) (any, error) {
	switch r.Kind {
	case rawjson.String:
		return r.Str, nil
	case rawjson.Number:
		return rawjson.Numeral(r.Raw), nil
	case rawjson.True:
		return true, nil
	case rawjson.False:
		return false, nil
	case rawjson.Null:
		return nil, nil
	}
	var err error
	if r.IsArray() {
		var items []any
		i := 0
		r.ForEach(func(_, item rawjson.Value) bool {
			var v any
			v, err = decodeValue(item, append(path, strconv.Itoa(i)))
			items = append(items, v)
			i++
			return err == nil
		})
		if items == nil {
			items = []any{}
		}
		return items, err
	}
	obj := map[string]any{}
	seen := map[string]bool{}
	r.ForEach(func(key, member rawjson.Value) bool {
		if seen[key.Str] {
			err = errors.New("argument " + strconv.Quote(displayPath(append(path, key.Str))) + " is given twice")
			return false
		}
		seen[key.Str] = true
		if member.Kind == rawjson.Null {
			return true
		}
		var v any
		v, err = decodeValue(member, append(path, key.Str))
		obj[key.Str] = v
		return err == nil
	})
	return obj, err
}

// countValues counts the values in r, itself included, stopping once the
// count reaches limit. It walks the text without decoding anything.
func countValues(r rawjson.Value, limit int) int {
	n := 1
	if r.IsArray() || r.IsObject() {
		r.ForEach(func(_, v rawjson.Value) bool {
			n += countValues(v, limit-n)
			return n < limit
		})
	}
	return n
}

// jsonKind names the JSON type of r for messages.
func jsonKind(r rawjson.Value) string {
	switch {
	case r.Kind == rawjson.String:
		return "a string"
	case r.Kind == rawjson.Number:
		return "a number"
	case r.Kind == rawjson.True || r.Kind == rawjson.False:
		return "a boolean"
	case r.IsArray():
		return "an array"
	}
	return "an object"
}

// displayPath names a member path without the values at hand (array
// indices then read as members).
func displayPath(path []string) string { return strings.Join(path, ".") }

// loneSurrogate reports whether JSON text holds a \u escape of half a
// UTF-16 surrogate pair without its other half: valid JSON, but no text,
// and Memos refuses the request with a parse error that names neither.
func loneSurrogate(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character; in valid JSON one follows
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		switch r := hex4(raw, i+1); {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 >= len(raw) || raw[i+5] != '\\' || raw[i+6] != 'u' {
				return true
			}
			if low := hex4(raw, i+7); low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 10
		default:
			i += 4
		}
	}
	return false
}

// hex4 reads the four hex digits of a \u escape at raw[i:]; -1 when there
// are none.
func hex4(raw string, i int) int {
	if i+4 > len(raw) {
		return -1
	}
	n, err := strconv.ParseUint(raw[i:i+4], 16, 16)
	if err != nil {
		return -1
	}
	return int(n)
}
