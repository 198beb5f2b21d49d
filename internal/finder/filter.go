package finder

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Query is what memo_search looks for, checked and bounded (see parseQuery).
// Compile turns it into Memos' CEL filter.
type Query struct {
	Creator    string   // users/<name>: only that user's memos; "" for all visible ones
	Words      []string // each must occur in the content (case-insensitive)
	Tags       []string // tags without '#'; each also matches its children (a → a/b)
	AllTags    bool     // every tag of Tags is required, not any one
	NotTags    []string // none of these tags (nor their children)
	Spans      []Span   // the creation time is in one of these; none: any time
	Pinned     *bool
	Visibility string // PRIVATE, PROTECTED or PUBLIC; "" for any
	OpenTasks  *bool
	Before     time.Time // created before this instant (a page's start); zero: any time
}

// Span is a half-open interval of instants: From ≤ t < To. A zero end is open.
type Span struct{ From, To time.Time }

// Compile returns q as a filter for Memos' ListMemos. Every value is a
// quoted CEL string literal (see quote), so no value changes the filter's
// structure; everything else is fixed text.
func (q *Query) Compile() string {
	var terms []string
	if q.Creator != "" {
		terms = append(terms, "creator == "+quote(q.Creator))
	}
	for _, w := range q.Words {
		terms = append(terms, "content.contains("+quote(w)+")")
	}
	if len(q.Tags) > 0 {
		op := " || "
		if q.AllTags {
			op = " && "
		}
		parts := make([]string, len(q.Tags))
		for i, t := range q.Tags {
			parts[i] = tagTerm(t)
		}
		terms = append(terms, "("+strings.Join(parts, op)+")")
	}
	for _, t := range q.NotTags {
		terms = append(terms, "!"+tagTerm(t))
	}
	if len(q.Spans) > 0 {
		parts := make([]string, len(q.Spans))
		for i, s := range q.Spans {
			parts[i] = spanTerm(s)
		}
		terms = append(terms, "("+strings.Join(parts, " || ")+")")
	}
	if q.Pinned != nil {
		terms = append(terms, negated(!*q.Pinned)+"pinned")
	}
	if q.Visibility != "" {
		terms = append(terms, "visibility == "+quote(q.Visibility))
	}
	if q.OpenTasks != nil {
		terms = append(terms, negated(!*q.OpenTasks)+"has_incomplete_tasks")
	}
	if !q.Before.IsZero() {
		terms = append(terms, spanTerm(Span{To: q.Before}))
	}
	return strings.Join(terms, " && ")
}

// tagTerm matches a tag and its children: "work" matches work and work/x.
// It uses exists, not `"work" in tags`: Memos v0.30.0 turns a negated `in`
// into SQL that also drops every memo without tags. (Memos runs startsWith
// as SQL LIKE without escaping % and _ in tags, so a tag holding them can
// match more children than it names.)
func tagTerm(tag string) string {
	return "(tags.exists(t, t == " + quote(tag) + ") || tags.exists(t, t.startsWith(" + quote(tag+"/") + ")))"
}

// spanTerm bounds created_ts by a span's ends, as RFC 3339 UTC timestamps.
func spanTerm(s Span) string {
	var parts []string
	if !s.From.IsZero() {
		parts = append(parts, "created_ts >= timestamp("+quote(s.From.UTC().Format(time.RFC3339))+")")
	}
	if !s.To.IsZero() {
		parts = append(parts, "created_ts < timestamp("+quote(s.To.UTC().Format(time.RFC3339))+")")
	}
	if len(parts) == 0 {
		return "true"
	}
	return "(" + strings.Join(parts, " && ") + ")"
}

func negated(not bool) string {
	if not {
		return "!"
	}
	return ""
}

// quote returns s as a CEL string literal in double quotes. A backslash and
// a double quote are escaped with a backslash, control characters as \xHH
// (CEL reads all three forms), and invalid UTF-8 becomes U+FFFD, which the
// CEL parser would otherwise refuse: the literal always ends at its own
// closing quote and decodes to the value.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			const hex = "0123456789abcdef"
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r) // utf8.RuneError for an invalid byte: U+FFFD
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cleanText removes what Memos cannot search for: control characters (its
// SQLite store cuts a search at NUL and then matches everything) and
// invalid UTF-8, each of which becomes a space.
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, " "))
}
