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
// (a third of the wasm, 35 ms of every start) stays in the tests. Nor any
// standard-library crypto or golang.org/x/crypto: they bring the FIPS 140
// module (about 0.24 MB); internal/crypt has what the gateway needs.
func TestWasmDependencies(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("suspiciously few dependencies: %v", deps)
	}
	// Packages the Worker does without, each for tens or hundreds of KB of
	// wasm: fmt, log and encoding/json (and the reflection they bring), os
	// (with the js file-system shim behind it), html (its escaper's
	// strings.Replacer), net/url, net/netip (with unique), math/rand.
	forbidden := []string{"fmt", "log", "encoding/json", "os", "html", "net/url", "net/netip", "unique", "math/rand", "net/http"}
	for _, dep := range deps {
		if slices.Contains(forbidden, dep) || strings.HasPrefix(dep, "net/http/") ||
			strings.Contains(dep, "kin-openapi") || strings.Contains(strings.ToLower(dep), "yaml") ||
			strings.Contains(dep, "santhosh-tekuri/jsonschema") ||
			dep == "crypto" || strings.HasPrefix(dep, "crypto/") || strings.HasPrefix(dep, "golang.org/x/crypto/") {
			t.Errorf("the wasm build links %s", dep)
		}
	}
}
