//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
)

// tools calls the gateway's tools through a go-sdk client session and checks
// the shape of every answer.
type tools struct {
	t   *testing.T
	ctx context.Context
	cs  *mcp.ClientSession
}

func newTools(t *testing.T, token string) *tools {
	t.Helper()
	return toolsAt(t, worker.URL, token)
}

// toolsAt is a session with the gateway at base (not the shared one).
func toolsAt(t *testing.T, base, token string) *tools {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &tools{t: t, ctx: ctx, cs: connect(t, ctx, base+"/mcp", token, "")}
}

// anonymousTools is a session that sends no Authorization header at all.
func anonymousTools(t *testing.T, base string) *tools {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "memos-mcp-edge-e2e-anonymous", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &tools{t: t, ctx: ctx, cs: cs}
}

func (c *tools) call(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.cs.CallTool(c.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok {
		c.t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content,
// after checking it against the tool's output schema and its text copy;
// for a tool that answers in text alone, the JSON of its text.
func (c *tools) ok(name string, args map[string]any) map[string]any {
	c.t.Helper()
	res := c.call(name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		c.t.Fatalf("%s: tool error: %s", name, text)
	}
	if textOnly(c.t, name) {
		var obj map[string]any
		if err := json.Unmarshal([]byte(text), &obj); err != nil || res.StructuredContent != nil {
			c.t.Fatalf("%s: want a JSON object as the text alone (%v), structuredContent %v", name, err, res.StructuredContent)
		}
		return obj
	}
	obj, isObj := res.StructuredContent.(map[string]any)
	if !isObj {
		c.t.Fatalf("%s: structuredContent is %T, want an object", name, res.StructuredContent)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		c.t.Fatalf("%s: text is not the JSON of the result: %v", name, err)
	}
	a, _ := json.Marshal(obj)
	b, _ := json.Marshal(fromText)
	if string(a) != string(b) {
		c.t.Errorf("%s: text and structuredContent differ:\n%s\n%s", name, b, a)
	}
	if strings.Contains(text, ":null") {
		c.t.Errorf("%s: result carries a null member: %s", name, text)
	}
	if err := outputSchema(c.t, name).Validate(obj); err != nil {
		c.t.Errorf("%s: result does not match the output schema: %v\n%s", name, err, text)
	}
	return obj
}

// fails calls a tool that must fail and returns the error text.
func (c *tools) fails(name string, args map[string]any) string {
	c.t.Helper()
	res := c.call(name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError {
		c.t.Fatalf("%s: succeeded, want a tool error: %s", name, text)
	}
	if res.StructuredContent != nil {
		c.t.Errorf("%s: tool error carries structuredContent", name)
	}
	return text
}

func outputSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	def := registryTool(t, name)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(def.OutputSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:output:"+def.Name, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:output:" + def.Name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// get reads a dotted path (items of arrays by index) out of a result.
func get(v any, path string) any {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i := 0
			for _, c := range key {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path string) string { s, _ := get(v, path).(string); return s }

func count(v any, path string) int { a, _ := get(v, path).([]any); return len(a) }

func (c *tools) createMemo(content, visibility string) string {
	c.t.Helper()
	m := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": content, "visibility": visibility}})
	name := str(m, "name")
	if !strings.HasPrefix(name, "memos/") || str(m, "content") != content {
		c.t.Fatalf("created memo %v", m)
	}
	return name
}

// Memos, comments, reactions, relations, updates, filters and pagination,
// each through the Worker with the real token.
func TestToolsMemos(t *testing.T) {
	c := newTools(t, memos.Token)

	me := c.ok("auth_get_current_user", nil)
	if got, want := str(me, "user.name"), "users/"+memos.Username; got != want {
		t.Errorf("current user %q, want %q", got, want)
	}
	views, key := savedViews()
	if list := c.ok(views, map[string]any{"user": "users/" + memos.Username}); count(list, key) != 0 {
		t.Errorf("%s of a fresh user: %v", views, list)
	}

	a := c.createMemo("first memo of the tool tests #e2etools", "PRIVATE")
	b := c.createMemo("second memo of the tool tests #e2etools", "PROTECTED")
	if got := str(c.ok("memo_get_memo", map[string]any{"memo": a}), "content"); got != "first memo of the tool tests #e2etools" {
		t.Errorf("get by name: content %q", got)
	}
	if got := str(c.ok("memo_get_memo", map[string]any{"memo": strings.TrimPrefix(b, "memos/")}), "name"); got != b {
		t.Errorf("get by id: name %q, want %q", got, b)
	}

	t.Run("update with updateMask", func(t *testing.T) {
		hash := str(c.ok("memo_get_memo", map[string]any{"memo": a}), "contentHash")
		m := c.ok("memo_update_memo", map[string]any{"memo": a, "updateMask": "content", "contentHash": hash, "body": map[string]any{"content": "first memo, edited #e2etools"}})
		if str(m, "content") != "first memo, edited #e2etools" || str(m, "replaced.content") != "first memo of the tool tests #e2etools" {
			t.Errorf("content %q, replaced %v", str(m, "content"), get(m, "replaced"))
		}
	})
	t.Run("update without updateMask", func(t *testing.T) {
		m := c.ok("memo_update_memo", map[string]any{"memo": a, "body": map[string]any{"pinned": true, "visibility": "PROTECTED"}})
		if get(m, "pinned") != true || str(m, "visibility") != "PROTECTED" {
			t.Errorf("pinned %v, visibility %q", get(m, "pinned"), str(m, "visibility"))
		}
	})
	t.Run("location update", func(t *testing.T) {
		loc := map[string]any{"placeholder": "Berlin", "latitude": 52.52, "longitude": 13.405}
		c.ok("memo_update_memo", map[string]any{"memo": a, "body": map[string]any{"location": loc}})
		m := c.ok("memo_get_memo", map[string]any{"memo": a})
		if str(m, "location.placeholder") != "Berlin" || get(m, "location.latitude") != 52.52 || get(m, "location.longitude") != 13.405 {
			t.Errorf("location after the update: %v", get(m, "location"))
		}
		if str(m, "content") != "first memo, edited #e2etools" {
			t.Errorf("the location update changed the content: %q", str(m, "content"))
		}
	})

	// Memos stores the location a memo or a comment is created with, and
	// answers with it: it reads back as it was given, and no note says
	// otherwise.
	t.Run("location on create", func(t *testing.T) {
		loc := map[string]any{"placeholder": "Lisbon", "latitude": 38.7223, "longitude": -9.1393}
		made := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "a memo made somewhere #e2etools", "location": loc}})
		cm := c.ok("memo_create_memo_comment", map[string]any{"memo": a, "body": map[string]any{"content": "a comment made somewhere", "location": loc}})
		for _, m := range []map[string]any{made, cm} {
			if note := str(m, "note"); note != "" {
				t.Errorf("%s: note %q", str(m, "name"), note)
			}
			back := c.ok("memo_get_memo", map[string]any{"memo": str(m, "name")})
			if str(back, "location.placeholder") != "Lisbon" || get(back, "location.latitude") != 38.7223 || get(back, "location.longitude") != -9.1393 {
				t.Errorf("%s: location %v, want %v", str(m, "name"), get(back, "location"), loc)
			}
		}
		c.ok("memo_delete_memo", map[string]any{"memo": str(cm, "name")})
		c.ok("memo_delete_memo", map[string]any{"memo": str(made, "name")})
	})

	t.Run("comments", func(t *testing.T) {
		cm := c.ok("memo_create_memo_comment", map[string]any{"memo": a, "body": map[string]any{"content": "a comment"}})
		list := c.ok("memo_list_memo_comments", map[string]any{"memo": a})
		if count(list, "memos") != 1 || str(list, "memos.0.name") != str(cm, "name") || str(list, "memos.0.content") != "a comment" {
			t.Errorf("comments: %v", list)
		}
		if got := c.ok("memo_get_memo", map[string]any{"memo": str(cm, "name")}); str(got, "parent") != a {
			t.Errorf("comment's parent %q, want %q", str(got, "parent"), a)
		}
	})

	t.Run("reactions", func(t *testing.T) {
		reaction := map[string]any{"reactionType": "👍"}
		if reactionTakesContentID(t) {
			reaction["contentId"] = a
		}
		r := c.ok("memo_upsert_memo_reaction", map[string]any{"memo": a, "body": map[string]any{"reaction": reaction}})
		name := str(r, "name")
		if !strings.HasPrefix(name, a+"/reactions/") {
			t.Fatalf("reaction name %q", name)
		}
		if n := count(c.ok("memo_list_memo_reactions", map[string]any{"memo": a}), "reactions"); n != 1 {
			t.Errorf("%d reactions, want 1", n)
		}
		c.ok("memo_delete_memo_reaction", map[string]any{"memo": strings.TrimPrefix(a, "memos/"), "reaction": name})
		if n := count(c.ok("memo_list_memo_reactions", map[string]any{"memo": a}), "reactions"); n != 0 {
			t.Errorf("%d reactions after the delete, want 0", n)
		}
	})

	t.Run("relations", func(t *testing.T) {
		rel := map[string]any{"memo": map[string]any{"name": a}, "relatedMemo": map[string]any{"name": b}, "type": "REFERENCE"}
		c.ok("memo_set_memo_relations", map[string]any{"memo": a, "body": map[string]any{"relations": []any{rel}}})
		list := c.ok("memo_list_memo_relations", map[string]any{"memo": a})
		found := false
		for _, r := range get(list, "relations").([]any) {
			found = found || str(r, "relatedMemo.name") == b && str(r, "type") == "REFERENCE"
		}
		if !found {
			t.Errorf("relation to %s missing: %v", b, list)
		}
	})

	t.Run("filter and pagination", func(t *testing.T) {
		filter := `"e2etools" in tags`
		first := c.ok("memo_list_memos", map[string]any{"filter": filter, "pageSize": 1})
		token := str(first, "nextPageToken")
		if count(first, "memos") != 1 || token == "" {
			t.Fatalf("first page: %v", first)
		}
		second := c.ok("memo_list_memos", map[string]any{"filter": filter, "pageSize": 1, "pageToken": token})
		if count(second, "memos") != 1 || str(second, "memos.0.name") == str(first, "memos.0.name") {
			t.Errorf("second page: %v", second)
		}
		names := map[string]bool{str(first, "memos.0.name"): true, str(second, "memos.0.name"): true}
		if !names[a] || !names[b] {
			t.Errorf("pages hold %v, want %s and %s", names, a, b)
		}
	})

	t.Run("delete", func(t *testing.T) {
		c.ok("memo_delete_memo", map[string]any{"memo": b})
		if msg := c.fails("memo_get_memo", map[string]any{"memo": b}); !strings.HasPrefix(msg, "404 Not Found") {
			t.Errorf("get after delete: %q", msg)
		}
	})
}

// Attachments: created from base64 content, set on a memo, listed, read and
// deleted. Memos v0.30.0 sends "motionMedia": null on each; the results
// carry none (checked by tools.ok).
func TestToolsAttachments(t *testing.T) {
	c := newTools(t, memos.Token)
	content := "hello from the tool tests"
	att := c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{
		"filename": "hello.txt", "type": "text/plain", "content": base64.StdEncoding.EncodeToString([]byte(content)),
	}})
	name := str(att, "name")
	if !strings.HasPrefix(name, "attachments/") || str(att, "size") != "25" {
		t.Fatalf("created attachment %v", att)
	}
	memo := c.createMemo("memo with an attachment", "PRIVATE")
	c.ok("memo_set_memo_attachments", map[string]any{"memo": memo, "body": map[string]any{
		"attachments": []any{map[string]any{"name": name}},
	}})
	onMemo := c.ok("memo_list_memo_attachments", map[string]any{"memo": memo})
	if count(onMemo, "attachments") != 1 || str(onMemo, "attachments.0.name") != name {
		t.Errorf("memo attachments: %v", onMemo)
	}
	if got := c.ok("memo_get_memo", map[string]any{"memo": memo}); str(got, "attachments.0.name") != name {
		t.Errorf("memo carries attachments %v", get(got, "attachments"))
	}
	all := c.ok("attachment_list_attachments", map[string]any{"pageSize": 50})
	found := false
	for _, a := range get(all, "attachments").([]any) {
		found = found || str(a, "name") == name
	}
	if !found {
		t.Errorf("attachment %s not listed: %v", name, all)
	}
	if got := c.ok("attachment_get_attachment", map[string]any{"attachment": strings.TrimPrefix(name, "attachments/")}); str(got, "filename") != "hello.txt" || str(got, "memo") != memo {
		t.Errorf("attachment: %v", got)
	}
	c.ok("attachment_delete_attachment", map[string]any{"attachment": name})
	if msg := c.fails("attachment_get_attachment", map[string]any{"attachment": name}); !strings.HasPrefix(msg, "404 Not Found") {
		t.Errorf("get after delete: %q", msg)
	}
}

// Memos' refusals come back as "<code> <reason>: <message>"; invalid
// arguments never reach Memos.
func TestToolsErrors(t *testing.T) {
	c := newTools(t, memos.Token)

	t.Run("no token", func(t *testing.T) {
		anon := anonymousTools(t, worker.URL)
		if msg := anon.fails("memo_create_memo", map[string]any{"body": map[string]any{"content": "anonymous"}}); !strings.HasPrefix(msg, "401 Unauthorized: authentication required;") || !strings.HasSuffix(msg, "; nothing was written: trying again is safe") {
			t.Errorf("got %q", msg)
		}
		if msg := anon.fails("auth_get_current_user", nil); msg != "401 Unauthorized: authentication required" {
			t.Errorf("got %q", msg)
		}
	})
	t.Run("bad token", func(t *testing.T) {
		// Refused before any tool runs: Memos does not accept the token.
		resp, answer := rpcPost(t, worker.URL, "Bearer memos_pat_not-a-real-token", whoAmIBody)
		refusedToken(t, "tools/call", resp, answer)
	})
	t.Run("unknown memo", func(t *testing.T) {
		if msg := c.fails("memo_get_memo", map[string]any{"memo": "memos/doesnotexist"}); msg != "404 Not Found: memo not found" {
			t.Errorf("got %q", msg)
		}
	})

	memo := c.createMemo("memo the invalid calls must leave alone #e2einvalid", "PRIVATE")
	before := c.ok("memo_list_memos", map[string]any{"filter": `"e2einvalid" in tags`})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"missing argument", "memo_get_memo", map[string]any{}, `missing required argument "memo"`},
		{"unknown argument", "memo_get_memo", map[string]any{"memo": memo, "verbose": true}, `unknown argument "verbose"`},
		{"wrong type", "memo_list_memos", map[string]any{"pageSize": "ten"}, `argument "pageSize" must be integer`},
		{"bad enum in an update", "memo_update_memo", map[string]any{"memo": memo, "body": map[string]any{"visibility": "SECRET", "content": "changed"}},
			`argument "body.visibility" must be one of "PRIVATE", "PROTECTED", "PUBLIC"`},
		{"empty update", "memo_update_memo", map[string]any{"memo": memo, "body": map[string]any{}}, `argument "body" must have at least 1 field`},
		{"create without content", "memo_create_memo", map[string]any{"body": map[string]any{"visibility": "PUBLIC", "tags": []any{"e2einvalid"}}}, `missing required argument "body.content"`},
		{"content of the wrong type", "memo_create_memo", map[string]any{"body": map[string]any{"content": 5}}, `argument "body.content" must be string`},
		{"path climbing", "memo_delete_memo", map[string]any{"memo": "memos/../attachments/x"}, `argument "memo" must be an id or a resource name of the form memos/<id>`},
		{"encoded slash", "memo_delete_memo", map[string]any{"memo": "x%2F..%2Fy"}, `argument "memo" must not contain '%'`},
		{"query injection", "memo_update_memo", map[string]any{"memo": strings.TrimPrefix(memo, "memos/") + "?updateMask=content", "body": map[string]any{"content": "changed"}},
			`argument "memo" must not contain '?'`},
		{"unknown updateMask field", "memo_update_memo", map[string]any{"memo": memo, "updateMask": "tags", "body": map[string]any{"content": "changed"}},
			`updateMask field "tags" cannot be updated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := c.fails(tc.tool, tc.args); !strings.HasPrefix(msg, tc.want) {
				t.Errorf("got  %q\nwant %q…", msg, tc.want)
			}
		})
	}
	after := c.ok("memo_list_memos", map[string]any{"filter": `"e2einvalid" in tags`})
	a, _ := json.Marshal(before)
	b, _ := json.Marshal(after)
	if string(a) != string(b) {
		t.Errorf("Memos changed although every call was refused:\nbefore %s\nafter  %s", a, b)
	}

	t.Run("unknown tool", func(t *testing.T) {
		_, err := c.cs.CallTool(c.ctx, &mcp.CallToolParams{Name: "memo_no_such_tool", Arguments: map[string]any{}})
		if err == nil {
			t.Error("an unknown tool answered without a protocol error")
		}
	})
}

// Anonymous callers read public memos (the test instance runs with
// --instance-url, so Memos allows it) and nothing else.
func TestToolsAnonymousPublicRead(t *testing.T) {
	c := newTools(t, memos.Token)
	public := c.createMemo("a public memo for anonymous readers", "PUBLIC")
	private := c.createMemo("a private memo", "PRIVATE")
	anon := anonymousTools(t, worker.URL)
	if got := anon.ok("memo_get_memo", map[string]any{"memo": public}); str(got, "content") != "a public memo for anonymous readers" {
		t.Errorf("anonymous read: %v", got)
	}
	if msg := anon.fails("memo_get_memo", map[string]any{"memo": private}); !strings.HasPrefix(msg, "40") {
		t.Errorf("anonymous read of a private memo: %q", msg)
	}
}

// A large answer (over the 64 KB the entry module streams in pieces) reaches
// the client whole: 48 memos of about 1.2 KB each. (wrangler dev's proxy
// sends every answer chunked, so the length it was made with does not show.)
func TestLargeAnswer(t *testing.T) {
	c := newTools(t, memos.Token)
	const n, tag = 48, "#e2elarge"
	want := map[string]string{}
	for i := range n {
		content := fmt.Sprintf("large answer memo %02d %s ", i, tag) + strings.Repeat(fmt.Sprintf("line %02d with \"quotes\" and a \\ backslash; ", i), 25)
		want[c.createMemo(content, "PRIVATE")] = content
	}
	status, body := post(t, worker.URL, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memo_list_memos","arguments":{"pageSize":100,"filter":"tag in [\"e2elarge\"]"}}}`, nil)
	if status != 200 || len(body) < 128*1024 {
		t.Fatalf("status %d, %d bytes", status, len(body))
	}
	r := gjson.Parse(body)
	memosGot := r.Get("result.structuredContent.memos").Array()
	if !gjson.Valid(body) || len(memosGot) != n || r.Get("result.content.0.text").Str != r.Get("result.structuredContent").Raw {
		t.Fatalf("answer of %d bytes: valid %v, %d memos", len(body), gjson.Valid(body), len(memosGot))
	}
	for _, m := range memosGot {
		if content, ok := want[m.Get("name").Str]; !ok || m.Get("content").Str != content {
			t.Errorf("memo %s: content %.60q…", m.Get("name").Str, m.Get("content").Str)
		}
	}
}

// registryTool is the tool called name, as the Worker serves it to the
// test's Memos.
func registryTool(t *testing.T, name string) *registry.Tool {
	t.Helper()
	for _, tool := range served().Tools() {
		if tool.Name == name {
			return &tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// textOnly reports whether the tool called name answers in text alone: it
// declares no output schema, so its result carries no structured content.
func textOnly(t *testing.T, name string) bool {
	t.Helper()
	return registryTool(t, name).OutputSchema() == ""
}

// savedViews names the tool that lists a user's saved filters in the
// release the Worker serves (shortcuts in v0.30, memo views in v0.31), and
// the member of its answer that holds them: the one array its output
// schema lists.
func savedViews() (tool, key string) {
	t := served().Curated("ShortcutService_ListShortcuts")
	rawjson.Parse(t.OutputSchema()).Get("properties").ForEach(func(k, v rawjson.Value) bool {
		if v.Get("type").String() == "array" {
			key = k.Str
		}
		return true
	})
	return t.Name, key
}
