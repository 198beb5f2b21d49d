package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/tidwall/gjson"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// arguments are a tool call's arguments, decoded once for validation and
// request building.
type arguments struct {
	values  map[string]any // for the schema validator; null members left out
	bodyRaw string         // the "body" argument exactly as the caller wrote it
}

// decodeArguments turns the call's arguments into plain values without
// reflection. Absent or null arguments are an empty object. Members whose
// value is null count as absent, as they do for Memos; a key given twice
// anywhere is refused, so that what is validated is what is sent.
func decodeArguments(args gjson.Result) (arguments, error) {
	var a arguments
	if !args.Exists() || args.Type == gjson.Null {
		a.values = map[string]any{}
		return a, nil
	}
	if !args.IsObject() {
		return a, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(args))
	}
	v, err := decodeValue(args, nil)
	if err != nil {
		return a, err
	}
	a.values = v.(map[string]any)
	if body := args.Get("body"); body.Type != gjson.Null {
		a.bodyRaw = body.Raw
	}
	return a, nil
}

func decodeValue(r gjson.Result, path []string) (any, error) {
	switch r.Type {
	case gjson.String:
		return r.Str, nil
	case gjson.Number:
		return json.Number(r.Raw), nil
	case gjson.True:
		return true, nil
	case gjson.False:
		return false, nil
	case gjson.Null:
		return nil, nil
	}
	var err error
	if r.IsArray() {
		var items []any
		i := 0
		r.ForEach(func(_, item gjson.Result) bool {
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
	r.ForEach(func(key, member gjson.Result) bool {
		if seen[key.Str] {
			err = fmt.Errorf("argument %q is given twice", displayPath(append(path, key.Str)))
			return false
		}
		seen[key.Str] = true
		if member.Type == gjson.Null {
			return true
		}
		var v any
		v, err = decodeValue(member, append(path, key.Str))
		obj[key.Str] = v
		return err == nil
	})
	return obj, err
}

// jsonKind names the JSON type of r for messages.
func jsonKind(r gjson.Result) string {
	switch {
	case r.Type == gjson.String:
		return "a string"
	case r.Type == gjson.Number:
		return "a number"
	case r.Type == gjson.True || r.Type == gjson.False:
		return "a boolean"
	case r.IsArray():
		return "an array"
	}
	return "an object"
}

// compileSchema compiles one tool's input schema. It runs once per tool, on
// the tool's first call.
func compileSchema(name, schema string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	url := "urn:memos-mcp-edge:tool:" + name
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// argumentError turns the validator's error tree into one short message a
// model can act on: the shallowest problem, required and unknown arguments
// before wrong types, before everything else.
func argumentError(err error, values map[string]any) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("arguments are invalid: %v", err)
	}
	var leaves []*jsonschema.ValidationError
	var collect func(e *jsonschema.ValidationError)
	collect = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			collect(c)
		}
	}
	collect(ve)
	if len(leaves) == 0 {
		return errors.New("arguments do not match the tool's input schema")
	}
	best := slices.MinFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		if d := len(a.InstanceLocation) - len(b.InstanceLocation); d != 0 {
			return d
		}
		if d := kindRank(a.ErrorKind) - kindRank(b.ErrorKind); d != 0 {
			return d
		}
		return strings.Compare(strings.Join(a.InstanceLocation, "/"), strings.Join(b.InstanceLocation, "/"))
	})
	return errors.New(leafMessage(best, values))
}

func kindRank(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.Required:
		return 0
	case *kind.AdditionalProperties:
		return 1
	case *kind.Type:
		return 2
	case *kind.Enum, *kind.Const:
		return 3
	}
	return 4
}

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

func leafMessage(e *jsonschema.ValidationError, values map[string]any) string {
	at := argumentPath(e.InstanceLocation, values)
	child := func(name string) string {
		if at == "" {
			return name
		}
		return at + "." + name
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) > 0 {
			return fmt.Sprintf("missing required argument %q", child(k.Missing[0]))
		}
	case *kind.AdditionalProperties:
		if len(k.Properties) > 0 {
			return fmt.Sprintf("unknown argument %q", child(slices.Min(k.Properties)))
		}
	case *kind.Type:
		if at == "" {
			return "arguments must be a JSON object"
		}
		if len(k.Want) > 0 {
			return fmt.Sprintf("argument %q must be %s", at, strings.Join(k.Want, " or "))
		}
	case *kind.Enum:
		allowed := make([]string, len(k.Want))
		for i, w := range k.Want {
			allowed[i] = literal(w)
		}
		return fmt.Sprintf("argument %q must be one of %s", at, strings.Join(allowed, ", "))
	case *kind.Const:
		return fmt.Sprintf("argument %q must be %s", at, literal(k.Want))
	case *kind.MinProperties:
		return fmt.Sprintf("argument %q must have at least %d %s", at, k.Want, plural(k.Want, "field", "fields"))
	case *kind.MaxProperties:
		return fmt.Sprintf("argument %q must have at most %d %s", at, k.Want, plural(k.Want, "field", "fields"))
	case *kind.MinItems:
		return fmt.Sprintf("argument %q must have at least %d %s", at, k.Want, plural(k.Want, "item", "items"))
	case *kind.MaxItems:
		return fmt.Sprintf("argument %q must have at most %d %s", at, k.Want, plural(k.Want, "item", "items"))
	case *kind.FalseSchema:
		return fmt.Sprintf("argument %q is not allowed", at)
	}
	if at == "" {
		return "arguments: " + e.ErrorKind.LocalizedString(printer())
	}
	return fmt.Sprintf("argument %q: %s", at, e.ErrorKind.LocalizedString(printer()))
}

// argumentPath writes an instance location the way a caller would name it:
// body.relations[0].type.
func argumentPath(loc []string, values map[string]any) string {
	var b strings.Builder
	var cur any = values
	for _, seg := range loc {
		switch v := cur.(type) {
		case []any:
			b.WriteString("[" + seg + "]")
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(v) {
				cur = v[i]
			}
		case map[string]any:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
			cur = v[seg]
		default:
			b.WriteString("." + seg)
		}
	}
	return b.String()
}

// displayPath names a member path without the values at hand (array
// indices then read as members).
func displayPath(path []string) string { return strings.Join(path, ".") }

func literal(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
