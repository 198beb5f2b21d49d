//go:build e2e

package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
)

// served is the release whose tools the Worker must serve the test's Memos:
// MEMOS_RELEASE when set (make test names the next release's so), else the
// one of the version Memos reports, else (a source build says "dev", as the
// pinned module's does) the pinned release. The Worker is never asked: the
// tests check its choice against this one.
var served = sync.OnceValue(func() *registry.Release {
	version := os.Getenv("MEMOS_RELEASE")
	if version == "" {
		resp, err := http.Get(memos.URL + "/api/v1/instance/profile")
		if err == nil {
			var profile struct{ Version string }
			json.NewDecoder(resp.Body).Decode(&profile)
			resp.Body.Close()
			version = profile.Version
		}
	}
	if r := registry.For(version); r != nil {
		return r
	}
	return registry.Pinned()
})

// other is a release of the build that the test's Memos does not run.
func other() *registry.Release {
	for _, r := range registry.Releases() {
		if r != served() {
			return r
		}
	}
	return nil
}

// curated is the served release's tool of a curated operation.
func curated(t *testing.T, id string) *registry.Tool {
	t.Helper()
	tool := served().Curated(id)
	if tool == nil {
		t.Fatalf("%s serves no tool of %s", served().Version, id)
	}
	return tool
}

// reactionTakesContentID reports whether the served release's reactions
// still carry contentId (v0.30; v0.31 dropped it).
func reactionTakesContentID(t *testing.T) bool {
	t.Helper()
	// The reaction is a $defs entry of the schema, the one that names contentId.
	return strings.Contains(curated(t, "MemoService_UpsertMemoReaction").InputSchema(), `"contentId"`)
}

// The Worker tells the release of the instance by itself: /healthz names
// it, and tools/list holds its tools, the views tool by the name that
// release gives it and not by the other's.
func TestReleaseServed(t *testing.T) {
	h := getHealth(t, http.DefaultClient, worker.URL)
	if h.Status != "ok" || h.Registry.MemosVersion != served().Version || h.Registry.Tools != len(registryNames()) {
		t.Errorf("healthz %+v, want ok and %s with %d tools", h, served().Version, len(registryNames()))
	}
	res, err := newTools(t, memos.Token).cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	views := curated(t, "ShortcutService_ListShortcuts").Name
	gone := other().Curated("ShortcutService_ListShortcuts").Name
	if !slices.Equal(names, registryNames()) || !slices.Contains(names, views) || views != gone && slices.Contains(names, gone) {
		t.Errorf("tools/list %v, want %s's (%s, not %s)", names, served().Version, views, gone)
	}
}

// A reaction is set as its release takes it: v0.30 requires contentId,
// v0.31 has none and refuses one as an unknown argument.
func TestReleaseReactions(t *testing.T) {
	c := newTools(t, memos.Token)
	a := c.createMemo("a memo of the release tests #e2erelease", "PRIVATE")
	reaction := map[string]any{"reactionType": "👍"}
	with := map[string]any{"reactionType": "👍", "contentId": a}
	upsert := curated(t, "MemoService_UpsertMemoReaction").Name
	if reactionTakesContentID(t) {
		if msg := c.fails(upsert, map[string]any{"memo": a, "body": map[string]any{"reaction": reaction}}); !strings.Contains(msg, "contentId") {
			t.Errorf("%s: a reaction without contentId: %q", served().Version, msg)
		}
		reaction = with
	} else if msg := c.fails(upsert, map[string]any{"memo": a, "body": map[string]any{"reaction": with}}); !strings.Contains(msg, "contentId") {
		t.Errorf("%s: a reaction with contentId: %q", served().Version, msg)
	}
	if r := c.ok(upsert, map[string]any{"memo": a, "body": map[string]any{"reaction": reaction}}); !strings.HasPrefix(str(r, "name"), a+"/reactions/") {
		t.Errorf("reaction %v", r)
	}
}
