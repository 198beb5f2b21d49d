//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	// conformanceSuite is the official MCP conformance suite's command
	// (pinned in package.json).
	conformanceSuite = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	// expectedFailures lists the checks that need the suite's own fixtures or
	// a capability the server does not offer, each with its reason.
	expectedFailures = "test/conformance/expected-failures.yaml"
)

// The conformance suite runs every server scenario that the 2026-07-28 and the
// 2025-11-25 revisions require, at each revision's wire (stateless with _meta
// and MCP-* headers; initialize handshake). Its exit status decides: 0 when
// every failing check is listed in the expected-failures file and every listed
// check still fails.
func TestConformance(t *testing.T) {
	// The shared Worker answers only to loopback host names, as `make dev`
	// runs it, which the dns-rebinding-protection scenario checks.
	for _, revision := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(revision, func(t *testing.T) {
			runConformance(t, worker.URL+"/mcp", revision)
		})
	}
}

func runConformance(t *testing.T, url, revision string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out := t.TempDir()
	run := runNode(t, ctx, out, nil, conformanceSuite, "server",
		"--url", url,
		"--requirements", revision,
		"--expected-failures", filepath.Join(root, expectedFailures),
		"-o", out,
	)
	console := plain(append(run.stdout, run.stderr...))

	required, err := requiredScenarios(revision)
	if err != nil {
		t.Fatal(err)
	}
	results, err := readChecks(out)
	if err != nil {
		t.Fatal(err)
	}
	var scored, other tally
	for _, name := range required {
		checks, ok := results[name]
		if !ok {
			t.Errorf("required scenario %s left no results", name)
			continue
		}
		scored.add(checks)
	}
	for name, checks := range results {
		if !slices.Contains(required, name) {
			other.add(checks)
		}
	}
	t.Logf("conformance --requirements %s: %d required scenarios, %d of them with no failing check; their checks: %s",
		revision, len(required), scored.clean, scored)
	t.Logf("also run, not scored for %s (extensions, pending): %d scenarios; their checks: %s", revision, other.scenarios, other)
	if m := regexp.MustCompile(`(?m)^Total: .*$`).FindString(console); m != "" {
		t.Logf("the suite's own count over every scenario it ran: %s", m)
	}

	if run.code == 0 {
		return
	}
	t.Errorf("conformance suite exited with %d: a check failed that %s does not list, or a listed one now passes", run.code, expectedFailures)
	unexpected, stale := baselineReport(console)
	for _, entry := range unexpected {
		scenario, id, _ := strings.Cut(entry, ":")
		t.Errorf("unexpected failure %s\n%s", entry, describeCheck(results[scenario], id))
	}
	for _, entry := range stale {
		t.Errorf("now passes, remove it from %s: %s", expectedFailures, entry)
	}
	if len(unexpected) == 0 && len(stale) == 0 {
		t.Logf("suite output:\n%s", console)
	}
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// readChecks reads the results the suite wrote with -o: one folder per
// scenario, server-<scenario>-<timestamp>/checks.json.
func readChecks(out string) (map[string][]check, error) {
	folder := regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	results := map[string][]check{}
	for _, e := range entries {
		m := folder.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		results[m[1]] = append(results[m[1]], checks...)
	}
	return results, nil
}

// requiredScenarios reads the server scenarios a revision requires from the
// suite's frozen requirements/<revision>.yaml: the "- name" lines of its
// top-level server list.
func requiredScenarios(revision string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, "node_modules/@modelcontextprotocol/conformance/requirements", revision+".yaml"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "server:":
			in = true
		case in && strings.HasPrefix(line, "  - "):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  - "), "#")
			names = append(names, strings.TrimSpace(name))
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			in = false
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no server scenarios in the %s requirements", revision)
	}
	return names, sc.Err()
}

// baselineReport reads the suite's verdict on the expected-failures file:
// the "✗ entry" lines under "Unexpected failures" and the "✓ entry" lines
// under "Stale baseline entries".
func baselineReport(console string) (unexpected, stale []string) {
	var list *[]string
	for _, line := range strings.Split(console, "\n") {
		switch {
		case strings.HasPrefix(line, "Unexpected failures"):
			list = &unexpected
		case strings.HasPrefix(line, "Stale baseline entries"):
			list = &stale
		case list != nil && (strings.HasPrefix(line, "  ✗ ") || strings.HasPrefix(line, "  ✓ ")):
			*list = append(*list, strings.TrimSpace(line[len("  ✗ "):]))
		case strings.TrimSpace(line) != "":
			list = nil
		}
	}
	return unexpected, stale
}

// describeCheck prints what the suite recorded for the failing checks of a
// scenario (one check if id is set): message and details, which hold the
// request and response for the wire checks.
func describeCheck(checks []check, id string) string {
	var b strings.Builder
	for _, c := range checks {
		if (id != "" && c.ID != id) || (id == "" && c.Status != "FAILURE" && c.Status != "WARNING") {
			continue
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", c.Status, c.ID, c.ErrorMessage)
		if len(c.Details) > 0 {
			var pretty bytes.Buffer
			if json.Indent(&pretty, c.Details, "    ", "  ") == nil {
				d := pretty.String()
				if len(d) > 4000 {
					d = d[:4000] + " …"
				}
				fmt.Fprintf(&b, "    details: %s\n", d)
			}
		}
	}
	return b.String()
}

// tally counts check statuses over scenarios.
type tally struct {
	scenarios, clean int
	status           map[string]int
}

func (t *tally) add(checks []check) {
	if t.status == nil {
		t.status = map[string]int{}
	}
	t.scenarios++
	failed := false
	for _, c := range checks {
		t.status[c.Status]++
		failed = failed || c.Status == "FAILURE"
	}
	if !failed {
		t.clean++
	}
}

func (t tally) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.status)) {
		parts = append(parts, fmt.Sprintf("%s %d", strings.ToLower(k), t.status[k]))
	}
	return strings.Join(parts, ", ")
}
