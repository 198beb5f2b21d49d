//go:build e2e

package e2e

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
	memosproto "github.com/usememos/memos/proto"
)

// The README's deploy steps, as a dry run on a copy of the repository: the
// shipped wrangler.toml builds but warns that its Worker would refuse every
// request; make release switches the release that wrangler's own build step
// builds for; and set as the steps say, the dry run is quiet.
func TestDeployDryRun(t *testing.T) {
	clone := copyRepository(t)
	bundle := t.TempDir()
	dryRun := func(t *testing.T) string {
		t.Helper()
		cmd := exec.Command("npx", "wrangler", "deploy", "--dry-run", "--outdir", bundle)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--dry-run: exiting now.") {
			t.Fatalf("npx wrangler deploy --dry-run: %v\n%s", err, out)
		}
		return string(out)
	}
	warning := "Warning: a Worker deployed with wrangler.toml answers every request with an error:"

	t.Run("shipped", func(t *testing.T) {
		out := dryRun(t)
		for _, want := range []string{warning, "MEMOS_URL is not set", "ALLOWED_HOSTS lists only loopback names"} {
			if !strings.Contains(out, want) {
				t.Errorf("the dry run of the shipped wrangler.toml does not say %q:\n%s", want, out)
			}
		}
		if n := strings.Count(out, "go build"); n != 1 {
			t.Errorf("the dry run built the wasm %d times:\n%s", n, out)
		}
		m := uploadSize.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no upload size in the output:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(bundle, "worker.js")); err != nil {
			t.Errorf("bundle not written: %v", err)
		}
		t.Logf("wrangler deploy --dry-run: total upload %s, gzip %s", m[1], m[2])
	})

	// A release the build does not hold (v0.30 and v0.31 are in every
	// build): its document, here the pinned one under a third name.
	t.Run("another release", func(t *testing.T) {
		spec := filepath.Join(t.TempDir(), "openapi.yaml")
		if err := os.WriteFile(spec, memosproto.OpenAPIYAML(), 0o644); err != nil {
			t.Fatal(err)
		}
		runIn(t, clone, "make", "--no-print-directory", "release", "SPEC="+spec, "SPEC_VERSION=v0.32.0")
		// SPEC for one build only is refused: the next build would lose it.
		build := exec.Command("make", "--no-print-directory", "build", "SPEC="+spec, "SPEC_VERSION=v0.32.0")
		build.Dir = clone
		if out, err := build.CombinedOutput(); err == nil || !strings.Contains(string(out), "run make release") {
			t.Errorf("make build with SPEC was not refused (%v):\n%s", err, out)
		}
		dryRun(t)
		if !bytes.Contains(wasmData(t, filepath.Join(clone, "build", "app.wasm")), []byte("v0.32.0")) {
			t.Errorf("the dry run's build is not for the chosen release v0.32.0")
		}
		runIn(t, clone, "make", "--no-print-directory", "release", "SPEC_VERSION="+registry.MemosVersion())
		dryRun(t)
		if bytes.Contains(wasmData(t, filepath.Join(clone, "build", "app.wasm")), []byte("v0.32.0")) {
			t.Errorf("after going back to the pinned release, the build is still for v0.32.0")
		}
	})

	t.Run("set as the README says", func(t *testing.T) {
		path := filepath.Join(clone, "wrangler.toml")
		config, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		set := strings.NewReplacer(`MEMOS_URL = ""`, `MEMOS_URL = "https://memos.example.com"`,
			`ALLOWED_HOSTS = "localhost,127.0.0.1,[::1]"`, `ALLOWED_HOSTS = "mcp.example.com"`).Replace(string(config))
		if set == string(config) {
			t.Fatal("the shipped wrangler.toml has no MEMOS_URL or ALLOWED_HOSTS line to set")
		}
		if err := os.WriteFile(path, []byte(set), 0o644); err != nil {
			t.Fatal(err)
		}
		if out := dryRun(t); strings.Contains(out, warning) {
			t.Errorf("the dry run warns although MEMOS_URL and ALLOWED_HOSTS are set:\n%s", out)
		}
	})

	// The most natural mistake: the endpoint's URL for its host name.
	t.Run("ALLOWED_HOSTS as a URL", func(t *testing.T) {
		path := filepath.Join(clone, "wrangler.toml")
		config, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		url := strings.Replace(string(config), `ALLOWED_HOSTS = "mcp.example.com"`, `ALLOWED_HOSTS = "https://mcp.example.com/"`, 1)
		if url == string(config) {
			t.Fatal("no ALLOWED_HOSTS line as the previous step set it")
		}
		if err := os.WriteFile(path, []byte(url), 0o644); err != nil {
			t.Fatal(err)
		}
		want := `ALLOWED_HOSTS entry "https://mcp.example.com/" is a URL: write the host name alone, mcp.example.com`
		if out := dryRun(t); !strings.Contains(out, warning) || !strings.Contains(out, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, out)
		}
	})
}

var uploadSize = regexp.MustCompile(`Total Upload: ([0-9.]+ [KM]iB) / gzip: ([0-9.]+ [KM]iB)`)

// copyRepository copies the repository's files (tracked, or new and not
// ignored) into a temporary folder, as a fresh clone has them, with the
// installed node_modules linked in.
func copyRepository(t *testing.T) string {
	t.Helper()
	clone := t.TempDir()
	for _, name := range strings.Split(strings.TrimSpace(runIn(t, root, "git", "ls-files", "--cached", "--others", "--exclude-standard")), "\n") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(clone, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(clone, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return clone
}

// runIn runs a command in dir and returns its output.
func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// wasmData returns the program's data in the wasm at path: the memory image
// that make build packs into one compressed section (internal/bridge/pack),
// inflated.
func wasmData(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := wasmbin.Sections(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sections {
		if s.ID != wasmbin.SectionCustom || s.Body.Name() != "memos-mcp-edge.data" {
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(s.Body.B[s.Body.Off+4:])) // after the image's offset
		if err != nil {
			t.Fatal(err)
		}
		image, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return image
	}
	t.Fatalf("%s is not packed", path)
	return nil
}
