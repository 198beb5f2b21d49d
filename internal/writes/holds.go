package writes

import (
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Holds reports whether obj, what Memos holds, holds every field of want,
// what a write meant, by value rather than by text: times as instants
// (2026-03-01T10:00:00Z is 2026-03-01T11:00:00.000+01:00), numbers as
// numbers, arrays as sets whose items hold each other's fields, and objects
// field by field (want's fields only: Memos adds its own). A field want
// gives empty ("", false, 0, [], {}) is held by one Memos leaves out.
func Holds(obj, want rawjson.Value) bool {
	return holds(obj, want, 0)
}

// maxHoldsDepth bounds the recursion of Holds; a body the schemas admit
// nests a few levels.
const maxHoldsDepth = 16

func holds(got, want rawjson.Value, depth int) bool {
	if depth > maxHoldsDepth {
		return false
	}
	if !got.Exists() {
		return empty(want)
	}
	switch want.Kind {
	case rawjson.String:
		if got.Kind != rawjson.String {
			return false
		}
		if got.Str == want.Str {
			return true
		}
		a, aok := Instant(got.Str)
		b, bok := Instant(want.Str)
		return aok && bok && a.Equal(b)
	case rawjson.Number:
		a, aerr := strconv.ParseFloat(got.Raw, 64)
		b, berr := strconv.ParseFloat(want.Raw, 64)
		return got.Kind == rawjson.Number && aerr == nil && berr == nil && a == b
	}
	switch {
	case want.IsObject():
		if !got.IsObject() {
			return false
		}
		same := true
		want.ForEach(func(k, v rawjson.Value) bool {
			same = holds(got.Get(k.Str), v, depth+1)
			return same
		})
		return same
	case want.IsArray():
		if !got.IsArray() {
			return false
		}
		// Each wanted item is held, and Memos holds nothing the write
		// left out.
		g, w := got.Array(), want.Array()
		return each(w, g, func(w, g rawjson.Value) bool { return holds(g, w, depth+1) }) &&
			each(g, w, func(g, w rawjson.Value) bool { return holds(g, w, depth+1) })
	}
	return got.Raw == want.Raw // true, false
}

// each reports whether every item of as has a partner among bs.
func each(as, bs []rawjson.Value, partners func(a, b rawjson.Value) bool) bool {
	for _, a := range as {
		found := false
		for _, b := range bs {
			if found = partners(a, b); found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// empty reports whether v is a zero value, which Memos' JSON leaves out.
func empty(v rawjson.Value) bool {
	switch {
	case v.Kind == rawjson.String:
		return v.Str == ""
	case v.Kind == rawjson.Number:
		f, err := strconv.ParseFloat(v.Raw, 64)
		return err == nil && f == 0
	case v.IsObject(), v.IsArray():
		n := 0
		v.ForEach(func(_, _ rawjson.Value) bool { n++; return false })
		return n == 0
	}
	return v.Raw == "false" || v.Raw == "null"
}

// Differs lists the top-level fields of want that obj does not hold, for a
// report of what Memos did not apply.
func Differs(obj, want rawjson.Value) []string {
	var fields []string
	want.ForEach(func(k, v rawjson.Value) bool {
		if !holds(obj.Get(k.Str), v, 0) {
			fields = append(fields, k.Str)
		}
		return true
	})
	return fields
}

// Instant reads an RFC 3339 time (2026-03-01T11:00:00.5+01:00, or with
// Z; a fraction past nanoseconds is cut), by hand: time.Parse links 16 KB gzip of layouts into the wasm.
// TestInstant holds it to time.Parse.
func Instant(s string) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	var n [6]int
	for i, at := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		v, ok := digits(s[at[0]:at[1]])
		if !ok {
			return time.Time{}, false
		}
		n[i] = v
	}
	rest, nanos := s[19:], 0
	if rest != "" && rest[0] == '.' {
		i := 1
		for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
			if i <= 9 {
				nanos = nanos*10 + int(rest[i]-'0')
			}
			i++
		}
		if i == 1 {
			return time.Time{}, false
		}
		for j := i; j < 10; j++ {
			nanos *= 10
		}
		rest = rest[i:]
	}
	offset := 0
	switch {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		h, hok := digits(rest[1:3])
		m, mok := digits(rest[4:6])
		if !hok || !mok || h > 24 || m > 60 { // as time.Parse takes them
			return time.Time{}, false
		}
		if offset = (h*60 + m) * 60; rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, false
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], nanos, time.UTC)
	if n[1] < 1 || n[1] > 12 || n[3] > 23 || n[4] > 59 || n[5] > 59 || t.Day() != n[2] {
		return time.Time{}, false // out of range, or a day the month lacks
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// digits reads a run of decimal digits.
func digits(s string) (int, bool) {
	v := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}
