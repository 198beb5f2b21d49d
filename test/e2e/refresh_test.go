//go:build e2e

package e2e

import (
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Against the Worker, its Durable Objects and the real Memos, a refresh
// forgives a lost answer: the refresh token sent again gets tokens that
// work, and so do two refreshes with one token at once; the grant keeps
// refreshing after either. A refresh token whose successor was used is
// still a replay that ends the grant, its access tokens with it.
func TestRefreshRetry(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	c := registerOAuthClient(t, gw.URL)
	exchange := func() string {
		t.Helper()
		status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {c.code("write")}, "code_verifier": {c.verifier}})
		refresh, _ := out["refresh_token"].(string)
		if status != 200 || refresh == "" {
			t.Fatalf("exchange: %d %v", status, out)
		}
		return refresh
	}
	// refreshed refreshes and checks that the answer's access token works
	// at /mcp; it returns the answer's refresh token.
	refreshed := func(what, refresh string) (string, string) {
		t.Helper()
		status, out := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
		access, _ := out["access_token"].(string)
		next, _ := out["refresh_token"].(string)
		if status != 200 || next == "" {
			t.Fatalf("%s: %d %v", what, status, out)
		}
		if status, _ := mcpStatus(t, gw.URL, access); status != 200 {
			t.Fatalf("%s: its access token: %d", what, status)
		}
		return next, access
	}

	t.Run("the answer was lost", func(t *testing.T) {
		old := exchange()
		c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old}}) // lost on the way
		retried, _ := refreshed("the retry", old)
		next, _ := refreshed("the retry's refresh token", retried)
		refreshed("the one after", next)
	})

	t.Run("two at once", func(t *testing.T) {
		old := exchange()
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		answers := make([]map[string]any, 2)
		for i := range answers {
			wg.Go(func() {
				statuses[i], answers[i] = c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old}})
			})
		}
		wg.Wait()
		if statuses[0] != 200 || statuses[1] != 200 {
			t.Fatalf("two refreshes at once: %v %v", statuses, answers)
		}
		first, _ := refreshed("the first answer's refresh token", answers[0]["refresh_token"].(string))
		refreshed("the second answer's refresh token", answers[1]["refresh_token"].(string))
		refreshed("the chain after", first)
	})

	t.Run("a replay after the successor was used", func(t *testing.T) {
		old := exchange()
		rotated, _ := refreshed("the refresh", old)
		next, access := refreshed("its successor", rotated)
		if status, out := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old}}); status != 400 || out["error"] != "invalid_grant" {
			t.Errorf("the old refresh token: %d %v", status, out)
		}
		if status, out := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {next}}); status != 400 || out["error"] != "invalid_grant" {
			t.Errorf("the rightful chain after the replay: %d %v", status, out)
		}
		if status, challenge := mcpStatus(t, gw.URL, access); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
			t.Errorf("the access token of the replayed grant: %d %q", status, challenge)
		}
	})
}
