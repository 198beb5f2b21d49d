package tools

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// segment is one piece of a route template: literal text or a placeholder.
type segment struct {
	literal string
	param   string // placeholder name; literal is empty then
}

// parseTemplate splits /api/v1/memos/{memo}/reactions/{reaction} into its
// literal and placeholder pieces.
func parseTemplate(path string) []segment {
	var segs []segment
	for path != "" {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			segs = append(segs, segment{literal: path})
			break
		}
		end := strings.IndexByte(path[open:], '}')
		if end < 0 {
			segs = append(segs, segment{literal: path})
			break
		}
		if open > 0 {
			segs = append(segs, segment{literal: path[:open]})
		}
		segs = append(segs, segment{param: path[open+1 : open+end]})
		path = path[open+end+1:]
	}
	return segs
}

// buildPath fills the route template with the path arguments. A resource
// name is reduced to its id when its parents match the ones already filled
// in (memos/abc → abc; memos/abc/reactions/7 under memo abc → 7). Whatever
// is left must be a plain id: nothing a caller passes can add a segment,
// climb out of the route or start a query.
func buildPath(segs []segment, values map[string]any) (string, error) {
	var raw, escaped strings.Builder // raw holds the unescaped path, for parent matching
	for _, s := range segs {
		if s.param == "" {
			raw.WriteString(s.literal)
			escaped.WriteString(s.literal)
			continue
		}
		v, ok := values[s.param]
		if !ok {
			return "", errors.New("missing required argument " + strconv.Quote(s.param))
		}
		str, ok := primitive(v)
		if !ok {
			return "", errors.New("argument " + strconv.Quote(s.param) + " must be a string")
		}
		parent := strings.TrimPrefix(raw.String(), memos.APIRoot)
		id, err := pathID(s.param, str, parent)
		if err != nil {
			return "", err
		}
		raw.WriteString(id)
		escaped.WriteString(uri.PathEscape(id))
	}
	return escaped.String(), nil
}

// pathID reduces value to the id that goes in the path after parent (the
// resource name prefix, e.g. "memos/abc/reactions/") and checks it.
func pathID(name, value, parent string) (string, error) {
	id := value
	if parent != "" && strings.HasPrefix(value, parent) {
		id = value[len(parent):]
	}
	if id != "" && strings.ContainsRune(id, '/') {
		return "", errors.New("argument " + strconv.Quote(name) + " must be an id or a resource name of the form " + parent + "<id>")
	}
	if problem := memos.CheckID(id); problem != "" {
		return "", errors.New("argument " + strconv.Quote(name) + " " + problem)
	}
	return id, nil
}

// buildQuery writes the declared query parameters that are present, in the
// registry's order, each value a primitive formatted as Memos parses it.
func buildQuery(t *registry.Tool, values map[string]any) (string, error) {
	var b strings.Builder
	for _, p := range t.Params {
		v, ok := values[p.Name]
		if p.In != "query" || !ok {
			continue
		}
		str, ok := primitive(v)
		if !ok {
			return "", errors.New("argument " + strconv.Quote(p.Name) + " must be a string, number or boolean")
		}
		if b.Len() == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(uri.QueryEscape(p.Name))
		b.WriteByte('=')
		b.WriteString(uri.QueryEscape(str))
	}
	return b.String(), nil
}

// primitive formats a string, boolean or number argument for a URL:
// true, 7, and 2 for 2.0.
func primitive(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case rawjson.Numeral:
		return formatNumber(string(v)), true
	}
	return "", false
}

func formatNumber(raw string) string {
	digits := strings.TrimPrefix(raw, "-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		return raw
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return raw
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// maskParam is the query parameter of Memos' partial updates.
const maskParam = "updateMask"

// updateMask decides the updateMask of a partial update, which is always
// sent: Memos writes a field the mask names without a value as empty, and
// infers a mask of its own otherwise, attachments first. The mask names
// exactly the body's fields, in snake_case (Memos matches them so), content
// first and attachments and relations last: Memos applies them in order,
// so a content change it refuses fails before anything else is written. A
// given mask must name each field of the body and none besides (a nested
// path names its top field): a named field without a value would be
// blanked, a given one not named would be dropped untold.
func updateMask(given string, body rawjson.Value, fields []string) (string, error) {
	var keys []string
	body.ForEach(func(k, _ rawjson.Value) bool {
		keys = append(keys, snakeCase(k.Str))
		return true
	})
	var parts []string
	for part := range strings.SplitSeq(given, ",") {
		if part = strings.TrimSpace(part); part != "" {
			parts = append(parts, part)
		}
	}
	mask := keys
	if len(parts) > 0 {
		mask = nil
		named := map[string]bool{}
		for _, part := range parts {
			path, err := maskPath(part, fields)
			if err != nil {
				return "", err
			}
			top, _, _ := strings.Cut(path, ".")
			if !slices.Contains(keys, top) {
				return "", errors.New("updateMask names " + strconv.Quote(part) + ", which body does not give, so Memos would write it empty: give its new value in body (to clear a field on purpose, give it empty: \"\", false or [])")
			}
			named[top] = true
			if !slices.Contains(mask, path) {
				mask = append(mask, path)
			}
		}
		for _, k := range keys {
			if !named[k] {
				return "", errors.New("body gives " + strconv.Quote(k) + ", which updateMask leaves out, so Memos would drop it untold: name it in updateMask, or leave updateMask out (the body's fields are then the mask)")
			}
		}
	}
	ordered := make([]string, 0, len(mask)) // by rank, in order within one (a stable sort's wasm is 9 KB)
	for rank := range 3 {
		for _, path := range mask {
			if maskRank(path) == rank {
				ordered = append(ordered, path)
			}
		}
	}
	return strings.Join(ordered, ","), nil
}

// maskRank orders the fields of an update: content first, the lists that
// Memos replaces whole (deleting what is left out) last.
func maskRank(path string) int {
	top, _, _ := strings.Cut(path, ".")
	switch top {
	case "content":
		return 0
	case "attachments", "relations":
		return 2
	}
	return 1
}

// maskPath checks one updateMask entry and returns it in snake_case.
func maskPath(part string, fields []string) (string, error) {
	for i, r := range part {
		ok := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && ('0' <= r && r <= '9' || r == '_' || r == '.')
		if !ok {
			return "", errors.New("updateMask entry " + strconv.Quote(part) + " is not a field name: list field names separated by commas, e.g. content,visibility")
		}
	}
	path := snakeCase(part)
	if len(fields) == 0 {
		return path, nil
	}
	top, _, _ := strings.Cut(path, ".")
	for _, f := range fields {
		if f == top {
			return path, nil
		}
	}
	return "", errors.New("updateMask field " + strconv.Quote(part) + " cannot be updated: use fields of body (" + strings.Join(fields, ", ") + ")")
}

// snakeCase turns a camelCase field name into the snake_case of its proto
// field (updateTime → update_time); snake_case is left as it is.
func snakeCase(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			if b == nil {
				b = append(make([]byte, 0, len(s)+4), s[:i]...)
			}
			if i > 0 && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= '0' && s[i-1] <= '9') {
				b = append(b, '_')
			}
			b = append(b, c+'a'-'A')
		} else if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}
