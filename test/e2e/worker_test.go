//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// health is the part of /healthz these tests read.
type health struct {
	Status   string `json:"status"`
	Registry struct {
		MemosVersion string `json:"memosVersion"`
		Tools        int    `json:"tools"`
	} `json:"registry"`
	Instance struct {
		ID        string  `json:"id"`
		Requests  int64   `json:"requests"`
		StartupMs float64 `json:"startupMs"`
		Memory    struct {
			WasmBytes int64 `json:"wasmBytes"`
		} `json:"memory"`
	} `json:"instance"`
}

func getHealth(t *testing.T, client *http.Client, base string) health {
	t.Helper()
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatalf("decode /healthz: %v", err)
	}
	return h
}

// The Go program is started once per isolate and reused: 500 sequential
// requests are all served by the instance that served the first one.
func TestOneGoInstanceServesEveryRequest(t *testing.T) {
	client := &http.Client{} // keep-alive, like a real client
	before := getHealth(t, client, worker.URL)
	if before.Status != "ok" || before.Registry.MemosVersion != served().Version || before.Registry.Tools != len(registryNames()) {
		t.Fatalf("healthz before = %+v", before)
	}
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	for i := range 500 {
		resp, err := client.Post(worker.URL+"/mcp", "application/json", bytes.NewReader(list))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"tools":[`)) {
			t.Fatalf("request %d: %d %.200s", i, resp.StatusCode, body)
		}
	}
	after := getHealth(t, client, worker.URL)
	if after.Instance.ID != before.Instance.ID {
		t.Errorf("Go instance changed from %s to %s", before.Instance.ID, after.Instance.ID)
	}
	if n := after.Instance.Requests - before.Instance.Requests; n != 501 {
		t.Errorf("the instance counted %d requests between the two health checks, want 501", n)
	}
	if after.Instance.StartupMs <= 0 {
		t.Errorf("startupMs = %v, want the entry module's measurement", after.Instance.StartupMs)
	}
	t.Logf("one Go instance (%s) served %d requests; its start took %.1f ms", after.Instance.ID, after.Instance.Requests, after.Instance.StartupMs)
}
