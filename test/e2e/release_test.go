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
		version = profileVersion()
	}
	if r := registry.For(version); r != nil {
		return r
	}
	return registry.Pinned()
})

// profileVersion is the version the test's Memos reports in its public
// profile ("dev" for a build of the pinned module), "" when it does not
// answer.
func profileVersion() string {
	resp, err := http.Get(memos.URL + "/api/v1/instance/profile")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var profile struct{ Version string }
	json.NewDecoder(resp.Body).Decode(&profile)
	return profile.Version
}

// reportedVersion is profileVersion, which the test needs.
func reportedVersion(t *testing.T) string {
	t.Helper()
	v := profileVersion()
	if v == "" {
		t.Fatal("the test's Memos does not say its version")
	}
	return v
}

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

// An attachment's media metadata is given at its creation where the
// release takes it (v0.31: Memos keeps it and answers with it), and is an
// unknown argument where it does not (v0.30).
func TestReleaseMediaMetadata(t *testing.T) {
	c := newTools(t, memos.Token)
	create := curated(t, "AttachmentService_CreateAttachment")
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	body := map[string]any{"filename": "dot.png", "type": "image/png", "content": png, "mediaMetadata": map[string]any{"width": 1, "height": 1}}
	if !strings.Contains(create.InputSchema(), `"mediaMetadata"`) {
		if msg := c.fails(create.Name, map[string]any{"body": body}); !strings.Contains(msg, "mediaMetadata") {
			t.Errorf("%s: an attachment with mediaMetadata: %q", served().Version, msg)
		}
		return
	}
	made := c.ok(create.Name, map[string]any{"body": body})
	back := c.ok(curated(t, "AttachmentService_GetAttachment").Name, map[string]any{"attachment": str(made, "name")})
	if get(back, "mediaMetadata.width") != 1.0 || get(back, "mediaMetadata.height") != 1.0 {
		t.Errorf("%s: mediaMetadata %v, want width and height 1", served().Version, get(back, "mediaMetadata"))
	}
	c.ok(curated(t, "AttachmentService_DeleteAttachment").Name, map[string]any{"attachment": str(made, "name")})
}

// has_location filters where the release's filter description names it
// (v0.31), and Memos refuses it where it does not (v0.30).
func TestReleaseLocationFilter(t *testing.T) {
	c := newTools(t, memos.Token)
	list := curated(t, "MemoService_ListMemos")
	filter := `has_location && "e2ereleaselocation" in tags`
	if !strings.Contains(list.InputSchema(), "has_location") {
		if msg := c.fails(list.Name, map[string]any{"filter": filter}); !strings.Contains(msg, "has_location") {
			t.Errorf("%s: a filter with has_location: %q", served().Version, msg)
		}
		return
	}
	located := c.ok(curated(t, "MemoService_CreateMemo").Name, map[string]any{"body": map[string]any{
		"content": "made somewhere #e2ereleaselocation", "location": map[string]any{"placeholder": "Porto", "latitude": 41.15, "longitude": -8.61}}})
	c.createMemo("made nowhere #e2ereleaselocation", "PRIVATE")
	found := c.ok(list.Name, map[string]any{"filter": filter})
	if count(found, "memos") != 1 || str(found, "memos.0.name") != str(located, "name") {
		t.Errorf("%s: %s found %v, want %s alone", served().Version, filter, found, str(located, "name"))
	}
}
