//go:build e2e

package e2e

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// promisedWindow is how long after its deletion in Memos a token may still
// reach Memos, per isolate, as docs/security.md states it.
const promisedWindow = 5 * time.Second

// A token deleted in Memos is refused within seconds, although Memos v0.30
// answers reads with it as an anonymous visitor's (200 and the public
// memos): once the promised window is over, a read gets 401 invalid_token
// and what passes Access with the token is the check alone. Once a tool
// call has found Memos refusing a token, the next requests are refused
// without anything of the caller's reaching Memos with the service token,
// the check included.
func TestDeletedTokenRefused(t *testing.T) {
	gw, access := startBehindAccess(t)

	t.Run("a read after the window", func(t *testing.T) {
		token, name := newMemosToken(t)
		if resp, answer := rpcPost(t, gw.URL, "Bearer "+token, listMemosBody); resp.StatusCode != 200 {
			t.Fatalf("a read before the deletion: %d %s", resp.StatusCode, answer)
		}
		memosAPI(t, "DELETE", "/api/v1/"+name, "")
		time.Sleep(promisedWindow + time.Second)
		before := len(access.with("Bearer " + token))
		for i := range 3 {
			resp, answer := rpcPost(t, gw.URL, "Bearer "+token, listMemosBody)
			refusedToken(t, "a read after the window", resp, answer)
			if i == 0 && t.Failed() {
				return
			}
		}
		if got := access.with("Bearer " + token)[before:]; !slices.Equal(got, []string{"/api/v1/auth/me"}) {
			t.Errorf("passed Access with the deleted token after the window: %v; want the one check", got)
		}
	})

	t.Run("after a tool call found it refused", func(t *testing.T) {
		token, name := newMemosToken(t)
		if resp, answer := rpcPost(t, gw.URL, "Bearer "+token, whoAmIBody); resp.StatusCode != 200 {
			t.Fatalf("a call before the deletion: %d %s", resp.StatusCode, answer)
		}
		memosAPI(t, "DELETE", "/api/v1/"+name, "")
		resp, answer := rpcPost(t, gw.URL, "Bearer "+token, whoAmIBody)
		refusedToken(t, "the call that finds it deleted", resp, answer)
		before := len(access.with("Bearer " + token))
		for _, body := range []string{listMemosBody, whoAmIBody, listBody} {
			resp, answer := rpcPost(t, gw.URL, "Bearer "+token, body)
			refusedToken(t, "a later request", resp, answer)
		}
		if got := access.with("Bearer " + token)[before:]; len(got) != 0 {
			t.Errorf("passed Access with the token after Memos refused it: %v; want nothing", got)
		}
	})
}

// The same holds for a grant's own Memos token: deleting "MCP: <app>" in
// Memos, as people are told they may, has the grant's access token refused
// at /mcp once the promised window is over, on a read that Memos would
// answer as an anonymous visitor's.
func TestDeletedGrantTokenRefused(t *testing.T) {
	gw := startOAuthGateway(t, nil)
	c := registerOAuthClient(t, gw.URL)
	status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {c.code("read")}, "code_verifier": {c.verifier}})
	access, _ := out["access_token"].(string)
	if status != 200 || access == "" {
		t.Fatalf("exchange: %d %v", status, out)
	}
	if status, _ := mcpPost(t, gw.URL, access, listMemosBody); status != 200 {
		t.Fatalf("a read before the deletion: %d", status)
	}
	list := memosAPI(t, "GET", "/api/v1/users/"+memos.Username+"/personalAccessTokens", "")
	var names []string
	for _, pat := range gjson.Get(list, "personalAccessTokens").Array() {
		if pat.Get("description").Str == "MCP: "+t.Name() {
			names = append(names, pat.Get("name").Str)
		}
	}
	if len(names) != 1 {
		t.Fatalf("the grant's tokens in Memos: %v", names)
	}
	memosAPI(t, "DELETE", "/api/v1/"+names[0], "")
	time.Sleep(promisedWindow + time.Second)
	if status, challenge := mcpPost(t, gw.URL, access, listMemosBody); status != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("a read after the window: %d %q; want 401 invalid_token", status, challenge)
	}
}
