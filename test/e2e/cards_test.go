//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The memo card (issue 44) in headless Chromium, inside a host page built on
// the host side of @modelcontextprotocol/ext-apps, against the Worker and
// Memos (test/clients/card-browser.mjs says what it checks): a memo with
// tasks, tags, a comment and an image renders; a click on a box ticks the
// task in Memos; a tick after an edit elsewhere is refused; memo_search's
// hits show as a list and tag_list's tags as a cloud; a hostile memo
// renders inert and visible; in both protocol eras. The
// screenshots are kept in build/test-artifacts/<era>, and with
// UPDATE_SCREENSHOTS=1 written to docs/ as well. .ci/run installs
// Chromium; elsewhere the test says so when it is missing.
func TestMemoCardInChromium(t *testing.T) {
	browser := chromiumPath()
	if browser == "" {
		t.Skip("Chromium is not installed (apt-get install chromium): the memo card was not checked in a browser")
	}
	// Both eras carry the extension: 2026-07-28 in every request, the
	// legacy ones in initialize (the card named for every legacy client).
	readOnly := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": memos.URL, "READ_ONLY": "true"}})
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) { memoCardInChromium(t, browser, era, readOnly.URL+"/mcp") })
	}
}

func memoCardInChromium(t *testing.T, browser, era, readOnlyURL string) {
	tag := fmt.Sprintf("garden%x", time.Now().UnixNano()%0xfffff)
	garden := rest(t, "POST", "/api/v1/memos", map[string]any{"visibility": "PROTECTED", "content": "# Garden plan\n\n" +
		"Bulbs for the #" + tag + " before the #frost:\n\n- [ ] buy tulip bulbs\n- [x] dig the beds\n- [ ] water **twice** a week\n\n" +
		"See [the guide](https://example.com/tulips).\n\n```\nspacing: 10 cm\n```"})["name"].(string)
	rest(t, "PATCH", "/api/v1/"+garden+"?updateMask=pinned", map[string]any{"pinned": true})
	rest(t, "POST", "/api/v1/"+garden+"/comments", map[string]any{"content": "Ordered the bulbs."})
	rest(t, "POST", "/api/v1/attachments", map[string]any{"filename": "beds.png", "type": "image/png",
		"content": base64.StdEncoding.EncodeToString(gardenPicture(t)), "memo": garden})
	hostile := rest(t, "POST", "/api/v1/memos", map[string]any{"content": "<script>window.pwned = true; document.title = 'pwned'</script>\n" +
		"<img src=x onerror=\"window.pwned = true\">\n[click me](javascript:window.pwned=true)\n\ninvoice\u202egnp.exe #" + tag + "x"})["name"].(string)

	shots := filepath.Join(root, "build", "test-artifacts", era)
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := runNode(t, ctx, root, []string{
		"MCP_URL=" + worker.URL + "/mcp", "READONLY_URL=" + readOnlyURL, "TOKEN=" + memos.Token, "MEMOS_URL=" + memos.URL,
		"GARDEN=" + garden, "HOSTILE=" + hostile, "TAG=" + tag, "CHROMIUM=" + browser, "SHOTS=" + shots, "ERA=" + era,
	}, "test/clients/card-browser.mjs")
	t.Logf("card-browser.mjs output:\n%s%s", run.stdout, run.stderr)
	if run.code != 0 {
		t.Fatalf("card-browser.mjs exited with %d", run.code)
	}
	for _, step := range []string{"tools/list names the card", "the card shows the heading", "the image shows", "a click on the first box ticks",
		"a link opens through the host", "after an edit elsewhere the next tick is refused", "a tick sent to a READ_ONLY deployment is refused", "fetch's memo", "memo_search's", "tag_list's tags show as a cloud", "the hostile memo renders inert", "no console error"} {
		if !strings.Contains(string(run.stdout), "ok   "+step) {
			t.Errorf("step %q did not pass", step)
		}
	}
	// Memos holds what the person did: the first task ticked, the one
	// refused still open.
	content := memoContent(t, garden)
	for _, want := range []string{"- [x] buy tulip bulbs", "- [x] dig the beds", "- [ ] water **twice** a week", "Edited elsewhere."} {
		if !strings.Contains(content, want) {
			t.Errorf("Memos holds %q, without %q", content, want)
		}
	}
	for _, shot := range []string{"memo-card.png", "memo-card-search.png", "memo-card-tags.png", "memo-card-hostile.png"} {
		b, err := os.ReadFile(filepath.Join(shots, shot))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("no screenshot %s: %v", shot, err)
			continue
		}
		if os.Getenv("UPDATE_SCREENSHOTS") != "" && era == "modern" {
			if err := os.WriteFile(filepath.Join(root, "docs", shot), b, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// gardenPicture is a small picture of garden beds, for the card's
// thumbnail.
func gardenPicture(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 120, 90))
	for y := range 90 {
		for x := range 120 {
			c := color.RGBA{R: 120 + uint8(y/3), G: 84 + uint8(y/4), B: 52, A: 255} // soil
			switch {
			case y < 30:
				c = color.RGBA{R: 150 + uint8(x/2), G: 200, B: 240, A: 255} // sky
			case (x/20)%2 == 0 && y > 40 && y%12 < 5:
				c = color.RGBA{R: 60, G: 150 + uint8(x/4), B: 70, A: 255} // rows of green
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The MCP Inspector, a client that knows MCP Apps, finds the card when it
// claims the extension in the 2026-07-28 era (--advertise-apps --app-info):
// the four tools have an App, whose resource it reads; without the claim
// there is none. In the legacy era the claim is made in initialize only,
// which the stateless endpoint does not keep, so the card is named for
// every client, with the claim or without.
func TestInspectorFindsTheCard(t *testing.T) {
	for _, tc := range []struct {
		era       string
		advertise bool
		want      bool
	}{
		{"modern", true, true},
		{"modern", false, false},
		{"legacy", true, true},
		{"legacy", false, true},
	} {
		t.Run(fmt.Sprintf("%s advertise=%v", tc.era, tc.advertise), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			home := t.TempDir()
			args := []string{"--cli", worker.URL + "/mcp", "--transport", "http", "--protocol-era", tc.era,
				"--method", "tools/list", "--app-info", "--format", "json", "--header", "Authorization: Bearer " + memos.Token}
			if tc.advertise {
				args = append(args, "--advertise-apps")
			}
			run := runNode(t, ctx, home, []string{"HOME=" + home}, inspector, args...)
			// One JSON line a tool: the four the card shows have it.
			apps, want := strings.Count(string(run.stdout), `"hasApp":true,`), 0
			if tc.want {
				want = 4
			}
			cards := strings.Count(string(run.stdout), `"resourceUri":"ui://memos-mcp-edge/card","csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]}`)
			if run.code != 0 || apps != want || cards != want {
				t.Errorf("inspector exit %d (%s): %d tools with an App, %d with the card read, want %d\n%.3000s\n%s",
					run.code, inspectorExits[run.code], apps, cards, want, run.stdout, run.stderr)
			}
		})
	}
}
