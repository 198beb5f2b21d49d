package docs

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/prompts"
)

// promptArguments returns each prompt's argument names, as prompts/list
// gives them to a caller served every tool.
func promptArguments(t *testing.T) map[string][]string {
	t.Helper()
	var list struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(prompts.New(nil).ListJSON(func(string) bool { return true }), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range list.Prompts {
		out[p.Name] = []string{}
		for _, a := range p.Arguments {
			out[p.Name] = append(out[p.Name], a.Name)
		}
	}
	if len(out) < 4 {
		t.Fatalf("prompts/list gives only %v", out)
	}
	return out
}

var (
	argumentOf    = regexp.MustCompile("`([a-z_]+)`'s `([a-z_]+)`")
	namedArgument = regexp.MustCompile("`([a-z_]+)` argument")
	promptRow     = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([^|]*) \\|")
	lowerSpan     = regexp.MustCompile("`([a-z_]+)`")
)

// Every prompt argument the pages name is one the prompt has: "`capture`'s
// `tags`" anywhere, an "`x` argument" in the README's paragraph on prompts
// (of the prompt named last before it), and the arguments column of
// docs/resources.md's table of prompts, which names every argument.
func TestPromptArguments(t *testing.T) {
	args := promptArguments(t)
	has := func(where, prompt, arg string) {
		if list, ok := args[prompt]; ok && !slices.Contains(list, arg) {
			t.Errorf("%s names the argument %q of prompt %s, which has %v", where, arg, prompt, list)
		}
	}
	seen := 0
	for _, p := range pages(t) {
		text := strings.Join(strings.Fields(p.text), " ")
		for _, m := range argumentOf.FindAllStringSubmatch(text, -1) {
			seen++
			has(p.path, m[1], m[2])
		}
	}
	readme := pages(t)[0].text
	_, section, _ := strings.Cut(readme, "\n### Memos as resources, and prompts\n")
	section, _, _ = strings.Cut(section, "\n#")
	section = strings.Join(strings.Fields(section), " ")
	for _, at := range namedArgument.FindAllStringSubmatchIndex(section, -1) {
		prompt := ""
		for _, m := range lowerSpan.FindAllStringSubmatch(section[:at[0]], -1) {
			if _, ok := args[m[1]]; ok {
				prompt = m[1]
			}
		}
		if prompt == "" {
			t.Errorf("README.md names the argument %q before any prompt", section[at[2]:at[3]])
		}
		seen++
		has("README.md", prompt, section[at[2]:at[3]])
	}
	doc := pageText(t, "docs/resources.md")
	rows := 0
	for _, m := range promptRow.FindAllStringSubmatch(doc, -1) {
		list, ok := args[m[1]]
		if !ok {
			continue
		}
		rows++
		var named []string
		for _, span := range lowerSpan.FindAllStringSubmatch(m[2], -1) {
			named = append(named, span[1])
			has("docs/resources.md's table", m[1], span[1])
		}
		for _, a := range list {
			if !slices.Contains(named, a) {
				t.Errorf("docs/resources.md's table does not name the argument %q of prompt %s", a, m[1])
			}
		}
	}
	if rows != len(args) || seen < 3 {
		t.Errorf("docs/resources.md's table has %d rows of the %d prompts; the pages name %d arguments elsewhere", rows, len(args), seen)
	}
}

// pageText returns the text of the page at path.
func pageText(t *testing.T, path string) string {
	t.Helper()
	for _, p := range pages(t) {
		if p.path == path {
			return p.text
		}
	}
	t.Fatalf("no page %s", path)
	return ""
}
