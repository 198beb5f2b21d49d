package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The configurations `make dev` prints are the ones the README shows, value
// for value, for the README's URL and token.
func TestClientConfigsMatchReadme(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []any
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(readme, -1) {
		var v any
		if err := json.Unmarshal(m[1], &v); err != nil {
			t.Fatalf("a JSON block of the README does not parse: %v\n%s", err, m[1])
		}
		shown = append(shown, v)
	}
	printed := clientConfigs("https://mcp.example.com/mcp", "Bearer memos_pat_…")
	blocks := jsonBlocks(t, printed)
	if len(blocks) != 2 {
		t.Fatalf("printed %d JSON configurations, want 2 (Cursor's and VS Code's):\n%s", len(blocks), printed)
	}
	for _, block := range blocks {
		var v any
		if err := json.Unmarshal([]byte(block), &v); err != nil {
			t.Fatalf("printed configuration does not parse: %v\n%s", err, block)
		}
		if !slices.ContainsFunc(shown, func(x any) bool { return reflect.DeepEqual(x, v) }) {
			t.Errorf("make dev prints a configuration the README does not show:\n%s", block)
		}
	}
	for _, line := range strings.Split(printed, "\n") {
		if cmd, ok := strings.CutPrefix(line, "  claude "); ok && !strings.Contains(string(readme), "`claude "+cmd+"`") {
			t.Errorf("make dev prints a Claude Code command the README does not show: claude %s", cmd)
		}
	}
}

// VS Code reads "servers"; the others "mcpServers".
func TestClientConfigsKeys(t *testing.T) {
	printed := clientConfigs("http://127.0.0.1:8787/mcp", "Bearer memos_pat_x")
	tests := []struct {
		name, label, key string
	}{
		{"cursor", "Cursor", "mcpServers"},
		{"vscode", "VS Code", "servers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, after, ok := strings.Cut(printed, "\n"+tt.label)
			if !ok {
				t.Fatalf("no %s configuration:\n%s", tt.label, printed)
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(jsonBlocks(t, after)[0]), &v); err != nil {
				t.Fatal(err)
			}
			if _, ok := v[tt.key]; !ok || len(v) != 1 {
				t.Errorf("%s configuration has keys %v, want only %q", tt.label, reflect.ValueOf(v).MapKeys(), tt.key)
			}
		})
	}
}

// Without a token the printout shows a placeholder a person can read, not
// JSON's \u003c escapes of "<" and ">".
func TestPrintConnectionPlaceholder(t *testing.T) {
	var b strings.Builder
	printConnection(&b, "http://127.0.0.1:8787/mcp", "https://memos.example.com", "", "", "")
	out := b.String()
	if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u003e`) {
		t.Errorf("the printout escapes < and >:\n%s", out)
	}
	if !strings.Contains(out, `"Authorization": "Bearer <a personal access token of your Memos user>"`) {
		t.Errorf("no readable placeholder in the configuration:\n%s", out)
	}
}

// jsonBlocks returns the JSON documents of a printout: from a line "{" to
// the next line "}".
func jsonBlocks(t *testing.T, s string) []string {
	t.Helper()
	var blocks []string
	for {
		_, rest, ok := strings.Cut(s, "\n{\n")
		if !ok {
			return blocks
		}
		body, after, ok := strings.Cut(rest, "\n}\n")
		if !ok {
			t.Fatalf("an unterminated JSON block:\n%s", rest)
		}
		blocks, s = append(blocks, "{\n"+body+"\n}"), "\n"+after
	}
}

// make dev passes every setting of the README's configuration table from
// its environment (MEMOS_URL chooses between a local Memos and yours).
func TestForwardsEverySetting(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "| name | default | meaning |")
	names := regexp.MustCompile("(?m)^\\| `([A-Z_]+)`").FindAllStringSubmatch(table, -1)
	if len(names) < 10 {
		t.Fatalf("found %d settings in the README's configuration table", len(names))
	}
	for _, m := range names {
		if m[1] != "MEMOS_URL" && !slices.Contains(forwarded, m[1]) {
			t.Errorf("make dev does not pass %s from its environment", m[1])
		}
	}
}

func TestOAuthWanted(t *testing.T) {
	for _, tc := range []struct {
		value   string
		on, bad bool
	}{{"", false, false}, {"1", true, false}, {"true", true, false}, {"yes", false, true}, {"0", false, true}} {
		t.Run(tc.value, func(t *testing.T) {
			on, err := oauthWanted(tc.value)
			if on != tc.on || (err != nil) != tc.bad {
				t.Errorf("oauthWanted(%q) = %t, %v", tc.value, on, err)
			}
		})
	}
}

func TestSetsVar(t *testing.T) {
	file := []byte("# a comment\nOAUTH_SECRET_PREVIOUS=x\n TOOLS = memo_\n")
	for name, want := range map[string]bool{"OAUTH_SECRET": false, "OAUTH_SECRET_PREVIOUS": true, "TOOLS": true} {
		if got := setsVar(file, name); got != want {
			t.Errorf("setsVar(%s) = %t, want %t", name, got, want)
		}
	}
}

// The banner shows the status /healthz reports and each problem in it.
func TestPrintHealth(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"ok", `{"status":"ok","upstream":{"reachable":true,"memosVersion":"dev"},"registry":{"memosVersion":"v0.30.0","tools":20}}`,
			[]string{"Health:    ok: Memos answers (version dev); 20 tools, built for Memos v0.30.0\n"}},
		{"misconfigured", `{"status":"misconfigured","errors":["READ_ONLY \"yes\" is not true or false","TOOLS entry \"x\" matches no tool"]}`,
			[]string{"Health:    misconfigured: /mcp answers 503 until you fix this:\n", "           - READ_ONLY \"yes\" is not true or false\n", "           - TOOLS entry \"x\" matches no tool\n"}},
		{"degraded", `{"status":"degraded","upstream":{"reachable":false,"problem":"the Memos instance cannot be reached"}}`,
			[]string{"Health:    degraded: the Memos instance cannot be reached\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h health
			if err := json.Unmarshal([]byte(tc.body), &h); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			printHealth(&b, h)
			for _, want := range tc.want {
				if !strings.Contains(b.String(), want) {
					t.Errorf("printed\n%s\nwant a line %q", b.String(), want)
				}
			}
		})
	}
}

// The command make dev OAUTH=1 prints to try the consent page is the one
// docs/oauth.md shows.
func TestOAuthCommandMatchesDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/oauth.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	printOAuth(&b, true, "http://127.0.0.1:8787/mcp", true)
	var command string
	for _, line := range strings.Split(b.String(), "\n") {
		if c := strings.TrimSpace(line); strings.HasPrefix(c, "npx ") {
			command = c
		}
	}
	if command == "" || !strings.Contains(string(doc), "\n"+command+"\n") {
		t.Errorf("make dev OAUTH=1 prints a command docs/oauth.md does not show: %q", command)
	}
}

// make dev refuses, before it starts anything, an ALLOWED_HOSTS under which
// its own address would answer 403, with what to write instead.
func TestHostsServed(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string // want: "" = served
	}{
		{"unset", "", ""},
		{"loopback names", "localhost,127.0.0.1,[::1]", ""},
		{"a URL", "http://127.0.0.1:8787/", `ALLOWED_HOSTS entry "http://127.0.0.1:8787/" is a URL: write the host name alone, 127.0.0.1`},
		{"a deployment's host only", "mcp.example.com", "ALLOWED_HOSTS does not list 127.0.0.1, the host make dev serves on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := hostsServed(tc.raw)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("hostsServed(%q) = %v, want %q", tc.raw, err, tc.want)
			}
		})
	}
}

// A part that ends on its own is named, with where its log is and the end
// of it.
func TestExited(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, ".wrangler", "dev-8787", "memos.log")
	os.MkdirAll(filepath.Dir(log), 0o755)
	var lines []string
	for i := 1; i <= 15; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	msg := exited("the local Memos", errors.New("signal: killed"), root, log).Error()
	for _, want := range []string{"the local Memos ended on its own (signal: killed), and make dev cannot go on without it", "(.wrangler/dev-8787/memos.log):\n  line 6\n", "\n  line 15\nStopping everything: run make dev again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q, want %q", msg, want)
		}
	}
	if strings.Contains(msg, "line 5\n") {
		t.Errorf("message %q shows more than the log's last 10 lines", msg)
	}
}

// With a token of the local Memos, the banner says it is new on every run:
// configurations pasted from an earlier run stop working.
func TestPrintConnectionTokenNote(t *testing.T) {
	var b strings.Builder
	printConnection(&b, "http://127.0.0.1:8787/mcp", "http://127.0.0.1:5230", "username admin, password x", "", "memos_pat_x")
	if !strings.Contains(b.String(), "Token:     memos_pat_x\n           (new on every run") {
		t.Errorf("no note that the token changes every run:\n%s", b.String())
	}
	// The Inspector's line carries the token, and the banner names what a
	// client that sends none meets.
	if !strings.Contains(b.String(), `--method tools/list --header "Authorization: Bearer memos_pat_x"`) || !strings.Contains(b.String(), "its first tool call answers\n401 Unauthorized") {
		t.Errorf("no Inspector line with the token, or no word of a client without one:\n%s", b.String())
	}
}
