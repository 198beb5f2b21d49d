//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The same handler runs natively (`go run .`), without Cloudflare: it lists
// and calls tools against the real Memos, and on a loopback address answers
// only to loopback host names.
func TestNativeServer(t *testing.T) {
	bin := buildProgram(t, ".")
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	var log strings.Builder
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LISTEN_ADDR=127.0.0.1:"+strconv.Itoa(port), "MEMOS_URL="+memos.URL, "ALLOWED_HOSTS=")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("native server not ready:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := toolsAt(t, base, memos.Token)
	if user := c.ok("auth_get_current_user", nil); str(user, "user.name") != "users/"+memos.Username {
		t.Errorf("current user: %v", user)
	}
	if res, err := c.cs.ListTools(context.Background(), nil); err != nil || len(res.Tools) != len(registry.All()) {
		t.Errorf("tools/list: %v", err)
	}
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("a foreign Host got %d from the loopback server, want 403", resp.StatusCode)
	}
}
