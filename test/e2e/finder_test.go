//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// rest calls Memos' own API with the test token and decodes the answer.
func rest(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	return restOn(t, memos, method, path, body)
}

// restOn is rest against Memos m, with its token.
func restOn(t *testing.T, m *harness.Memos, method, path string, body any) map[string]any {
	t.Helper()
	status, raw := restRaw(t, m.URL, m.Token, method, path, body)
	if status != 200 {
		t.Fatalf("%s %s: %d %s", method, path, status, raw)
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
// result and its answer: the structured content, checked against the
// output schema and the text copy; or, for a tool that answers in text
// alone (it declares no output schema), the JSON of its one text item,
// with nothing beside it.
func finderCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if res.IsError || text == nil {
		t.Fatalf("%s %v: error or no text first: %+v", name, args, res.Content[0])
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("%s: the text is not a JSON object: %v", name, err)
	}
	if textOnly(t, name) {
		if res.StructuredContent != nil || len(res.Content) != 1 {
			t.Errorf("%s: structuredContent %v and %d content items, want the text alone", name, res.StructuredContent, len(res.Content))
		}
		return res, fromText
	}
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(res.StructuredContent)
	if !bytes.Equal(a, b) {
		t.Errorf("%s: text and structuredContent differ:\n%s\n%s", name, a, b)
	}
	if err := outputSchema(t, name).Validate(fromText); err != nil {
		t.Errorf("%s: result does not match the output schema: %v", name, err)
	}
	return res, fromText
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

// hits returns the names of a memo_search answer's hits and the hits
// themselves.
func hits(answer map[string]any) ([]string, []map[string]any) {
	var names []string
	var all []map[string]any
	for _, h := range answer["memos"].([]any) {
		m := h.(map[string]any)
		names, all = append(names, m["name"].(string)), append(all, m)
	}
	return names, all
}

// TestFinderSearch seeds memos with known words, tags, states and creation
// times, and checks that each form of memo_search finds exactly them, in
// both protocol eras: newest first, with links (not for 2024-11-05, which
// has no resource_link), paged, in time zones, and with a value crafted to
// break out of the filter found as plain text; each hit with only the
// fields the call does not imply.
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
			search := func(args map[string]any) []string {
				t.Helper()
				_, answer := finderCall(t, ctx, cs, "memo_search", args)
				names, _ := hits(answer)
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
					_, sc := finderCall(t, ctx, cs, "memo_search", args)
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
				for _, tc := range []struct {
					name    string
					args    map[string]any
					created string
				}{
					{"in UTC", map[string]any{"text": run + " ramen"}, "2024-03-10T11:00:00Z"},
					{"in Auckland", map[string]any{"text": run + " ramen", "timezone": "Pacific/Auckland"}, "2024-03-11T00:00:00+13:00"},
					{"everything visible", map[string]any{"text": run + " ramen", "scope": "all"}, "2024-03-10T11:00:00Z"},
				} {
					t.Run(tc.name, func(t *testing.T) {
						_, sc := finderCall(t, ctx, cs, "memo_search", tc.args)
						m := sc["memos"].([]any)[0].(map[string]any)
						want := map[string]any{"name": c, "created": tc.created, "visibility": "PUBLIC", "pinned": true,
							"tags": []any{run + "food", run + "work"}, "text": run + " ramen place #" + run + "food #" + run + "work"}
						if tc.args["scope"] == "all" {
							want["creator"] = "users/" + memos.Username
						}
						// Seeding set the creation time in a later edit: the
						// update time is today's, a later day, so it is shown.
						for k := range m {
							if _, ok := want[k]; !ok && k != "updated" {
								t.Errorf("a hit has %s = %v, which the call implies or which repeats", k, m[k])
							}
						}
						for k, v := range want {
							if fmt.Sprint(m[k]) != fmt.Sprint(v) {
								t.Errorf("%s = %v, want %v", k, m[k], v)
							}
						}
						if u, _ := m["updated"].(string); len(u) < 20 || u[:4] != fmt.Sprint(now.Year()) {
							t.Errorf("updated = %v, want this year's edit", m["updated"])
						}
						// The page names the zone only when the call did not.
						page := []string{"memos", "url"}
						if tc.args["timezone"] == nil {
							page = []string{"memos", "timezone", "url"}
						}
						if got := slices.Sorted(maps.Keys(sc)); !slices.Equal(got, page) || sc["url"] != memos.URL+"/memos/{id}" {
							t.Errorf("the page holds %v (url %v), want %v", got, sc["url"], page)
						}
					})
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
	only := func(res *mcp.CallToolResult, _ map[string]any) map[string]json.RawMessage {
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
	// Strings only, and only what there is to say: not pinned, PRIVATE,
	// no attachments, and no name (the id says it).
	var meta map[string]string
	if err := json.Unmarshal(obj["metadata"], &meta); err != nil {
		t.Fatalf("metadata %s: %v", obj["metadata"], err)
	}
	delete(meta, "updated") // seeding set the creation time in a later edit
	if want := map[string]string{"created": "2024-05-01T09:00:00Z", "creator": "users/" + memos.Username, "tags": run + "home"}; !maps.Equal(meta, want) {
		t.Errorf("metadata %v, want %v", meta, want)
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
	// A parent written beside its child, and the child alone: Memos v0.31
	// counts the parent for both memos, tag_list for the one that writes it.
	seedMemo(t, "#"+run+"p and #"+run+"p/q", "PRIVATE", time.Now(), nil)
	seedMemo(t, "#"+run+"p/q alone", "PRIVATE", time.Now(), nil)
	cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, "")

	res, answer := finderCall(t, ctx, cs, "tag_list", map[string]any{"limit": 500})
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, "Timestamp") || strings.Contains(text, "T00:") {
		t.Errorf("tag_list passes on timestamps: %.300s", text)
	}
	counts := map[string]float64{}
	var order []string
	for _, tg := range answer["tags"].([]any) {
		m := tg.(map[string]any)
		counts[m["tag"].(string)] = m["count"].(float64)
		order = append(order, m["tag"].(string))
	}
	if counts[run+"a"] != 2 || counts[run+"b/c"] != 1 || counts[run+"p"] != 1 || counts[run+"p/q"] != 2 {
		t.Errorf("counts %v, want %sa: 2, %sb/c: 1, %sp: 1, %sp/q: 2", counts, run, run, run, run)
	}
	if _, ok := counts[run+"b"]; ok {
		t.Errorf("tag_list counts %sb, which no memo writes (only its child %sb/c): %v", run, run, counts)
	}
	if i, j := slices.Index(order, run+"a"), slices.Index(order, run+"b/c"); i > j {
		t.Errorf("a tag used twice comes after one used once: %v", order)
	}
	if _, answer := finderCall(t, ctx, cs, "tag_list", map[string]any{"limit": 1}); len(answer["tags"].([]any)) != 1 {
		t.Errorf("limit 1 gave %v", answer["tags"])
	}

	attach := func(filename, mime string, content []byte) string {
		a := rest(t, "POST", "/api/v1/attachments", map[string]any{"filename": filename, "type": mime,
			"content": base64.StdEncoding.EncodeToString(content), "memo": memo})
		return a["name"].(string)
	}
	png := attach("dot.png", "image/png", onePixelPNG)
	notes := attach("notes.txt", "text/plain", []byte("boiler: 1.5 bar\n"))
	pdf := attach("manual.pdf", "application/pdf", []byte("%PDF-1.4\n"))

	res, _ = finderCall(t, ctx, cs, "attachment_read", map[string]any{"name": png})
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
	res, _ = finderCall(t, ctx, cs, "attachment_read", map[string]any{"name": "memo://" + notes})
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
	// A nested tag: where Memos counts its parent as if written (v0.31,
	// whose description teaches "x" in tags), tag_list reads the memos
	// with nested tags too, one request more.
	seedMemo(t, "#costparent/child", "PRIVATE", time.Now(), nil)
	tagList := 1
	if teachesIn(t) {
		tagList = 2
	}
	for _, tc := range []struct {
		name     string
		tool     string
		args     map[string]any
		requests int // to Memos, the instance profile aside; who the caller is comes from the caller check
		fails    bool
	}{
		{"every memo_search argument at its cap", "memo_search", map[string]any{
			"text": strings.Repeat("word ", 8)[:39], "tags": tags, "tagMatch": "all", "when": "on_this_day", "timezone": "America/Argentina/Buenos_Aires",
			"pinned": false, "visibility": "PRIVATE", "openTasks": true, "pageSize": 50}, 1, false},
		// Words no memo holds: a hit with comments would cost a request
		// more (its comments are searched too), and which of the newest
		// memos holding a common word have comments depends on the tests
		// run before.
		{"scope all", "memo_search", map[string]any{"text": "nosuchword" + strconv.FormatInt(time.Now().UnixNano(), 36), "scope": "all"}, 1, false},
		{"over the text cap", "memo_search", map[string]any{"text": strings.Repeat("x", 10_000)}, 0, true},
		{"over the word cap", "memo_search", map[string]any{"text": strings.Repeat("x ", 9)}, 0, true},
		{"over the tag cap", "memo_search", map[string]any{"tags": append(tags, "eleven")}, 0, true},
		{"ten years of days", "memo_search", map[string]any{"lastDays": 3660, "timezone": "Pacific/Auckland"}, 1, false},
		{"tag_list", "tag_list", map[string]any{"limit": 500}, tagList, false},
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

// paragraph is n sentences of text that no search here asks for.
func paragraph(n int) string {
	return strings.TrimSpace(strings.Repeat("we talked about the plan for the team. ", n))
}

// TestFinderAnswers checks that memo_search's hits hold the answer, with
// the facts planted past a long memo's first line: the lines that matched,
// the open tasks, the first lines for a query without words, marked where
// cut, the tool's description saying how to read the rest; times in the call's zone or the
// deployment's (TIMEZONE), in fetch and resources too; in both protocol
// eras. And that memo_list_memos' filter idioms find what they say.
func TestFinderAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	run := fmt.Sprintf("a%x", time.Now().UnixNano()%0xfffffff)
	// Monday 30 November 2026, 00:13 in Berlin; Sunday in UTC.
	long := seedMemo(t, "Falcon review "+run+"\n"+paragraph(15)+"\nthe gate code is 4711\n"+paragraph(15)+
		"\n- [x] book the room\n- [ ] send the Falcon report to Ann\n"+paragraph(15)+"\n#"+run+"work/falcon",
		"PRIVATE", time.Date(2026, 11, 29, 23, 13, 22, 0, time.UTC), nil)
	short := seedMemo(t, "Standup "+run+"\nmoved to 9:30 #"+run+"work", "PRIVATE", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), nil)
	both := []string{short, long}

	type want struct {
		names []string
		holds []string // in the long memo's text
	}
	for _, version := range []string{"2024-11-05", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, version)
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range list.Tools {
				if d := tool.Description; tool.Name == "memo_search" && (!strings.Contains(d, "… marks text left out") || !strings.Contains(d, "memo_get_memo reads a memo whole")) {
					t.Errorf("memo_search's description does not say how to read what a hit leaves out: %s", d)
				}
			}
			for _, tc := range []struct {
				name string
				args map[string]any
				want want
			}{
				{"the line that matched", map[string]any{"text": run + " gate"},
					want{[]string{long}, []string{"Falcon review " + run + "\n…\nthe gate code is 4711\n…"}}},
				{"the open tasks", map[string]any{"tags": []any{run + "work"}, "openTasks": true},
					want{[]string{long}, []string{"\n- [ ] send the Falcon report to Ann\n"}}},
				{"no words: the first lines", map[string]any{"tags": []any{run + "work"}},
					want{both, []string{"Falcon review " + run + "\nwe talked about"}}},
				{"a day in Berlin, its times there", map[string]any{"text": run, "on": "2026-11-30", "timezone": "Europe/Berlin"},
					want{both, []string{"Falcon review " + run}}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, answer := finderCall(t, ctx, cs, "memo_search", tc.args)
					names, hs := hits(answer)
					if !slices.Equal(names, tc.want.names) {
						t.Fatalf("found %v, want %v", names, tc.want.names)
					}
					h := hs[len(hs)-1] // the long memo
					text, _ := h["text"].(string)
					for _, s := range tc.want.holds {
						if !strings.Contains(text, s) {
							t.Errorf("the long memo's text lacks %q:\n%s", s, text)
						}
					}
					if h["cut"] != true || len([]rune(text)) > 400 {
						t.Errorf("the long memo (%d characters shown) is not marked cut: %v", len([]rune(text)), h["cut"])
					}
					if hs[0]["name"] == short && hs[0]["text"] != "Standup "+run+"\nmoved to 9:30 #"+run+"work" {
						t.Errorf("a short memo is not whole: %q", hs[0]["text"])
					}
					wantTime := "2026-11-29T23:13:22Z"
					if tc.args["timezone"] == "Europe/Berlin" {
						wantTime = "2026-11-30T00:13:22+01:00"
					}
					if h["created"] != wantTime {
						t.Errorf("created %v, want %s", h["created"], wantTime)
					}
				})
			}
		})
	}

	t.Run("the mirror tool's idioms", func(t *testing.T) {
		cs := connect(t, ctx, worker.URL+"/mcp", memos.Token, "")
		list := func(filter string) []string {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memo_list_memos", Arguments: map[string]any{"filter": filter}})
			if err != nil || res.IsError {
				t.Fatalf("filter %s: %v %+v", filter, err, res)
			}
			var names []string
			for _, m := range res.StructuredContent.(map[string]any)["memos"].([]any) {
				names = append(names, m.(map[string]any)["name"].(string))
			}
			return names
		}
		tag := run + "work"
		if got := list(`(tags.exists(t, t == "` + tag + `") || tags.exists(t, t.startsWith("` + tag + `/")))`); !slices.Equal(got, both) {
			t.Errorf("a tag with its children found %v, want %v", got, both)
		}
		// v0.30 gives a memo the tags it writes, so "x" in tags misses
		// x/y and the description teaches the longer idiom; v0.31 adds
		// the parents, so it finds both and the description teaches it.
		want := []string{short}
		if teachesIn(t) {
			want = both
		}
		if got := list(`"` + tag + `" in tags`); !slices.Equal(got, want) {
			t.Errorf(`%s: "work" in tags found %v, want %v as memo_list_memos' description says`, served().Version, got, want)
		}
		// 30 November in Berlin: its midnights in UTC.
		if got := list(`content.contains("` + run + `") && created_ts >= timestamp("2026-11-29T23:00:00Z") && created_ts < timestamp("2026-11-30T23:00:00Z")`); !slices.Equal(got, both) {
			t.Errorf("a day in Berlin found %v, want %v", got, both)
		}
	})

	t.Run("the deployment's time zone", func(t *testing.T) {
		gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": memos.URL, "TIMEZONE": "Europe/Berlin"}})
		cs := connect(t, ctx, gw.URL+"/mcp", memos.Token, "")
		_, sc := finderCall(t, ctx, cs, "memo_search", map[string]any{"text": run, "on": "2026-11-30"})
		names, hs := hits(sc)
		if !slices.Equal(names, both) || sc["timezone"] != "Europe/Berlin" || hs[1]["created"] != "2026-11-30T00:13:22+01:00" {
			t.Errorf("memo_search without a timezone: %v", sc)
		}
		res, _ := finderCall(t, ctx, cs, "fetch", map[string]any{"id": long})
		var obj struct{ Metadata map[string]string }
		json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &obj)
		if obj.Metadata["created"] != "2026-11-30T00:13:22+01:00" {
			t.Errorf("fetch's metadata %v", obj.Metadata)
		}
		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://" + long})
		if err != nil || !strings.Contains(read.Contents[0].Text, "\ncreated: 2026-11-30T00:13:22+01:00\n") {
			t.Errorf("the resource: %v\n%+v", err, read)
		}
	})

	t.Run("an unknown TIMEZONE", func(t *testing.T) {
		gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": memos.URL, "TIMEZONE": "Mars/Olympus"}})
		resp, err := http.Get(gw.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "TIMEZONE is not a known IANA time zone") {
			t.Errorf("/healthz does not name TIMEZONE: %s", body)
		}
	})
}

// A word in a comment is found under the memo the search finds, with the
// comment marked as one, and the hit counts its comments and files; an
// archived memo is found with state ARCHIVED, and beside the others with
// BOTH.
func TestSearchCommentsAndState(t *testing.T) {
	c := newTools(t, memos.Token)
	memo := c.createMemo("Boiler service #e2ecomments", "PRIVATE")
	c.ok("memo_create_memo_comment", map[string]any{"memo": memo, "body": map[string]any{"content": "the plumber quoted 90 EUR for the boiler"}})
	hit := func(args map[string]any) map[string]any {
		t.Helper()
		for _, h := range c.ok("memo_search", args)["memos"].([]any) {
			if h := h.(map[string]any); h["name"] == memo {
				return h
			}
		}
		return nil
	}
	h := hit(map[string]any{"text": "boiler", "tags": []any{"e2ecomments"}})
	if h == nil || get(h, "comments") != 1.0 || !strings.Contains(str(h, "inComments.0.text"), "plumber quoted 90 EUR") {
		t.Errorf("the hit: %v", h)
	}
	c.ok("memo_update_memo", map[string]any{"memo": memo, "body": map[string]any{"state": "ARCHIVED"}})
	if h := hit(map[string]any{"tags": []any{"e2ecomments"}}); h != nil {
		t.Errorf("an archived memo found by default: %v", h)
	}
	if h := hit(map[string]any{"tags": []any{"e2ecomments"}, "state": "ARCHIVED"}); h == nil {
		t.Error("an archived memo not found with state ARCHIVED")
	}
	// BOTH: one list of either state, newest first, the archived marked,
	// paged by the gateway's own token, each memo once.
	normal := c.createMemo("Boiler manual #e2ecomments", "PRIVATE")
	var names []string
	args := map[string]any{"tags": []any{"e2ecomments"}, "state": "BOTH", "pageSize": 1}
	for page := 0; page < 4; page++ {
		res := c.ok("memo_search", args)
		for _, h := range res["memos"].([]any) {
			h := h.(map[string]any)
			names = append(names, h["name"].(string))
			if archived, _ := h["archived"].(bool); archived != (h["name"] == memo) {
				t.Errorf("BOTH marks %v archived: %v", h["name"], archived)
			}
		}
		next, _ := res["nextPageToken"].(string)
		if next == "" {
			break
		}
		args["pageToken"] = next
	}
	if !slices.Equal(names, []string{normal, memo}) {
		t.Errorf("BOTH a page at a time found %v, want %v", names, []string{normal, memo})
	}
}

// teachesIn reports whether the served release's memo_list_memos teaches
// "x" in tags for a tag with its children (v0.31, whose memos carry the
// parents of their tags).
func teachesIn(t *testing.T) bool {
	t.Helper()
	var schema struct {
		Properties struct{ Filter struct{ Description string } }
	}
	if err := json.Unmarshal([]byte(curated(t, "MemoService_ListMemos").InputSchema()), &schema); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(schema.Properties.Filter.Description, `"work" in tags for work and its children`)
}
