//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

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
		keepLog("the gateway of "+t.Name(), w.Log())
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
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != len(registryNames()) {
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

// accessStandIn is a local stand-in for a Memos hostname behind Cloudflare
// Access: with the right service-token headers it passes requests to Memos;
// with wrong ones it refuses with Access' 403 page; without any it answers
// Access' HTML login page.
// It counts the requests that carried the service token without a caller's
// token, other than the gateway's own probes (the profile, the release
// check): lent credentials.
func accessStandIn(t *testing.T, id, secret string) (string, *atomic.Int64) {
	t.Helper()
	target, _ := url.Parse(memos.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	lent := &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotID, gotSecret := r.Header.Get("CF-Access-Client-Id"), r.Header.Get("CF-Access-Client-Secret")
		if gotID != "" && r.Header.Get("Authorization") == "" && r.URL.Path != "/api/v1/instance/profile" && !releaseCheck(r.URL.Path) {
			lent.Add(1)
		}
		switch {
		case gotID == id && gotSecret == secret:
			r.Header.Del("CF-Access-Client-Id")
			r.Header.Del("CF-Access-Client-Secret")
			proxy.ServeHTTP(w, r)
		case gotID != "" || gotSecret != "":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<!DOCTYPE html><html><head><title>Forbidden</title></head><body>Forbidden. You don't have permission to view this.</body></html>")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!DOCTYPE html><html><head><title>Sign in ・ Cloudflare Access</title></head><body><a href="https://team.cloudflareaccess.com/cdn-cgi/access/login">Sign in</a></body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, lent
}

// An instance behind Cloudflare Access is reached with the service token
// from the Worker's secrets; without it, or with a wrong one, /mcp (which
// cannot check the caller's token) and /healthz say what to set. An anonymous caller never gets the service
// token lent: its call is answered without reaching Access.
func TestAccessProtectedInstance(t *testing.T) {
	const id, secret = "stand-in.access", "stand-in-secret"
	standIn, lent := accessStandIn(t, id, secret)
	for _, tc := range []struct {
		name    string
		vars    map[string]string
		problem string // "" = healthy
	}{
		{name: "service token set", vars: map[string]string{"CF_ACCESS_CLIENT_ID": id, "CF_ACCESS_CLIENT_SECRET": secret}},
		{name: "no service token", vars: map[string]string{},
			problem: "Cloudflare Access answered instead of Memos: create a service token, allow it with a Service Auth policy, and set the Worker secrets CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"},
		{name: "wrong secret", vars: map[string]string{"CF_ACCESS_CLIENT_ID": id, "CF_ACCESS_CLIENT_SECRET": "wrong"},
			problem: "403 Forbidden: Cloudflare Access did not accept the configured service token (CF_ACCESS_CLIENT_ID, CF_ACCESS_CLIENT_SECRET): check that the Access application has a Service Auth policy that includes it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.vars["MEMOS_URL"] = standIn
			gw := startGateway(t, harness.WorkerOptions{Vars: tc.vars})
			_, h := healthOf(t, gw.URL)
			up, _ := h["upstream"].(map[string]any)
			if tc.problem == "" {
				c := toolsAt(t, gw.URL, memos.Token)
				if up["problem"] != nil || up["memosVersion"] == nil {
					t.Errorf("healthz upstream %v, want healthy", up)
				}
				if user := c.ok("auth_get_current_user", nil); str(user, "user.name") != "users/"+memos.Username {
					t.Errorf("current user through Access: %v", user)
				}
				anonymous := anonymousTools(t, gw.URL)
				if got := anonymous.fails("memo_list_memos", nil); !strings.HasPrefix(got, "this Memos instance is behind Cloudflare Access") {
					t.Errorf("anonymous call through Access: %s", got)
				}
				if n := lent.Load(); n != 0 {
					t.Errorf("%d requests carried the service token without a caller's token", n)
				}
				return
			}
			if up["problem"] != tc.problem {
				t.Errorf("healthz problem\n got %v\nwant %s", up["problem"], tc.problem)
			}
			// The caller's token cannot be checked with Memos, so nothing of
			// the caller's is sent: the answer is a 503 that says why.
			resp, answer := rpcPost(t, gw.URL, "Bearer "+memos.Token, whoAmIBody)
			if got := gjson.Get(answer, "error_description").Str; resp.StatusCode != 503 || !strings.HasSuffix(got, ": "+tc.problem) {
				t.Errorf("/mcp: %d\n got %s\nwant …: %s", resp.StatusCode, answer, tc.problem)
			}
		})
	}
}
