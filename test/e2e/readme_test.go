//go:build e2e

package e2e

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the README text under a heading (given with its #s), up
// to the next heading.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	if end := nextHeading.FindStringIndex(rest); end != nil {
		return rest[:end[0]]
	}
	return rest
}

// nextHeading finds a heading of the second level or below; a line "# …"
// inside a shell block is a comment.
var nextHeading = regexp.MustCompile(`\n##+ `)

var shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// The README's shell session runs as written against a real Worker and
// Memos, and shows what it says it shows.
func TestReadmeShellSession(t *testing.T) {
	block := shellBlock.FindStringSubmatch(section(t, readme(t), "### Testing from a shell"))
	if block == nil {
		t.Fatal("no sh block in the section")
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block[1])
	cmd.Env = append(os.Environ(), "MCP_URL="+worker.URL+"/mcp", "TOKEN="+memos.Token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"protocolVersion":"2025-11-25"`,        // initialize
		`"name":"memo_list_memos"`,              // tools/list
		`"structuredContent":{"memos":`,         // the filtered list
		`"resultType":"complete"`,               // the 2026-07-28 call
		`"name":"users/` + memos.Username + `"`, // … of the current user
		`"status":"ok"`,                         // health
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), `"isError":true`) || strings.Contains(string(out), `"error":{`) {
		t.Errorf("a command failed:\n%s", out)
	}
}

var (
	codeSpan     = regexp.MustCompile("(?s)```[a-z]*\n.*?```|`[^`\n]+`")
	wranglerCall = regexp.MustCompile(`\bwrangler(?:\.js)?((?:\s+[a-z][a-z-]*)+)`)
)

// Every wrangler command the README and docs/ show exists: wrangler knows
// it (its --help succeeds offline). The make targets they show are checked
// by test/docs, which needs no wrangler.
func TestReadmeCommandsExist(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	wranglers := map[string]bool{}
	for _, p := range append([]string{filepath.Join(root, "README.md")}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range codeSpan.FindAllString(string(b), -1) {
			for _, m := range wranglerCall.FindAllStringSubmatch(code, -1) {
				wranglers[strings.Join(strings.Fields(m[1]), " ")] = true
			}
		}
	}
	if len(wranglers) < 4 {
		t.Fatalf("found too few wrangler commands: %v", wranglers)
	}
	node, args := harness.Wrangler(root)
	for command := range wranglers {
		cmd := exec.Command(node, append(append(args, strings.Fields(command)...), "--help")...)
		cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), strings.Fields(command)[0]) {
			t.Errorf("the docs show `wrangler %s`, which wrangler does not know: %v\n%s", command, err, out)
		}
	}
	t.Logf("checked wrangler %v", slices.Sorted(maps.Keys(wranglers)))
}
