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

// section returns the README text under a "## " heading, up to the next one.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	return body
}

var shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// The README's shell session runs as written against a real Worker and
// Memos, and shows what it says it shows.
func TestReadmeShellSession(t *testing.T) {
	block := shellBlock.FindStringSubmatch(section(t, readme(t), "Testing from a shell"))
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
	makeCommand  = regexp.MustCompile(`\bmake\s+([a-z][a-z-]*)`)
	wranglerCall = regexp.MustCompile(`\bwrangler(?:\.js)?((?:\s+[a-z][a-z-]*)+)`)
	makeTarget   = regexp.MustCompile(`(?m)^([a-z][a-z-]*):`)
)

// Every make target and wrangler command the README shows exists: make
// knows the target, and wrangler knows the command (its --help succeeds
// offline).
func TestReadmeCommandsExist(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range makeTarget.FindAllStringSubmatch(string(mk), -1) {
		targets = append(targets, m[1])
	}
	makes, wranglers := map[string]bool{}, map[string]bool{}
	for _, code := range codeSpan.FindAllString(readme(t), -1) {
		for _, m := range makeCommand.FindAllStringSubmatch(code, -1) {
			makes[m[1]] = true
		}
		for _, m := range wranglerCall.FindAllStringSubmatch(code, -1) {
			wranglers[strings.Join(strings.Fields(m[1]), " ")] = true
		}
	}
	if len(makes) < 4 || len(wranglers) < 2 {
		t.Fatalf("found too few commands: make %v, wrangler %v", makes, wranglers)
	}
	for target := range makes {
		if !slices.Contains(targets, target) {
			t.Errorf("README shows `make %s`, which the Makefile does not have", target)
		}
	}
	node, args := harness.Wrangler(root)
	for command := range wranglers {
		cmd := exec.Command(node, append(append(args, strings.Fields(command)...), "--help")...)
		cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), strings.Fields(command)[0]) {
			t.Errorf("README shows `wrangler %s`, which wrangler does not know: %v\n%s", command, err, out)
		}
	}
	t.Logf("checked make %v and wrangler %v", slices.Sorted(maps.Keys(makes)), slices.Sorted(maps.Keys(wranglers)))
}

// Every row of a README table has the header's number of cells: a row
// pasted into the wrong table, or a cell split by a stray "|", shows.
func TestReadmeTables(t *testing.T) {
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
	want := 0
	for i, line := range strings.Split(readme(t), "\n") {
		if !strings.HasPrefix(line, "|") {
			want = 0
			continue
		}
		if want == 0 {
			want = cells(line)
		} else if got := cells(line); got != want {
			t.Errorf("README line %d has %d cells, its table %d: %s", i+1, got, want, line)
		}
	}
}
