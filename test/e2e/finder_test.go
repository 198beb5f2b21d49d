//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// rest calls Memos' own API with the test token and decodes the answer.
func rest(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, memos.URL+path, in)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := bearer(memos.Token).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return out
}

// seedMemo creates a memo with content, then sets its creation time (and
// more fields of patch, with their update mask paths).
func seedMemo(t *testing.T, content, visibility string, created time.Time, patch map[string]any, mask ...string) string {
	t.Helper()
	m := rest(t, "POST", "/api/v1/memos", map[string]any{"content": content, "visibility": visibility})
	name := m["name"].(string)
	body := map[string]any{"createTime": created.UTC().Format(time.RFC3339)}
	for k, v := range patch {
		body[k] = v
	}
	got := rest(t, "PATCH", "/api/v1/"+name+"?updateMask="+strings.Join(append([]string{"create_time"}, mask...), ","), body)
	if got["createTime"] != created.UTC().Format(time.RFC3339) {
		t.Fatalf("createTime of %s is %v, want %s", name, got["createTime"], created.UTC().Format(time.RFC3339))
	}
	return name
}

// finderCall calls a hand-written tool that must succeed and returns the
// result, after checking its structured content against the output schema
// and the text copy.
func finderCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if res.IsError || text == nil {
		t.Fatalf("%s %v: error or no text first: %+v", name, args, res.Content[0])
	}
	var fromText any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("%s: the text is not JSON: %v", name, err)
	}
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(res.StructuredContent)
	if !bytes.Equal(a, b) {
		t.Errorf("%s: text and structuredContent differ:\n%s\n%s", name, a, b)
	}
	if err := outputSchema(t, name).Validate(fromText); err != nil {
		t.Errorf("%s: result does not match the output schema: %v", name, err)
	}
	return res
}

// finderFails calls a hand-written tool that must fail and returns the text.
func finderFails(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if !res.IsError || text == nil || len(res.Content) != 1 {
		t.Fatalf("%s %v: succeeded, want a tool error: %+v", name, args, res.Content)
	}
	return text.Text
}

// TestFinderSearch seeds memos with known words, tags, states and creation
// times, and checks that each form of memo_search finds exactly them, in
// both protocol eras: newest first, with links (not for 2024-11-05, which
// has no resource_link), paged, in time zones, and with a value crafted to
// break out of the filter found as plain text.
func TestFinderSearch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := fmt.Sprintf("f%x", time.Now().UnixNano()%0xfffffff) // this run's word and tag prefix
	now := time.Now().UTC()
	yearAgo := time.Date(now.Year()-1, now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	if now.Month() == 2 && now.Day() == 29 {
		yearAgo = time.Date(now.Year()-4, 2, 29, 12, 0, 0, 0, time.UTC)
	}
	const breakout = `") || true || ("`
	// A: 9 March 23:30 UTC is 10 March 12:30 in Auckland (UTC+13).
	a := seedMemo(t, run+" Boiler serviced #"+run+"home/repairs", "PRIVATE", time.Date(2024, 3, 9, 23, 30, 0, 0, time.UTC), nil)
	// B: the last second of 10 March in Auckland, still 10 March in UTC.
	b := seedMemo(t, run+" meeting notes #"+run+"work/meetings\n\n- [ ] follow up", "PRIVATE", time.Date(2024, 3, 10, 10, 59, 59, 0, time.UTC), nil)
	// C: 11 March 00:00 in Auckland, 10 March in UTC; pinned and public.
	c := seedMemo(t, run+" ramen place #"+run+"food #"+run+"work", "PUBLIC", time.Date(2024, 3, 10, 11, 0, 0, 0, time.UTC),
		map[string]any{"pinned": true}, "pinned")
	d := seedMemo(t, run+" the breakout "+breakout+" as plain text", "PRIVATE", now.Add(-time.Minute), nil)
	e := seedMemo(t, run+" BOILER pressure low", "PRIVATE", yearAgo, nil)
	all := []string{d, e, c, b, a} // newest first

	for _, version := range []string{"2024-11-05", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, version)
			links := version != "2024-11-05"
			search := func(args map[string]any) []string {
				t.Helper()
				res := finderCall(t, ctx, cs, "memo_search", args)
				var names []string
				for _, m := range res.StructuredContent.(map[string]any)["memos"].([]any) {
					names = append(names, m.(map[string]any)["name"].(string))
				}
				if !links {
					if len(res.Content) != 1 {
						t.Errorf("%v: %d content items, want the text alone", args, len(res.Content))
					}
					return names
				}
				if len(res.Content) != 1+len(names) {
					t.Errorf("%v: %d content items for %d memos, want a resource_link each", args, len(res.Content), len(names))
				}
				for i, item := range res.Content[1:] {
					link, ok := item.(*mcp.ResourceLink)
					if !ok || i < len(names) && link.URI != "memo://memos/"+strings.TrimPrefix(names[i], "memos/") {
						t.Errorf("content item %d is %+v, want a resource_link to %s", i+1, item, names[i])
					}
				}
				return names
			}
			for _, tc := range []struct {
				name string
				args map[string]any
				want []string
			}{
				{"every seeded memo, newest first", map[string]any{"text": run}, all},
				{"a word in any case", map[string]any{"text": run + " boiler"}, []string{e, a}},
				{"every word required", map[string]any{"text": run + " boiler PRESSURE"}, []string{e}},
				{"a tag with its children", map[string]any{"tags": []any{run + "work"}}, []string{c, b}},
				{"a tag written with #", map[string]any{"tags": []any{"#" + run + "home"}}, []string{a}},
				{"a child tag only", map[string]any{"tags": []any{run + "work/meetings"}}, []string{b}},
				{"any of two tags", map[string]any{"tags": []any{run + "food", run + "home"}}, []string{c, a}},
				{"all of two tags", map[string]any{"tags": []any{run + "food", run + "work"}, "tagMatch": "all"}, []string{c}},
				{"without a tag", map[string]any{"text": run, "withoutTags": []any{run + "work"}}, []string{d, e, a}},
				{"a day in UTC", map[string]any{"text": run, "on": "2024-03-10"}, []string{c, b}},
				{"the same day in Auckland", map[string]any{"text": run, "on": "2024-03-10", "timezone": "Pacific/Auckland"}, []string{b, a}},
				{"the next day in Auckland", map[string]any{"text": run, "on": "2024-03-11", "timezone": "Pacific/Auckland"}, []string{c}},
				{"a range", map[string]any{"text": run, "from": "2024-03-01", "to": "2024-03-31"}, []string{c, b, a}},
				{"today", map[string]any{"text": run, "when": "today"}, []string{d}},
				{"the last 2 days", map[string]any{"text": run, "lastDays": 2}, []string{d}},
				{"this month", map[string]any{"text": run, "when": "this_month"}, []string{d}},
				{"on this day", map[string]any{"text": run, "when": "on_this_day"}, []string{e}},
				{"pinned", map[string]any{"text": run, "pinned": true}, []string{c}},
				{"not pinned", map[string]any{"text": run, "pinned": false}, []string{d, e, b, a}},
				{"public", map[string]any{"text": run, "visibility": "PUBLIC"}, []string{c}},
				{"open tasks", map[string]any{"text": run, "openTasks": true}, []string{b}},
				{"everything visible", map[string]any{"text": run, "scope": "all"}, all},
				{"the breakout value is text", map[string]any{"text": breakout}, []string{d}},
				{"the breakout value as a tag", map[string]any{"tags": []any{breakout}}, nil},
				{"the breakout value as a word", map[string]any{"text": run + ` ") || true`}, []string{d}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if got := search(tc.args); !slices.Equal(got, tc.want) {
						t.Errorf("found %v, want %v", got, tc.want)
					}
				})
			}

			t.Run("pages", func(t *testing.T) {
				var got []string
				token := ""
				for page := 0; page < 5; page++ {
					args := map[string]any{"text": run, "pageSize": 2}
					if token != "" {
						args["pageToken"] = token
					}
					res := finderCall(t, ctx, cs, "memo_search", args)
					sc := res.StructuredContent.(map[string]any)
					for _, m := range sc["memos"].([]any) {
						got = append(got, m.(map[string]any)["name"].(string))
					}
					token, _ = sc["nextPageToken"].(string)
					if token == "" {
						break
					}
				}
				if !slices.Equal(got, all) {
					t.Errorf("pages gave %v, want %v", got, all)
				}
			})

			t.Run("a result's fields", func(t *testing.T) {
				res := finderCall(t, ctx, cs, "memo_search", map[string]any{"text": run + " ramen"})
				m := res.StructuredContent.(map[string]any)["memos"].([]any)[0].(map[string]any)
				want := map[string]any{"name": c, "pinned": true, "visibility": "PUBLIC", "url": memos.URL + "/" + c,
					"tags": []any{run + "food", run + "work"}, "createTime": "2024-03-10T11:00:00Z"}
				for k, v := range want {
					if fmt.Sprint(m[k]) != fmt.Sprint(v) {
						t.Errorf("%s = %v, want %v", k, m[k], v)
					}
				}
				if !strings.HasPrefix(m["snippet"].(string), run+" ramen place") {
					t.Errorf("snippet %q", m["snippet"])
				}
			})

			t.Run("refusals", func(t *testing.T) {
				for _, tc := range []struct {
					name string
					args map[string]any
					want string
				}{
					{"unknown zone", map[string]any{"when": "today", "timezone": "Mars/Olympus"}, "not a known IANA time zone"},
					{"zone with a breakout", map[string]any{"when": "today", "timezone": breakout}, "must be an IANA time zone name"},
					{"two date forms", map[string]any{"on": "2024-03-10", "when": "today"}, "not several"},
					{"bad day", map[string]any{"on": "2024-02-30"}, "YYYY-MM-DD"},
					{"too long a text", map[string]any{"text": strings.Repeat("x", 201)}, "at most 200 bytes"},
					{"too many tags", map[string]any{"tags": []any{"1", "2", "3", "4", "5", "6"}, "withoutTags": []any{"7", "8", "9", "10", "11"}}, "at most 10 tags"},
					{"too large a page", map[string]any{"pageSize": 51}, "from 1 to 50"},
					{"a wrong type", map[string]any{"pinned": "yes"}, "pinned"},
					{"an unknown argument", map[string]any{"filter": "true"}, "filter"},
				} {
					t.Run(tc.name, func(t *testing.T) {
						if got := finderFails(t, ctx, cs, "memo_search", tc.args); !strings.Contains(got, tc.want) {
							t.Errorf("error %q, want it to say %q", got, tc.want)
						}
					})
				}
			})
		})
	}
}

// TestFinderChatGPT checks search and fetch against the shapes OpenAI
// documents for ChatGPT's connectors: exactly one text item whose text is
// the JSON object, with exactly the documented members.
func TestFinderChatGPT(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := fmt.Sprintf("g%x", time.Now().UnixNano()%0xfffffff)
	first := seedMemo(t, "Kettle descaled "+run+"\nwith vinegar #"+run+"home", "PRIVATE", time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC), nil)
	seedMemo(t, "Kettle bought "+run, "PRIVATE", time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC), nil)
	cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, "")
	only := func(res *mcp.CallToolResult) map[string]json.RawMessage {
		t.Helper()
		if len(res.Content) != 1 {
			t.Fatalf("%d content items, want exactly one", len(res.Content))
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	keys := func(obj map[string]json.RawMessage) []string {
		var k []string
		for key := range obj {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}

	obj := only(finderCall(t, ctx, cs, "search", map[string]any{"query": "kettle " + run}))
	if got := keys(obj); !slices.Equal(got, []string{"results"}) {
		t.Fatalf("search answers with %v, want results only", got)
	}
	var results []map[string]json.RawMessage
	if err := json.Unmarshal(obj["results"], &results); err != nil || len(results) != 2 {
		t.Fatalf("results %s: %v", obj["results"], err)
	}
	for _, r := range results {
		if got := keys(r); !slices.Equal(got, []string{"id", "title", "url"}) {
			t.Errorf("a result has %v, want id, title, url", got)
		}
	}
	var id, title, url string
	json.Unmarshal(results[0]["id"], &id)
	json.Unmarshal(results[0]["title"], &title)
	json.Unmarshal(results[0]["url"], &url)
	if "memos/"+id != first || title != "Kettle descaled "+run || url != memos.URL+"/"+first {
		t.Errorf("first result %s %q %s, want %s, its first line, its web page", id, title, url, first)
	}
	if obj := only(finderCall(t, ctx, cs, "search", map[string]any{"query": "#" + run + "home kettle"})); !strings.Contains(string(obj["results"]), id) || strings.Count(string(obj["results"]), `"id"`) != 1 {
		t.Errorf("a #tag word in the query: %s", obj["results"])
	}

	obj = only(finderCall(t, ctx, cs, "fetch", map[string]any{"id": id}))
	if got := keys(obj); !slices.Equal(got, []string{"id", "metadata", "text", "title", "url"}) {
		t.Fatalf("fetch answers with %v", got)
	}
	var text string
	json.Unmarshal(obj["text"], &text)
	if text != "Kettle descaled "+run+"\nwith vinegar #"+run+"home" {
		t.Errorf("text %q", text)
	}
	var meta map[string]string
	if err := json.Unmarshal(obj["metadata"], &meta); err != nil || meta["tags"] != run+"home" || meta["createTime"] != "2024-05-01T09:00:00Z" {
		t.Errorf("metadata %s: %v", obj["metadata"], err)
	}
	for _, form := range []string{first, "memo://" + first} {
		if o := only(finderCall(t, ctx, cs, "fetch", map[string]any{"id": form})); string(o["id"]) != `"`+id+`"` {
			t.Errorf("fetch %s: id %s", form, o["id"])
		}
	}
	if msg := finderFails(t, ctx, cs, "fetch", map[string]any{"id": "nosuchmemo"}); !strings.HasPrefix(msg, "404 Not Found") {
		t.Errorf("fetch of an unknown memo: %q", msg)
	}
}

// TestFinderTagsAndAttachments checks tag_list's counts (and that it never
// passes on the statistics' timestamps), and attachment_read: an image as
// image content, a text file as text, anything else refused.
func TestFinderTagsAndAttachments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := fmt.Sprintf("h%x", time.Now().UnixNano()%0xfffffff)
	memo := seedMemo(t, "#"+run+"a #"+run+"b/c", "PRIVATE", time.Now(), nil)
	seedMemo(t, "#"+run+"a again", "PRIVATE", time.Now(), nil)
	cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, "")

	res := finderCall(t, ctx, cs, "tag_list", map[string]any{"limit": 500})
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, "Timestamp") || strings.Contains(text, "T00:") {
		t.Errorf("tag_list passes on timestamps: %.300s", text)
	}
	counts := map[string]float64{}
	var order []string
	for _, tg := range res.StructuredContent.(map[string]any)["tags"].([]any) {
		m := tg.(map[string]any)
		counts[m["tag"].(string)] = m["count"].(float64)
		order = append(order, m["tag"].(string))
	}
	if counts[run+"a"] != 2 || counts[run+"b/c"] != 1 {
		t.Errorf("counts %v, want %sa: 2, %sb/c: 1", counts, run, run)
	}
	if i, j := slices.Index(order, run+"a"), slices.Index(order, run+"b/c"); i > j {
		t.Errorf("a tag used twice comes after one used once: %v", order)
	}
	if n := len(finderCall(t, ctx, cs, "tag_list", map[string]any{"limit": 1}).StructuredContent.(map[string]any)["tags"].([]any)); n != 1 {
		t.Errorf("limit 1 gave %d tags", n)
	}

	attach := func(filename, mime string, content []byte) string {
		a := rest(t, "POST", "/api/v1/attachments", map[string]any{"filename": filename, "type": mime,
			"content": base64.StdEncoding.EncodeToString(content), "memo": memo})
		return a["name"].(string)
	}
	png := attach("dot.png", "image/png", onePixelPNG)
	notes := attach("notes.txt", "text/plain", []byte("boiler: 1.5 bar\n"))
	pdf := attach("manual.pdf", "application/pdf", []byte("%PDF-1.4\n"))

	res = finderCall(t, ctx, cs, "attachment_read", map[string]any{"name": png})
	if len(res.Content) != 2 {
		t.Fatalf("%d content items, want the description and the image", len(res.Content))
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || !strings.HasPrefix(img.MIMEType, "image/") || len(img.Data) == 0 {
		t.Fatalf("second item %+v, want image content", res.Content[1])
	}
	if img.MIMEType == "image/png" && !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Errorf("image data is not a PNG: %q", img.Data[:min(8, len(img.Data))])
	}
	res = finderCall(t, ctx, cs, "attachment_read", map[string]any{"name": "memo://" + notes})
	if tx, ok := res.Content[1].(*mcp.TextContent); !ok || tx.Text != "boiler: 1.5 bar\n" {
		t.Errorf("text attachment came back as %+v", res.Content[1])
	}
	if msg := finderFails(t, ctx, cs, "attachment_read", map[string]any{"name": pdf}); !strings.Contains(msg, "images (PNG, JPEG, GIF, WebP) and text files only") {
		t.Errorf("a PDF: %q", msg)
	}
}

// onePixelPNG is a 1×1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// TestFinderCost checks that each hand-written tool makes at most two
// Memos requests however large its arguments, and none for arguments over
// the caps; and that a read-only grant's rules and TOOLS apply to them.
func TestFinderCost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL(), "TOOLS": "-search,-fetch"}})
	cs := connect(t, ctx, gw.URL+"/mcp", memos.Token, "")
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if slices.Contains(names, "search") || slices.Contains(names, "fetch") || !slices.Contains(names, "memo_search") {
		t.Errorf("TOOLS=-search,-fetch serves %v", names)
	}
	tags := make([]any, 10)
	for i := range tags {
		tags[i] = strings.Repeat("t", 60) + fmt.Sprint(i)
	}
	for _, tc := range []struct {
		name     string
		tool     string
		args     map[string]any
		requests int // to Memos, the instance profile aside
		fails    bool
	}{
		{"every memo_search argument at its cap", "memo_search", map[string]any{
			"text": strings.Repeat("word ", 8)[:39], "tags": tags, "tagMatch": "all", "when": "on_this_day", "timezone": "America/Argentina/Buenos_Aires",
			"pinned": false, "visibility": "PRIVATE", "openTasks": true, "pageSize": 50}, 2, false},
		{"scope all", "memo_search", map[string]any{"text": "x", "scope": "all"}, 1, false},
		{"over the text cap", "memo_search", map[string]any{"text": strings.Repeat("x", 10_000)}, 0, true},
		{"over the word cap", "memo_search", map[string]any{"text": strings.Repeat("x ", 9)}, 0, true},
		{"over the tag cap", "memo_search", map[string]any{"tags": append(tags, "eleven")}, 0, true},
		{"ten years of days", "memo_search", map[string]any{"lastDays": 3660, "timezone": "Pacific/Auckland"}, 2, false},
		{"tag_list", "tag_list", map[string]any{"limit": 500}, 2, false},
		{"attachment_read of a missing one", "attachment_read", map[string]any{"name": "attachments/nosuch"}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The caller check (asked again once its answer is 5 seconds
			// old) is not the tool's: a tools/list does it first.
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			before, _ := proxy.requests()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.fails {
				t.Errorf("isError %t, want %t: %+v", res.IsError, tc.fails, res.Content[0])
			}
			after, _ := proxy.requests()
			if after-before != tc.requests {
				t.Errorf("%d Memos requests, want %d", after-before, tc.requests)
			}
		})
	}
	h := getHealth(t, &http.Client{Timeout: time.Minute}, gw.URL)
	t.Logf("after the calls: %.1f MB of wasm memory", float64(h.Instance.Memory.WasmBytes)/(1<<20))
	if h.Instance.Memory.WasmBytes >= wasmCeiling {
		t.Errorf("wasm memory %d bytes after the calls", h.Instance.Memory.WasmBytes)
	}
}
