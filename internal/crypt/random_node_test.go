//go:build !js

package crypt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRandom again, built for js/wasm and run under Node, whose
// crypto.getRandomValues refuses more than 65,536 bytes at once, as
// Workers' does.
func TestRandomUnderNode(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	execer := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	cmd := exec.Command("go", "test", "-count=1", "-v", "-timeout=2m", "-exec", execer, "-run", "^TestRandom$", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	// go_js_wasm_exec runs the node on PATH: the repository's pinned one
	// (`make test` installs it) when there is one.
	if pinned, err := filepath.Abs("../../node_modules/.bin"); err == nil {
		if _, err := os.Stat(filepath.Join(pinned, "node")); err == nil {
			cmd.Env = append(cmd.Env, "PATH="+pinned+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRandom") {
		t.Fatalf("TestRandom in js/wasm: %v\n%s", err, out)
	}
}
