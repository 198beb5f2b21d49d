package finder

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCompile(t *testing.T) {
	yes, no := true, false
	march := Span{From: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"nothing", Query{}, ``},
		{"mine", Query{Creator: "users/ann"}, `creator == "users/ann"`},
		{"words", Query{Words: []string{"boiler", "Fixed"}}, `content.contains("boiler") && content.contains("Fixed")`},
		{"any tag", Query{Tags: []string{"work", "home"}}, `((tags.exists(t, t == "work") || tags.exists(t, t.startsWith("work/"))) || (tags.exists(t, t == "home") || tags.exists(t, t.startsWith("home/"))))`},
		{"all tags", Query{Tags: []string{"a", "b"}, AllTags: true}, `((tags.exists(t, t == "a") || tags.exists(t, t.startsWith("a/"))) && (tags.exists(t, t == "b") || tags.exists(t, t.startsWith("b/"))))`},
		{"without a tag", Query{NotTags: []string{"draft"}}, `!(tags.exists(t, t == "draft") || tags.exists(t, t.startsWith("draft/")))`},
		{"a span", Query{Spans: []Span{march}}, `((created_ts >= timestamp("2024-03-01T00:00:00Z") && created_ts < timestamp("2024-04-01T00:00:00Z")))`},
		{"open span", Query{Spans: []Span{{From: march.From}}}, `((created_ts >= timestamp("2024-03-01T00:00:00Z")))`},
		{"two spans", Query{Spans: []Span{{To: march.From}, {From: march.To}}}, `((created_ts < timestamp("2024-03-01T00:00:00Z")) || (created_ts >= timestamp("2024-04-01T00:00:00Z")))`},
		{"state", Query{Pinned: &yes, OpenTasks: &no, Visibility: "PUBLIC"}, `pinned && visibility == "PUBLIC" && !has_incomplete_tasks`},
		{"not pinned, open tasks", Query{Pinned: &no, OpenTasks: &yes}, `!pinned && has_incomplete_tasks`},
		{"everything", Query{Creator: "users/a", Words: []string{"x"}, Tags: []string{"t"}, Pinned: &yes},
			`creator == "users/a" && content.contains("x") && ((tags.exists(t, t == "t") || tags.exists(t, t.startsWith("t/")))) && pinned`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.q.Compile(); got != tc.want {
				t.Errorf("Compile() =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Every value comes out as one CEL string literal that decodes to it.
func TestQuote(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "boiler", `"boiler"`},
		{"quote", `say "hi"`, `"say \"hi\""`},
		{"backslash", `a\b`, `"a\\b"`},
		{"backslash before quote", `\"`, `"\\\""`},
		{"breakout", `") || true || ("`, `"\") || true || (\""`},
		{"breakout with a backslash", `\") || true || (\"`, `"\\\") || true || (\\\""`},
		{"newline and tab", "a\nb\tc", `"a\x0ab\x09c"`},
		{"NUL and DEL", "a\x00b\x7f", `"a\x00b\x7f"`},
		{"single quote and backtick", "it's `x`", "\"it's `x`\""},
		{"unicode", "café 日本 🔥", `"café 日本 🔥"`},
		{"invalid UTF-8", "a\xffb", "\"a\uFFFDb\""},
		{"empty", "", `""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := quote(tc.in)
			if got != tc.want {
				t.Errorf("quote(%q) = %s, want %s", tc.in, got, tc.want)
			}
			lits, skeleton, err := lex(got)
			if err != nil || skeleton != `""` || len(lits) != 1 {
				t.Fatalf("quote(%q) = %s is not one literal: %v %q", tc.in, got, err, skeleton)
			}
			if utf8.ValidString(tc.in) && lits[0] != tc.in {
				t.Errorf("the literal decodes to %q, want %q", lits[0], tc.in)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"boiler", "boiler"}, {"a\x00b", "a b"}, {"a\nb", "a b"}, {"a\xffb", "a b"}, {"\u200bx", "\u200bx"},
	} {
		if got := cleanText(tc.in); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCompile checks that no value changes the filter's structure: the
// filter with the fuzzed values has the same shape, outside its string
// literals, as with plain ones, and each literal decodes to its value.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"boiler", `") || true || ("`, `\`, `\"`, "\x00", "a\nb", "\xff\xfe", `\x41`, "日本", `"`, ""} {
		f.Add(s, s, s, s)
	}
	f.Fuzz(func(t *testing.T, word, tag, notTag, creator string) {
		fuzzed := Query{Creator: creator, Words: []string{word, "x"}, Tags: []string{tag}, NotTags: []string{notTag}, Visibility: word}
		plain := Query{Creator: "c", Words: []string{"w", "x"}, Tags: []string{"t"}, NotTags: []string{"n"}, Visibility: "v"}
		if creator == "" {
			plain.Creator = ""
		}
		if word == "" {
			plain.Visibility = "" // an empty visibility is no condition
		}
		out := fuzzed.Compile()
		lits, skeleton, err := lex(out)
		if err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		_, want, _ := lex(plain.Compile())
		if skeleton != want {
			t.Fatalf("structure changed:\n%s\nwant\n%s", skeleton, want)
		}
		values := []string{word, "x", tag, tag + "/", notTag, notTag + "/"}
		if word != "" {
			values = append(values, word)
		}
		if creator != "" {
			values = append([]string{creator}, values...)
		}
		if len(lits) != len(values) {
			t.Fatalf("%d literals, want %d", len(lits), len(values))
		}
		for i, v := range values {
			if utf8.ValidString(v) && lits[i] != v {
				t.Errorf("literal %d decodes to %q, want %q", i, lits[i], v)
			}
		}
	})
}

// lex reads a filter as CEL's lexer would: it returns its string literals
// decoded, and the filter with each literal replaced by "". It knows the
// escapes of CEL's grammar and refuses a raw control character or an
// unterminated literal.
func lex(s string) (lits []string, skeleton string, err error) {
	var sk strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '"' {
			if c == '\'' {
				return nil, "", errors.New("single-quoted literal")
			}
			sk.WriteByte(c)
			continue
		}
		var lit strings.Builder
		i++
		for ; ; i++ {
			if i >= len(s) {
				return nil, "", errors.New("unterminated literal")
			}
			c := s[i]
			if c == '"' {
				break
			}
			if c < 0x20 || c == 0x7f {
				return nil, "", errors.New("raw control character in a literal")
			}
			if c != '\\' {
				lit.WriteByte(c)
				continue
			}
			i++
			if i >= len(s) {
				return nil, "", errors.New("escape at the end")
			}
			switch e := s[i]; e {
			case '\\', '"', '\'', '`', '?':
				lit.WriteByte(e)
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case 'r':
				lit.WriteByte('\r')
			case 'x':
				if i+2 >= len(s) {
					return nil, "", errors.New("short \\x escape")
				}
				n, perr := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if perr != nil {
					return nil, "", errors.New("bad \\x escape")
				}
				lit.WriteByte(byte(n))
				i += 2
			default:
				return nil, "", errors.New("unknown escape \\" + string(e))
			}
		}
		lits = append(lits, lit.String())
		sk.WriteString(`""`)
	}
	return lits, sk.String(), nil
}
