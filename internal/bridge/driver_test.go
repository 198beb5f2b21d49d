//go:build !js

package bridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The exported-function bridge, run for real: testdata/prog built for
// js/wasm, driven by driver.mjs under Node (testdata/driver_test.mjs holds
// the checks): requests and answers cross whole, a panic is a 500, upstream
// requests run one after another and side by side, 64 requests at once
// interleave, a lock held across a fetch, and a client that goes away. The
// wasm is packed as `make build` packs the Worker's: the driver restores its
// data, or the program could not even start.
func TestDriver(t *testing.T) {
	dir := t.TempDir()
	goTool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	run := func(name string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The runtime assets first: workers-assets-gen empties its folder.
	run(goTool, nil, "tool", "workers-assets-gen", "-mode=go", "-o", dir)
	prog := filepath.Join(dir, "prog.wasm")
	run(goTool, []string{"GOOS=js", "GOARCH=wasm"}, "build", "-o", prog, "./testdata/prog")
	run(goTool, nil, "run", "./pack", prog) // as `make build` packs the Worker's
	driver, err := os.ReadFile("driver.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), driver, 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(node(t), nil, "testdata/driver_test.mjs", dir)
	if !strings.HasPrefix(out, "ok ") {
		t.Fatalf("driver_test.mjs: %s", out)
	}
	t.Log(strings.TrimSpace(out))
}

// node returns the pinned Node of the repository's node_modules (`make test`
// installs it), or the machine's.
func node(t *testing.T) string {
	t.Helper()
	pinned, err := filepath.Abs("../../node_modules/.bin/node")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pinned); err == nil {
		return pinned
	}
	path, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("no Node: run `make test`, which installs it, or put node on PATH")
	}
	return path
}
