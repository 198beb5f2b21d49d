package schema

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Kinds of violation, in the order a caller should fix them.
const (
	kindRequired = iota
	kindUnknown
	kindType
	kindEnum
	kindOther
)

// violation is one failed constraint, found depth levels below the root.
// Its message is written only for the one that is returned.
type violation struct {
	depth int
	kind  int
	at    string // where, as a caller names it: body.relations[0].type
	n     *node  // the constraint's schema, for the message
}

// before reports whether a should be fixed before b.
func (a *violation) before(b *violation) bool {
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.at < b.at
}

// Validate checks v, a decoded JSON value (map[string]any, []any, string,
// rawjson.Numeral, bool or nil), and returns the one violation a caller should
// fix first: the shallowest, and among those a missing argument before an
// unknown one, before a wrong type, before a wrong value. It keeps only the
// best violation found so far and does not descend below it, so a value
// with a problem in every item costs no more than one without.
func (s *Schema) Validate(v any) error {
	var best *violation
	check(s.root, v, "", 0, &best)
	if best == nil {
		return nil
	}
	return errors.New(best.message())
}

func check(n *node, v any, at string, depth int, best **violation) {
	if n.ref != nil {
		check(n.ref, v, at, depth, best)
	}
	report := func(kind int, where string) {
		c := violation{depth: depth, kind: kind, at: where, n: n}
		if *best == nil || c.before(*best) {
			kept := c
			*best = &kept
		}
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		report(kindType, at)
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(e, v) }) {
		report(kindEnum, at)
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range n.required {
			if _, ok := v[name]; !ok {
				report(kindRequired, member(at, name))
				break
			}
		}
		if n.minProps >= 0 && len(v) < n.minProps {
			report(kindOther, at)
		}
		unknown, anyUnknown := "", false
		for name, child := range v {
			sub, ok := n.props[name]
			if !ok {
				sub = n.extra
			}
			switch {
			case sub != nil:
				if *best == nil || (*best).depth > depth { // a deeper problem cannot come first
					check(sub, child, member(at, name), depth+1, best)
				}
			case n.closed && (!anyUnknown || name < unknown):
				unknown, anyUnknown = name, true
			}
		}
		if anyUnknown {
			report(kindUnknown, member(at, unknown))
		}
	case []any:
		if n.items != nil {
			for i, item := range v {
				if *best != nil && (*best).depth <= depth {
					break
				}
				check(n.items, item, at+"["+strconv.Itoa(i)+"]", depth+1, best)
			}
		}
	}
}

// message says what is wrong, as the caller should read it.
func (c *violation) message() string {
	switch c.kind {
	case kindRequired:
		return "missing required argument " + strconv.Quote(c.at)
	case kindUnknown:
		return "unknown argument " + strconv.Quote(c.at)
	case kindType:
		if c.at == "" {
			return "arguments must be a JSON object"
		}
		return "argument " + strconv.Quote(c.at) + " must be " + strings.Join(c.n.types, " or ")
	case kindEnum:
		allowed := make([]string, len(c.n.enum))
		for i, e := range c.n.enum {
			allowed[i] = literal(e)
		}
		return "argument " + strconv.Quote(c.at) + " must be one of " + strings.Join(allowed, ", ")
	}
	return "argument " + strconv.Quote(c.at) + " must have at least " + strconv.Itoa(c.n.minProps) + plural(c.n.minProps, " field", " fields")
}

// member names a member of the value at at.
func member(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// hasType reports whether v is of the JSON Schema type t; integers are
// numbers without a fractional part, however they are written (2.0, 1e3).
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case nil:
		return t == "null"
	case rawjson.Numeral:
		return t == "number" || t == "integer" && isIntegral(string(v))
	}
	return false
}

// isIntegral reports whether a JSON number has no fractional part, exactly,
// from its text: the digits right of the decimal point, once the exponent
// has moved it, must all be zero.
func isIntegral(num string) bool {
	mant, exp, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(num, "-")), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if strings.Trim(digits, "0") == "" {
		return true // zero
	}
	e, err := strconv.Atoi(exp)
	switch {
	case exp == "":
		e = 0
	case err != nil: // an exponent beyond int: it decides alone
		return !strings.HasPrefix(exp, "-")
	}
	point := len(whole) + e
	if point >= len(digits) {
		return true
	}
	return strings.Trim(digits[max(point, 0):], "0") == ""
}

// equal compares decoded JSON scalars; numbers by value.
func equal(a, b any) bool {
	an, aNum := a.(rawjson.Numeral)
	bn, bNum := b.(rawjson.Numeral)
	if aNum || bNum {
		if !aNum || !bNum {
			return false
		}
		x, err1 := strconv.ParseFloat(string(an), 64)
		y, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && x == y
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

func literal(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case rawjson.Numeral:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return "null"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
