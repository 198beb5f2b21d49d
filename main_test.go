package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
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
}
