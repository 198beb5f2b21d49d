//go:build e2e

package e2e

import (
	"context"
	"io/fs"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// Sign-in budgets cost an attacker more than the Worker: once an address
// has spent its budget, a burst of refused attempts, each on a fresh
// consent page with a fresh username, creates no Durable Object (the
// objects' SQLite files in wrangler's state are counted), and the other
// addresses of its IPv6 /64 share the refusal instead of each bringing a
// budget of its own.
func TestSignInBudgetsBeforeStorage(t *testing.T) {
	dir := t.TempDir()
	w, err := harness.StartWorker(context.Background(), harness.WorkerOptions{Root: root, Dir: dir, Vars: map[string]string{
		"MEMOS_URL": memos.URL, "OAUTH_SECRET": oauthSecret, "OAUTH_ALLOW_LOOPBACK_CLIENTS": "true", "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Stop()
		keepLog("the gateway of "+t.Name(), w.Log())
	})
	c := registerOAuthClient(t, w.URL)
	attempt := func(addr, username string) (int, string) {
		t.Helper()
		pending, cookie := openConsentPage(t, c.authorizeURL())
		status, body, _ := postConsentFrom(t, w.URL, addr, pending, cookie, url.Values{"username": {username}, "password": {"wrong"}})
		return status, body
	}
	for i := range 30 {
		if status, body := attempt("2001:db8:77:1::"+strconv.Itoa(i+1), "nobody"+strconv.Itoa(i)); status != 400 {
			t.Fatalf("attempt %d within the budget: %d %.300s", i+1, status, body)
		}
	}
	objects := countObjects(t, filepath.Join(dir, "wrangler-state"))
	if objects < 30 {
		t.Fatalf("30 counted attempts left %d objects in wrangler's state: the count cannot see them", objects)
	}
	for i := range 20 {
		status, body := attempt("2001:db8:77:1:"+strconv.Itoa(i+1)+"::9", "someone"+strconv.Itoa(i))
		if status != 429 || !strings.Contains(body, "came from your network") {
			t.Fatalf("refused attempt %d, from the same /64: %d %.300s", i+1, status, body)
		}
	}
	if got := countObjects(t, filepath.Join(dir, "wrangler-state")); got != objects {
		t.Errorf("20 refused attempts made %d Durable Objects, want none (%d before)", got-objects, objects)
	}
	if status, body := attempt("2001:db8:77:2::1", "nobody"); status != 400 {
		t.Errorf("an address of another /64: %d %.300s; want its own budget", status, body)
	}
}

// countObjects counts the Durable Objects that have storage under a
// wrangler state folder: one SQLite file each.
func countObjects(t *testing.T, state string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".sqlite") && strings.Contains(filepath.ToSlash(path), "GrantStore") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
