//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// startGateway runs one more gateway Worker for a test, with its own
// configuration, and stops it when the test ends.
func startGateway(t *testing.T, opts harness.WorkerOptions) *harness.Worker {
	t.Helper()
	opts.Root, opts.Dir = root, t.TempDir()
	if opts.Vars == nil {
		opts.Vars = map[string]string{}
	}
	opts.Vars["ALLOWED_HOSTS"] = "localhost,127.0.0.1,[::1]"
	w, err := harness.StartWorker(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("wrangler output:\n%s", w.Log())
		}
		w.Stop()
	})
	return w
}

// tunnelSidecar writes the configuration of a Worker that stands in for a
// Cloudflare Tunnel or Workers VPC service in front of Memos.
func tunnelSidecar(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs("testdata/tunnel-worker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "tunnel.toml")
	toml := "name = \"memos-tunnel\"\nmain = " + quoteTOML(script) + "\ncompatibility_date = \"2026-11-01\"\n\n[vars]\nTARGET = " + quoteTOML(memos.URL) + "\n"
	if err := os.WriteFile(config, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

func quoteTOML(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a valid TOML basic string here
	return string(b)
}

// healthOf returns the status and decoded body of a gateway's /healthz.
func healthOf(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var h map[string]any
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("healthz is not JSON: %s", body)
	}
	return resp.StatusCode, h
}

// The gateway reaches Memos through a service binding to another Worker,
// with no MEMOS_URL at all.
func TestServiceBinding(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{
		Vars:     map[string]string{"MEMOS_SERVICE": "MEMOS"},
		Config:   "[[services]]\nbinding = \"MEMOS\"\nservice = \"memos-tunnel\"\n",
		Sidecars: []string{tunnelSidecar(t)},
	})
	status, h := healthOf(t, gw.URL)
	up, _ := h["upstream"].(map[string]any)
	if status != 200 || up["via"] != "service binding" || up["reachable"] != true || up["memosVersion"] == nil {
		t.Fatalf("healthz %d %v", status, h)
	}
	ctx := context.Background()
	cs := connect(t, ctx, gw.URL+"/mcp", memos.Token, "")
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 20 {
		t.Fatalf("tools/list through the binding gateway: %v", err)
	}
}

// A binding named in MEMOS_SERVICE that the Worker does not have is a
// configuration error that /healthz and /mcp report, naming the setting.
func TestServiceBindingMissing(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_SERVICE": "NOPE"}})
	status, h := healthOf(t, gw.URL)
	errs, _ := json.Marshal(h["errors"])
	if status != 503 || h["status"] != "misconfigured" || !strings.Contains(string(errs), `MEMOS_SERVICE names \"NOPE\", but the Worker has no service binding of that name`) {
		t.Fatalf("healthz %d %v", status, h)
	}
	resp, err := http.Post(gw.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), "misconfigured") || !strings.Contains(string(body), "MEMOS_SERVICE") {
		t.Errorf("/mcp: %d %s", resp.StatusCode, body)
	}
}
