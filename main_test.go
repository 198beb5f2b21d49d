package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
)

// The Worker's wasm links none of the build-time or heavy packages: the
// OpenAPI loader and YAML stay in the generator, net/http (about 1.2 MB
// gzip) stays in the native twin, and the general JSON Schema validator
// (a third of the wasm, 35 ms of every start) stays in the tests.
//
// The cryptography is golang.org/x/crypto's secretbox and BLAKE2b, and the
// runtime's own randomness and SHA-256: any of the standard library's
// crypto packages but crypto/subtle brings Go's FIPS 140 module (its
// self-tests keep AES, GCM, SHA-3, SHA-512 and a DRBG linked) and, through
// crypto/rand, os: about 110 KB of gzip and 60 ms of every cold start.
func TestWasmDependencies(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		imports[fields[0]] = fields[1:]
	}
	if len(imports) < 10 {
		t.Fatalf("suspiciously few dependencies: %v", imports)
	}
	// Packages the Worker does without, each for tens or hundreds of KB of
	// wasm: fmt, log and encoding/json (and the reflection they bring), os
	// (with the js file-system shim behind it), html (its escaper's
	// strings.Replacer), net/url, net/netip (with unique), math/rand.
	forbidden := []string{"fmt", "log", "encoding/json", "os", "html", "net/url", "net/netip", "unique", "math/rand", "net/http",
		"crypto/rand", "crypto/sha256", "crypto/cipher", "crypto/hmac", "crypto/hkdf", "crypto/internal/fips140", "crypto/internal/sysrand"}
	seen := map[string]bool{}
	var walk func(string)
	walk = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		if slices.Contains(forbidden, pkg) || strings.HasPrefix(pkg, "net/http/") || strings.HasPrefix(pkg, "crypto/internal/fips140/drbg") ||
			strings.Contains(pkg, "kin-openapi") || strings.Contains(strings.ToLower(pkg), "yaml") ||
			strings.Contains(pkg, "santhosh-tekuri/jsonschema") {
			t.Errorf("the wasm build links %s", pkg)
		}
		for _, dep := range imports[pkg] {
			walk(dep)
		}
	}
	walk("github.com/memos-mcp-edge/memos-mcp-edge")
	// The sealing primitives are golang.org/x/crypto's, not the project's
	// own.
	for _, want := range []string{"golang.org/x/crypto/nacl/secretbox", "golang.org/x/crypto/blake2b"} {
		if !seen[want] {
			t.Errorf("the wasm build does not use %s", want)
		}
	}
	// Functions of packages the wasm needs, left out for what they bring:
	// errors.As reads its target by reflection (internal/reflectlite's
	// values, 13 KB gzip; errors.AsType needs none), time.Parse and
	// ParseDuration are 16 KB gzip of parsing (dates and delays are read by
	// hand), and a general sort is 3.5 KB gzip for a stable one, more for
	// slices.Sort's pdqsort (the few things sorted are sorted by hand).
	funcs := linkedFuncs(t)
	if len(funcs) < 1000 {
		t.Fatalf("suspiciously few functions in the wasm: %d", len(funcs))
	}
	for _, name := range []string{"errors.As", "errors.as", "time.Parse", "time.parse", "time.ParseInLocation", "time.ParseDuration"} {
		if funcs[name] {
			t.Errorf("the wasm links %s", name)
		}
	}
	for name := range funcs {
		for _, prefix := range []string{"slices.pdqsort", "slices.stable", "slices.symMerge", "sort."} {
			if strings.HasPrefix(name, prefix) {
				t.Errorf("the wasm links %s (a general sort)", name)
			}
		}
	}
}

// linkedFuncs builds the Worker's wasm with its function names kept and
// returns the names, as the linker spells them (make wasmsize lists them).
func linkedFuncs(t *testing.T) map[string]bool {
	out := filepath.Join(t.TempDir(), "app.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := wasmbin.Sections(b)
	if err != nil {
		t.Fatal(err)
	}
	names := map[uint32]string{}
	for _, s := range sections {
		if s.ID == wasmbin.SectionCustom && s.Body.Name() == "name" {
			s.Body.FuncNames(names)
			if s.Body.Err != nil {
				t.Fatal(s.Body.Err)
			}
		}
	}
	funcs := map[string]bool{}
	for _, name := range names {
		funcs[name] = true
	}
	return funcs
}
