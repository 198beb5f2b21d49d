package registry

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// identifier matches what a description can only mean as a name: a
// camelCase or snake_case word, or a dotted path of them.
var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)

func isIdentifier(w string) bool {
	if strings.Contains(w, ".") && len(w) <= 3 {
		return false // e.g, i.e
	}
	if strings.ContainsAny(w, "_.") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i-1] >= 'a' && w[i-1] <= 'z' && w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

// answerMembers are the members of the answers of tools with no output
// schema that their descriptions name; package finder's tests
// (TestSearchHits, TestSearchComments, TestSearchDescription) hold the
// answers to them.
var answerMembers = map[string][]string{
	"memo_search": {"nextPageToken", "inComments"},
}

// byList finds a description's "by a, b, c" claims: the criteria a tool
// says it finds or orders by, up to the end of the clause.
var byList = regexp.MustCompile(`\bby (\w+(?:(?:, | and | or )\w+)*)`)

// sentence splits a description where a sentence or a clause ends.
var sentence = regexp.MustCompile(`[.;:] `)

// Every name a description gives (a tool's, an argument's, a member of its
// answer) is one the tool has in that release: no description promises an
// argument the schema lacks, a tool the release does not serve, or an
// answer member that is not there. The fields of Memos' filter and order
// languages, which the filter and orderBy arguments describe, are facts
// about Memos rather than about the tool and are not checked here.
func TestDescriptionsNameWhatTheToolHas(t *testing.T) {
	everyTool := map[string]bool{}
	for _, r := range Releases() {
		for _, tool := range r.catalog() {
			everyTool[tool.Name] = true
		}
	}
	for _, r := range Releases() {
		s, err := Select(false, nil)
		if err != nil {
			t.Fatal(err)
		}
		list := gjson.ParseBytes(s.In(r).Full().ListJSON()).Array()
		defs, arguments := map[string]gjson.Result{}, map[string]bool{}
		for _, d := range list {
			defs[d.Get("name").Str] = d
			for p := range propertyNames(d.Get("inputSchema")) {
				arguments[p] = true
			}
		}
		for _, d := range list {
			name := d.Get("name").Str
			in, out := propertyNames(d.Get("inputSchema")), propertyNames(d.Get("outputSchema"))
			enums := map[string]bool{}
			walk(d.Get("inputSchema"), func(_ string, v gjson.Result) {
				for _, e := range v.Get("enum").Array() {
					enums[e.Str] = true
				}
			})
			check := func(where, text string) {
				for _, sentence := range sentence.Split(text, -1) {
					// A name in a sentence that names another tool may be
					// that tool's: "memo_update_memo with body.state".
					about, subject := d, d
					for _, w := range identifier.FindAllString(sentence, -1) {
						w = strings.TrimRight(w, ".")
						switch other, ok := defs[w]; {
						case !isIdentifier(w), enums[w], in[w], out[w], slices.Contains(answerMembers[name], w):
						case ok:
							about = other
							if subject.Get("name").Str == name {
								subject = other
							}
						case everyTool[w]:
							t.Errorf("%s %s: %s names %s, which this release does not serve", r.Version, name, where, w)
						case hasPath(about.Get("inputSchema"), w):
						default:
							t.Errorf("%s %s: %s names %s, which the tool has neither as an argument nor in its answer", r.Version, name, where, w)
						}
					}
					has := propertyNames(subject.Get("inputSchema"))
					for _, m := range byList.FindAllStringSubmatch(sentence, -1) {
						for _, w := range strings.FieldsFunc(m[1], func(c rune) bool { return c == ',' || c == ' ' }) {
							if arguments[w] && !has[w] {
								t.Errorf("%s %s: %s says %s goes by %s, an argument of other tools that it lacks", r.Version, name, where, subject.Get("name").Str, w)
							}
						}
					}
				}
			}
			check("its description", d.Get("description").Str)
			walk(d.Get("inputSchema"), func(path string, v gjson.Result) {
				key := path[strings.LastIndexByte(path, '.')+1:]
				if v.IsObject() && v.Get("description").Type == gjson.String && key != "filter" && key != "orderBy" {
					check("the description of "+key, v.Get("description").Str)
				}
			})
		}
	}
}

// propertyNames returns the names of every property a schema declares,
// its $defs' included.
func propertyNames(schema gjson.Result) map[string]bool {
	names := map[string]bool{}
	walk(schema, func(_ string, v gjson.Result) {
		v.Get("properties").ForEach(func(p, _ gjson.Result) bool { names[p.Str] = true; return true })
	})
	return names
}

// hasPath reports whether a dotted path (body.reaction.contentId) leads
// through a schema's properties, following its $refs to $defs.
func hasPath(schema gjson.Result, path string) bool {
	if !strings.Contains(path, ".") {
		return false
	}
	at := schema
	for _, step := range strings.Split(path, ".") {
		if ref := at.Get(`\$ref`).Str; strings.HasPrefix(ref, "#/$defs/") {
			at = schema.Get(`\$defs`).Get(gjson.Escape(strings.TrimPrefix(ref, "#/$defs/")))
		}
		at = at.Get("properties").Get(gjson.Escape(step))
		if !at.Exists() {
			return false
		}
	}
	return true
}
