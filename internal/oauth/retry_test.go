package oauth

import (
	"context"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// A refresh whose answer was lost can be sent again: the retry gets tokens
// that keep working, and nothing ends. The forgiveness has bounds: past
// refreshRetryWindow, or once the lost answer's successor has been used,
// the old refresh token is a replay that ends the grant.
func TestRefreshRetry(t *testing.T) {
	start := func(t *testing.T) (*harness, string, string) {
		h := newHarness(t, testSecret)
		id, _ := h.registerClient("none")
		return h, id, gjson.GetBytes(h.tokens(id, "", h.code(id, "write"), verifier).Body, "refresh_token").Str
	}
	refreshed := func(t *testing.T, h *harness, id, what, refresh string) string {
		t.Helper()
		resp := h.refresh(id, "", refresh)
		if resp.Status != 200 {
			t.Fatalf("%s: %d %s", what, resp.Status, resp.Body)
		}
		access := gjson.GetBytes(resp.Body, "access_token").Str
		if _, _, refusal := h.s.Authorize(context.Background(), mcpRequest("Bearer "+access)); refusal != nil {
			t.Fatalf("%s: its access token is refused: %d %s", what, refusal.Status, refusal.Body)
		}
		return gjson.GetBytes(resp.Body, "refresh_token").Str
	}
	ended := func(t *testing.T, h *harness, id, what string, refresh ...string) {
		t.Helper()
		for _, r := range refresh {
			if resp := h.refresh(id, "", r); oauthErr(resp) != "invalid_grant" {
				t.Errorf("%s: %d %s; want invalid_grant", what, resp.Status, resp.Body)
			}
		}
		if len(h.memos.tokens) != 1 {
			t.Errorf("%s: the grant's Memos token is still there", what)
		}
	}

	t.Run("the answer was lost", func(t *testing.T) {
		h, id, old := start(t)
		h.refresh(id, "", old) // its answer never reaches the client
		h.now = h.now.Add(refreshRetryWindow - 1)
		retried := refreshed(t, h, id, "the retry", old)
		next := refreshed(t, h, id, "the retry's refresh token", retried)
		refreshed(t, h, id, "the one after", next)
		if len(h.memos.tokens) != 2 {
			t.Errorf("the grant's Memos token is gone")
		}
	})
	t.Run("past the window", func(t *testing.T) {
		h, id, old := start(t)
		rotated := refreshed(t, h, id, "the refresh", old)
		h.now = h.now.Add(refreshRetryWindow)
		ended(t, h, id, "the old refresh token a minute later, then its successor", old, rotated)
	})
	t.Run("after the successor was used", func(t *testing.T) {
		h, id, old := start(t)
		rotated := refreshed(t, h, id, "the refresh", old)
		next := refreshed(t, h, id, "the successor", rotated)
		ended(t, h, id, "the old refresh token, then the rightful chain", old, next)
	})
	t.Run("two at once", func(t *testing.T) {
		h, id, old := start(t)
		var wg sync.WaitGroup
		answers := make([]*web.Response, 2)
		for i := range answers {
			wg.Go(func() { answers[i] = h.refresh(id, "", old) })
		}
		wg.Wait()
		for i, a := range answers {
			if a.Status != 200 {
				t.Fatalf("refresh %d of two at once: %d %s", i+1, a.Status, a.Body)
			}
		}
		// Either answer's refresh token carries on, and the chain after it.
		first := refreshed(t, h, id, "the first answer's refresh token", gjson.GetBytes(answers[0].Body, "refresh_token").Str)
		refreshed(t, h, id, "the second answer's refresh token", gjson.GetBytes(answers[1].Body, "refresh_token").Str)
		refreshed(t, h, id, "the chain after", first)
	})
}
