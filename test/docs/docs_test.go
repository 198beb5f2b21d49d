// Package docs holds the tests that keep the README and the pages of docs/
// true to the code: the commands they show exist, the configuration table
// names what the configuration reads, their links resolve, and they read as
// documentation, not as a log of work.
package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
)

const root = "../.."

// maxReadmeLines keeps the README short enough to read before trying.
const maxReadmeLines = 300

// page is a user-facing Markdown file, by its path from the repository root.
type page struct {
	path, text string
}

// pages returns the README and every page of docs/.
func pages(t *testing.T) []page {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append([]string{filepath.Join(root, "README.md")}, paths...)
	var out []page
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, page{filepath.ToSlash(rel), string(b)})
	}
	if len(out) < 2 {
		t.Fatalf("found only %v", paths)
	}
	return out
}

var (
	codeBlock   = regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```")
	codeSpan    = regexp.MustCompile("(?s)```[a-z]*\n.*?```|`[^`\n]+`")
	makeCommand = regexp.MustCompile(`\bmake\s+([a-z][a-z-]*)`)
	helpLine    = regexp.MustCompile(`(?m)^\s+([a-z][a-z-]*)\s+(.*)$`)
)

// makeHelp returns the targets `make help` lists, with their descriptions.
func makeHelp(t *testing.T) map[string]string {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-s", "help")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	targets := map[string]string{}
	for _, m := range helpLine.FindAllStringSubmatch(string(out), -1) {
		targets[m[1]] = m[2]
	}
	if len(targets) < 5 {
		t.Fatalf("make help lists too few targets:\n%s", out)
	}
	return targets
}

// Every `make <target>` a page shows is a target `make help` lists.
func TestMakeTargetsExist(t *testing.T) {
	targets := makeHelp(t)
	seen := 0
	for _, p := range pages(t) {
		for _, code := range codeSpan.FindAllString(p.text, -1) {
			for _, m := range makeCommand.FindAllStringSubmatch(code, -1) {
				seen++
				if _, ok := targets[m[1]]; !ok {
					t.Errorf("%s shows `make %s`, which `make help` does not list", p.path, m[1])
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("found only %d make commands in the pages", seen)
	}
}

// A duration the pages give ("about 15 minutes on 2 cores") is the one
// `make help` gives the target named last before it, and the pages say how
// long the targets a person waits for take: make bench in its report, make
// unit and make test in the README.
func TestDurations(t *testing.T) {
	duration := regexp.MustCompile(`\b(about (\d+|a)|a few) minutes?( on \d+ cores)?`)
	help := map[string]string{}
	for target, line := range makeHelp(t) {
		if d := duration.FindString(line); d != "" {
			help[target] = d
		}
	}
	for _, target := range []string{"bench", "memos", "test", "unit"} {
		if help[target] == "" {
			t.Errorf("make help gives no duration for %s", target)
		}
	}
	said := map[string][]string{} // target: the pages that say how long it takes
	for _, p := range pages(t) {
		text := strings.Join(strings.Fields(p.text), " ")
		for _, at := range duration.FindAllStringIndex(text, -1) {
			named := makeCommand.FindAllStringSubmatch(text[:at[0]], -1)
			if len(named) == 0 {
				t.Errorf("%s says %q before naming a make target", p.path, text[at[0]:at[1]])
				continue
			}
			target := named[len(named)-1][1]
			if got := text[at[0]:at[1]]; got != help[target] {
				t.Errorf("%s says make %s takes %q, make help %q", p.path, target, got, help[target])
			}
			said[target] = append(said[target], p.path)
		}
	}
	for target, page := range map[string]string{"bench": "docs/benchmarks.md", "test": "README.md", "unit": "README.md"} {
		if !slices.Contains(said[target], page) {
			t.Errorf("%s does not say how long make %s takes", page, target)
		}
	}
}

// The README stays short enough to read before trying.
func TestReadmeLength(t *testing.T) {
	readme := pages(t)[0]
	if n := strings.Count(readme.text, "\n"); n >= maxReadmeLines {
		t.Errorf("README.md has %d lines, want fewer than %d: move detail to docs/", n, maxReadmeLines)
	}
}

var (
	tableName = regexp.MustCompile("^\\| `([A-Z][A-Z0-9_]+)`")
	getenvKey = regexp.MustCompile(`getenv(?:\(|, )"([A-Z][A-Z0-9_]+)"`)
)

// The README's configuration table names every setting the configuration
// reads, and nothing else.
func TestConfigurationTable(t *testing.T) {
	_, rest, ok := strings.Cut(pages(t)[0].text, "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no section Configuration")
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var table []string
	for _, line := range strings.Split(rest, "\n") {
		if m := tableName.FindStringSubmatch(line); m != nil {
			table = append(table, m[1])
		}
	}
	read := configKeys(t)
	for _, name := range table {
		if !slices.Contains(read, name) {
			t.Errorf("the README's configuration table shows %s, which internal/config does not read", name)
		}
	}
	for _, name := range read {
		if !slices.Contains(table, name) {
			t.Errorf("internal/config reads %s, which the README's configuration table does not show", name)
		}
	}
}

// configKeys returns the names internal/config reads: those its loaders ask
// for, and those its source passes to getenv (a name read only on some path).
func configKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	record := func(name string) string {
		if !slices.Contains(keys, name) {
			keys = append(keys, name)
		}
		return ""
	}
	config.Load(record, func(string) bool { return false })
	config.LoadToolChoice(record)
	sources, err := filepath.Glob(filepath.Join(root, "internal", "config", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range sources {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range getenvKey.FindAllStringSubmatch(string(b), -1) {
			record(m[1])
		}
	}
	if len(keys) < 10 {
		t.Fatalf("found only %v", keys)
	}
	return keys
}

var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link resolves: to a file, and to one of its headings when it
// names one.
func TestLinks(t *testing.T) {
	anchors := map[string][]string{}
	all := pages(t)
	for _, p := range all {
		anchors[p.path] = headingAnchors(p.text)
	}
	for _, p := range all {
		for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(p.text, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = p.path
			} else {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(p.path), file))
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					t.Errorf("%s links to %s, which does not exist", p.path, target)
					continue
				}
			}
			if anchor != "" && !slices.Contains(anchors[file], anchor) {
				t.Errorf("%s links to %s, but %s has no heading %q (it has %v)", p.path, target, file, anchor, anchors[file])
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lower case, spaces as hyphens, punctuation dropped.
func headingAnchors(text string) []string {
	var out []string
	for _, line := range strings.Split(codeBlock.ReplaceAllString(text, ""), "\n") {
		heading := strings.TrimLeft(line, "#")
		if heading == line || !strings.HasPrefix(heading, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case r == ' ' || r == '-':
				b.WriteRune('-')
			case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

var (
	// A commit: 7 to 40 hexadecimal digits, with a letter and a digit among
	// them (a plain number such as 1048576 is not one).
	hexRun    = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	diaryWord = regexp.MustCompile(`(?i)\b(sessions?|afternoon|morning)\b`)
)

// Pages describe the project as it is: no commit hashes and no diary of the
// work ("this session", "the afternoon's runs"). A protocol name in code,
// such as the header `Mcp-Session-Id`, is not prose.
func TestNoHistory(t *testing.T) {
	for _, p := range pages(t) {
		for _, run := range hexRun.FindAllString(p.text, -1) {
			if strings.ContainsAny(run, "abcdef") && strings.ContainsAny(run, "0123456789") {
				t.Errorf("%s names what looks like a commit: %s", p.path, run)
			}
		}
		for _, w := range diaryWord.FindAllString(codeSpan.ReplaceAllString(p.text, ""), -1) {
			t.Errorf("%s says %q: describe the project as it is, not the work on it", p.path, w)
		}
	}
}

// The pages call wrangler one way, `npx wrangler`, the pinned one; deploying
// is `npx wrangler deploy`, never `make deploy` too.
func TestOneWayToCallWrangler(t *testing.T) {
	other := regexp.MustCompile(`node_modules/\.bin/node|wrangler\.js|\bmake deploy\b`)
	bare := regexp.MustCompile(`(^|[^\w-])(\w+ )?wrangler (login|deploy|secret|tail|whoami|dev)\b`)
	for _, p := range pages(t) {
		for _, code := range codeSpan.FindAllString(p.text, -1) {
			if m := other.FindString(code); m != "" {
				t.Errorf("%s calls wrangler through %q: use npx wrangler", p.path, m)
			}
		}
		var commands []string // what a reader types: the README's code, and sh blocks
		for _, m := range codeBlock.FindAllStringSubmatch(p.text, -1) {
			if m[1] == "sh" {
				commands = append(commands, m[2])
			}
		}
		if p.path == "README.md" {
			commands = append(commands, codeSpan.FindAllString(p.text, -1)...)
		}
		for _, code := range commands {
			for _, m := range bare.FindAllStringSubmatch(code, -1) {
				if m[2] != "npx " {
					t.Errorf("%s shows %q: call it as npx wrangler", p.path, strings.TrimSpace(m[0]))
				}
			}
		}
	}
}

// Every row of a table has the header's number of cells: a row pasted into
// the wrong table, or a cell split by a stray "|", shows.
func TestTables(t *testing.T) {
	cells := func(row string) int {
		n, code := 0, false
		for i := 0; i < len(row); i++ {
			switch {
			case row[i] == '`':
				code = !code
			case row[i] == '\\':
				i++ // an escaped character, "\|" among them
			case row[i] == '|' && !code:
				n++
			}
		}
		return n - 1
	}
	for _, p := range pages(t) {
		want := 0
		for i, line := range strings.Split(p.text, "\n") {
			if !strings.HasPrefix(line, "|") {
				want = 0
				continue
			}
			if want == 0 {
				want = cells(line)
			} else if got := cells(line); got != want {
				t.Errorf("%s line %d has %d cells, its table %d: %s", p.path, i+1, got, want, line)
			}
		}
	}
}

// The security model names, for each promise, the tests that hold it: every
// test it names must exist, so that a promise cannot outlive its test.
func TestSecurityModelTestsExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(b), -1)
	if len(named) < 10 {
		t.Fatalf("docs/security.md names %d tests; its table should name the tests behind each promise", len(named))
	}
	defined := map[string]bool{}
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == "build" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case strings.HasSuffix(path, "_test.go"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range funcs.FindAllStringSubmatch(string(src), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !defined[m[1]] {
			t.Errorf("docs/security.md names %s, which no test file defines", m[1])
		}
	}
}

// The end-to-end tests run under an explicit timeout with room for a machine
// three times slower than make help's duration of make test, and short
// enough that a hung test fails well inside a CI job's 90 minutes (with
// Memos' first compile, three times slower too, before it); the page on
// the tests names it.
func TestEndToEndTimeout(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\t\$\(GO\) test -tags e2e .*-timeout \$\(E2E_TIMEOUT\) .*\./test/e2e/$`).Match(makefile) {
		t.Fatal("make test runs the end-to-end tests without -timeout $(E2E_TIMEOUT)")
	}
	m := regexp.MustCompile(`(?m)^E2E_TIMEOUT \?= (\d+)m$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no E2E_TIMEOUT in minutes")
	}
	timeout, _ := strconv.Atoi(string(m[1]))
	help := makeHelp(t)
	minutes := func(target string) int {
		m := regexp.MustCompile(`about (\d+) minutes`).FindStringSubmatch(help[target])
		if m == nil {
			t.Fatalf("make help gives %s no duration in minutes: %q", target, help[target])
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if test, memos := minutes("test"), minutes("memos"); timeout < 3*test || 3*memos+timeout > 80 {
		t.Errorf("E2E_TIMEOUT is %d minutes, make test takes about %d and Memos' compile about %d: want at least three times make test's, and a hung test failed well inside 90 minutes", timeout, test, memos)
	}
	dev, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dev), "`go test -timeout "+string(m[1])+"m`") {
		t.Errorf("docs/development.md does not name the end-to-end tests' timeout, %sm", m[1])
	}
}

// The first compile of Memos (under make dev or make test) says what it
// does and how long it takes, as make help gives it.
func TestMemosCompileSaysHowLong(t *testing.T) {
	cmd := exec.Command("make", "--no-print-directory", "-n", "memos", "MEMOS_CACHE="+t.TempDir())
	cmd.Dir = root
	// make unit exports MEMOS_BIN, which would name the server built already.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MEMOS_BIN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -n memos: %v", err)
	}
	took := regexp.MustCompile(`about \d+ minutes on \d+ cores`).FindString(makeHelp(t)["memos"])
	if took == "" || !regexp.MustCompile(`(?m)^echo "Compiling Memos v[0-9.]+ into .*`+took+`\.?"$`).Match(out) {
		t.Errorf("make memos does not say that it compiles Memos and that it takes %q:\n%s", took, out)
	}
}
