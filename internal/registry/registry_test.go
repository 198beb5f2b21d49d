package registry

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/schema"
)

// want describes a tool as Memos' built-in MCP server defines it at v0.30.0:
// route, parameter bindings, required arguments and annotations. The
// registry must match it exactly; the curation's differences are in the
// body schemas, tested below.
type want struct {
	method, path string
	pathParams   []string
	queryParams  []string
	body         bool
	// readOnly, destructive, idempotent hints
	hints [3]bool
}

var (
	get     = [3]bool{true, false, true}
	del     = [3]bool{false, true, true}
	create  = [3]bool{false, false, false}
	replace = [3]bool{false, true, true}
	page    = []string{"pageSize", "pageToken"}
)

var builtIn = map[string]want{
	"memo_list_memos":              {"GET", "/api/v1/memos", nil, []string{"pageSize", "pageToken", "state", "orderBy", "filter"}, false, get},
	"memo_create_memo":             {"POST", "/api/v1/memos", nil, []string{"memoId"}, true, create},
	"memo_get_memo":                {"GET", "/api/v1/memos/{memo}", []string{"memo"}, nil, false, get},
	"memo_update_memo":             {"PATCH", "/api/v1/memos/{memo}", []string{"memo"}, []string{"updateMask"}, true, [3]bool{false, true, false}},
	"memo_delete_memo":             {"DELETE", "/api/v1/memos/{memo}", []string{"memo"}, nil, false, del},
	"memo_list_memo_comments":      {"GET", "/api/v1/memos/{memo}/comments", []string{"memo"}, []string{"pageSize", "pageToken", "orderBy"}, false, get},
	"memo_create_memo_comment":     {"POST", "/api/v1/memos/{memo}/comments", []string{"memo"}, []string{"commentId"}, true, create},
	"memo_list_memo_attachments":   {"GET", "/api/v1/memos/{memo}/attachments", []string{"memo"}, page, false, get},
	"memo_set_memo_attachments":    {"PATCH", "/api/v1/memos/{memo}/attachments", []string{"memo"}, nil, true, replace},
	"memo_list_memo_reactions":     {"GET", "/api/v1/memos/{memo}/reactions", []string{"memo"}, page, false, get},
	"memo_upsert_memo_reaction":    {"POST", "/api/v1/memos/{memo}/reactions", []string{"memo"}, nil, true, create},
	"memo_delete_memo_reaction":    {"DELETE", "/api/v1/memos/{memo}/reactions/{reaction}", []string{"memo", "reaction"}, nil, false, del},
	"memo_list_memo_relations":     {"GET", "/api/v1/memos/{memo}/relations", []string{"memo"}, page, false, get},
	"memo_set_memo_relations":      {"PATCH", "/api/v1/memos/{memo}/relations", []string{"memo"}, nil, true, replace},
	"attachment_list_attachments":  {"GET", "/api/v1/attachments", nil, []string{"pageSize", "pageToken", "filter", "orderBy"}, false, get},
	"attachment_create_attachment": {"POST", "/api/v1/attachments", nil, []string{"attachmentId"}, true, create},
	"attachment_get_attachment":    {"GET", "/api/v1/attachments/{attachment}", []string{"attachment"}, nil, false, get},
	"attachment_delete_attachment": {"DELETE", "/api/v1/attachments/{attachment}", []string{"attachment"}, nil, false, del},
	"shortcut_list_shortcuts":      {"GET", "/api/v1/users/{user}/shortcuts", []string{"user"}, nil, false, get},
	"auth_get_current_user":        {"GET", "/api/v1/auth/me", nil, nil, false, get},
}

// definitions returns the tools/list entries by name.
func definitions(t *testing.T) map[string]gjson.Result {
	t.Helper()
	list := ListJSON()
	if !gjson.ValidBytes(list) {
		t.Fatal("ListJSON is not valid JSON")
	}
	defs := map[string]gjson.Result{}
	for _, d := range gjson.ParseBytes(list).Array() {
		defs[d.Get("name").Str] = d
	}
	return defs
}

func TestToolsMatchBuiltInServer(t *testing.T) {
	if MemosVersion() != "v0.30.0" {
		t.Fatalf("registry built from Memos %s, want the pinned v0.30.0", MemosVersion())
	}
	if n := len(Pinned().tools); n != len(builtIn) {
		t.Fatalf("%d generated tools, want %d", n, len(builtIn))
	}
	defs := definitions(t)
	for _, tool := range All() {
		if tool.Handwritten != nil {
			continue // TestHandwritten
		}
		t.Run(tool.Name, func(t *testing.T) {
			w, ok := builtIn[tool.Name]
			if !ok {
				t.Fatalf("unexpected tool %q", tool.Name)
			}
			if tool.Method != w.method || tool.Path != w.path || tool.HasBody != w.body {
				t.Errorf("route %s %s body=%t, want %s %s body=%t", tool.Method, tool.Path, tool.HasBody, w.method, w.path, w.body)
			}
			var gotPath, gotQuery []string
			for _, p := range tool.Params {
				if p.In == "path" {
					gotPath = append(gotPath, p.Name)
					if !p.Required || p.Type != "string" {
						t.Errorf("path parameter %s: required=%t type=%s", p.Name, p.Required, p.Type)
					}
				} else {
					gotQuery = append(gotQuery, p.Name)
					if p.Required {
						t.Errorf("query parameter %s is required; none is in Memos", p.Name)
					}
				}
			}
			if diff := cmp.Diff(w.pathParams, gotPath); diff != "" {
				t.Errorf("path parameters (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(w.queryParams, gotQuery); diff != "" {
				t.Errorf("query parameters (-want +got):\n%s", diff)
			}
			wantRequired := slices.Clone(w.pathParams)
			if w.body {
				wantRequired = append(wantRequired, "body")
			}
			var gotRequired []string
			for _, r := range gjson.Get(tool.InputSchema(), "required").Array() {
				gotRequired = append(gotRequired, r.Str)
			}
			if diff := cmp.Diff(wantRequired, gotRequired); diff != "" {
				t.Errorf("required arguments (-want +got):\n%s", diff)
			}

			d := defs[tool.Name]
			title := d.Get("title").Str
			if title == "" || d.Get("annotations.title").Str != title || d.Get("description").Str == "" {
				t.Errorf("title %q, annotations.title %q, description empty=%t", title, d.Get("annotations.title").Str, d.Get("description").Str == "")
			}
			// The title is the name without its service, as a sentence:
			// "Create memo" for memo_create_memo.
			if !strings.HasSuffix(tool.Name, "_"+strings.ReplaceAll(strings.ToLower(title), " ", "_")) || title[:1] != strings.ToUpper(title[:1]) {
				t.Errorf("title %q does not spell the name %q after its service", title, tool.Name)
			}
			a := d.Get("annotations")
			got := [3]bool{a.Get("readOnlyHint").Bool(), a.Get("destructiveHint").Bool(), a.Get("idempotentHint").Bool()}
			if got != w.hints || !a.Get("openWorldHint").Exists() || a.Get("openWorldHint").Bool() {
				t.Errorf("annotations %s, want readOnly/destructive/idempotent %v and openWorldHint false", a.Raw, w.hints)
			}
			m := d.Get("_meta")
			if m.Get("operationId").Str != tool.OperationID || m.Get("method").Str != tool.Method || m.Get("path").Str != tool.Path {
				t.Errorf("_meta %s, want %s %s %s", m.Raw, tool.OperationID, tool.Method, tool.Path)
			}
			if d.Get("inputSchema").Raw != tool.InputSchema() || d.Get("outputSchema").Raw != tool.OutputSchema() {
				t.Errorf("tools/list schemas differ from the Tool's")
			}
		})
	}
}

// The curation's body rules: what each body requires, which path-bound or
// output-only fields it leaves out, and which it keeps (a create's
// location, which Memos stores).
func TestBodyOverrides(t *testing.T) {
	for _, tc := range []struct {
		tool, required, absent, present string
		minProperties                   int64
	}{
		{tool: "memo_create_memo", required: `["content"]`, absent: "creator,tags,reactions,property,snippet,parent,name,state,updateTime", present: "content,location"},
		{tool: "memo_create_memo_comment", required: `["content"]`, absent: "creator,tags,name,state,pinned,createTime,updateTime,relations", present: "content,location"},
		{tool: "memo_update_memo", required: ``, absent: "name,creator,attachments,relations,updateTime", minProperties: 1},
		{tool: "memo_set_memo_attachments", required: `["attachments"]`, absent: "name"},
		{tool: "memo_set_memo_relations", required: `["relations"]`, absent: "name"},
		{tool: "memo_upsert_memo_reaction", required: `["reaction"]`, absent: "name"},
		{tool: "attachment_create_attachment", required: `["filename","type"]`, absent: "createTime,size,name,motionMedia,memo"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			tool, ok := everything().Full().Lookup(tc.tool)
			if !ok {
				t.Fatal("no such tool")
			}
			body := gjson.Get(tool.InputSchema(), "properties.body")
			if got := body.Get("required").Raw; got != tc.required {
				t.Errorf("body required %s, want %s", got, tc.required)
			}
			for _, name := range strings.Split(tc.absent, ",") {
				if body.Get("properties." + name).Exists() {
					t.Errorf("body has %q", name)
				}
			}
			for _, name := range strings.FieldsFunc(tc.present, func(r rune) bool { return r == ',' }) {
				if !body.Get("properties." + name).Exists() {
					t.Errorf("body lacks %q", name)
				}
			}
			if got := body.Get("minProperties").Int(); got != tc.minProperties {
				t.Errorf("minProperties %d, want %d", got, tc.minProperties)
			}
		})
	}
}

// Served schemas are portable JSON Schema: object-rooted, self-contained, no
// OpenAPI-only formats, no boolean sub-schemas, and they compile. Every
// generated tool has an output schema; a hand-written one may answer in
// text alone (package finder's tests hold each to what it declares).
func TestSchemasArePortable(t *testing.T) {
	allowedFormats := map[string]bool{"date-time": true}
	for _, tool := range All() {
		for kind, raw := range map[string]string{"input": tool.InputSchema(), "output": tool.OutputSchema()} {
			if raw == "" && kind == "output" && tool.Handwritten != nil {
				continue
			}
			s := gjson.Parse(raw)
			if s.Get("type").Str != "object" {
				t.Errorf("%s %s schema is not object-rooted", tool.Name, kind)
			}
			walk(s, func(path string, v gjson.Result) {
				if v.Type == gjson.True || v.Type == gjson.False {
					if !strings.HasSuffix(path, "additionalProperties") || v.Type == gjson.True {
						t.Errorf("%s %s: boolean schema or flag at %s", tool.Name, kind, path)
					}
				}
				if f := v.Get("format"); f.Exists() && f.Type == gjson.String && !allowedFormats[f.Str] && !strings.Contains(path, "properties.format") {
					t.Errorf("%s %s: format %q at %s", tool.Name, kind, f.Str, path)
				}
				if ref := v.Get(gjson.Escape("$ref")); ref.Exists() {
					name, ok := strings.CutPrefix(ref.Str, "#/$defs/")
					if !ok || !s.Get(gjson.Escape("$defs")+"."+gjson.Escape(name)).Exists() {
						t.Errorf("%s %s: reference %q at %s does not resolve locally", tool.Name, kind, ref.Str, path)
					}
				}
			})
			if _, err := compile(raw); err != nil {
				t.Errorf("%s %s schema does not compile: %v", tool.Name, kind, err)
			}
			// Every $defs schema is referred to: the curation's omissions
			// take their $defs with them.
			s.Get(gjson.Escape("$defs")).ForEach(func(name, _ gjson.Result) bool {
				if !strings.Contains(raw, `"$ref":"#/$defs/`+name.Str+`"`) {
					t.Errorf("%s %s: $defs %q is referred to nowhere", tool.Name, kind, name.Str)
				}
				return true
			})
		}
	}
}

// walk visits every schema object below s, with a dotted path.
func walk(s gjson.Result, visit func(path string, v gjson.Result)) {
	var rec func(path string, v gjson.Result)
	rec = func(path string, v gjson.Result) {
		visit(path, v)
		if !v.IsObject() && !v.IsArray() {
			return
		}
		v.ForEach(func(k, child gjson.Result) bool {
			if child.IsObject() || child.IsArray() || child.Type == gjson.True || child.Type == gjson.False {
				if k.Str == "enum" || k.Str == "required" {
					return true
				}
				rec(path+"."+k.String(), child)
			}
			return true
		})
	}
	rec("", s)
}

func compile(schema string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("tool.json")
}

// The input schemas accept the calls a model should make and reject the
// mistakes Memos' built-in server rejects.
func TestInputSchemasValidate(t *testing.T) {
	for _, tc := range []struct {
		tool, args string
		valid      bool
	}{
		{"memo_create_memo", `{"body":{"content":"hello #work"}}`, true},
		{"memo_create_memo", `{"body":{}}`, false},
		{"memo_create_memo", `{"content":"hello"}`, false},
		{"memo_get_memo", `{"memo":"memos/abc"}`, true},
		{"memo_get_memo", `{}`, false},
		{"memo_get_memo", `{"memo":"abc","bogus":1}`, false},
		{"memo_update_memo", `{"memo":"abc","body":{"content":"x"}}`, true},
		{"memo_update_memo", `{"memo":"abc","body":{}}`, false},
		{"memo_list_memos", `{"pageSize":10,"filter":"\"work\" in tags","state":"ARCHIVED"}`, true},
		{"memo_list_memos", `{"pageSize":"ten"}`, false},
		{"memo_list_memos", `{"state":"BOGUS"}`, false},
		{"memo_set_memo_attachments", `{"memo":"abc","body":{"attachments":[]}}`, true},
		{"memo_set_memo_relations", `{"memo":"abc","body":{"relations":[]}}`, true},
		{"memo_upsert_memo_reaction", `{"memo":"abc","body":{"reaction":{"contentId":"memos/abc","reactionType":"👍"}}}`, true},
		{"memo_upsert_memo_reaction", `{"memo":"abc","body":{"reaction":{"reactionType":"👍"}}}`, false},
		{"attachment_create_attachment", `{"body":{"filename":"a.txt","type":"text/plain","content":"aGk="}}`, true},
		{"auth_get_current_user", `{}`, true},
	} {
		tool, _ := everything().Full().Lookup(tc.tool)
		s, err := compile(tool.InputSchema())
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); (err == nil) != tc.valid {
			t.Errorf("%s %s: valid=%t, want %t (%v)", tc.tool, tc.args, err == nil, tc.valid, err)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, ok := everything().Full().Lookup("memo_get_memo"); !ok {
		t.Error("memo_get_memo not found")
	}
	if _, ok := everything().Full().Lookup("user_create_user"); ok {
		t.Error("an uncurated operation is a tool")
	}
	names := make([]string, 0, len(All()))
	for _, tool := range All() {
		names = append(names, tool.Name)
	}
	if !slices.IsSorted(names) {
		t.Errorf("tools are not in name order: %v", names)
	}
}

// Descriptions served in input schemas, parameters included, carry no
// protobuf field labels: the required lists say what they said.
func TestNoFieldLabels(t *testing.T) {
	for _, tool := range All() {
		var walk func(path string, s gjson.Result)
		walk = func(path string, s gjson.Result) {
			s.ForEach(func(k, v gjson.Result) bool {
				if k.Str == "description" && v.Type == gjson.String {
					for _, label := range []string{"Optional.", "Required.", "Input only.", "Output only."} {
						if strings.HasPrefix(v.Str, label) {
							t.Errorf("%s %s: description starts with %q", tool.Name, path, label)
						}
					}
				}
				if v.IsObject() || v.IsArray() {
					walk(path+"."+k.String(), v)
				}
				return true
			})
		}
		walk("inputSchema", gjson.Parse(tool.InputSchema()))
	}
}

// The hand-written tools are served like the generated ones: a title,
// annotations that match ReadOnly, schemas that compile, and the schema
// spans where the definition has them.
func TestHandwritten(t *testing.T) {
	defs := definitions(t)
	var names []string
	for _, tool := range All() {
		if tool.Handwritten == nil {
			continue
		}
		names = append(names, tool.Name)
		t.Run(tool.Name, func(t *testing.T) {
			d := defs[tool.Name]
			if want, _, _ := rawjson.Compact(nil, []byte(tool.Handwritten.JSON), 16, false); d.Raw != string(want) {
				t.Errorf("the definition served is not package finder's, compacted (make generate prepares it):\n%s", d.Raw)
			}
			if tool.Method != "" || tool.Path != "" || len(tool.Params) != 0 {
				t.Errorf("a hand-written tool has a route: %s %s", tool.Method, tool.Path)
			}
			if d.Get("title").Str == "" || d.Get("annotations.title").Str != d.Get("title").Str || d.Get("description").Str == "" {
				t.Errorf("title %q, annotations.title %q, description %q", d.Get("title").Str, d.Get("annotations.title").Str, d.Get("description").Str)
			}
			if d.Get("annotations.readOnlyHint").Bool() != tool.ReadOnly || d.Get("annotations.destructiveHint").Bool() {
				t.Errorf("annotations %s for ReadOnly=%t", d.Get("annotations").Raw, tool.ReadOnly)
			}
			if tool.InputSchema() != d.Get("inputSchema").Raw || tool.OutputSchema() != d.Get("outputSchema").Raw {
				t.Errorf("schema spans are off:\n%s\n%s", tool.InputSchema(), tool.OutputSchema())
			}
			schemas := []string{tool.InputSchema()}
			if d.Get("outputSchema").Exists() { // else it answers in text alone
				schemas = append(schemas, tool.OutputSchema())
			}
			for _, s := range schemas {
				if _, err := schema.Compile(s); err != nil {
					t.Errorf("schema does not compile: %v", err)
				}
			}
			if !d.Get("_meta").IsObject() {
				t.Error("no _meta")
			}
		})
	}
	want := []string{"attachment_read", "fetch", "memo_edit", "memo_search", "search", "tag_list"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("hand-written tools (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, tool := range All() {
		if seen[tool.Name] {
			t.Errorf("two tools are called %s", tool.Name)
		}
		seen[tool.Name] = true
	}
}

// The attachments a memo or comment is created with, or that are set on a
// memo, are named by their name alone: not by the file's bytes, its type or
// its motion-photo metadata. Memos links them by name, as the end-to-end
// TestWriteCreateWithAttachments shows. (A create leaves the name to its
// guard, which says what to do about file bytes given instead.)
func TestAttachmentsByName(t *testing.T) {
	for name, required := range map[string]string{"memo_create_memo": ``, "memo_create_memo_comment": ``, "memo_set_memo_attachments": `["name"]`} {
		tool, _ := everything().Full().Lookup(name)
		def := gjson.Get(tool.InputSchema(), gjson.Escape("$defs")+".Attachment")
		var fields []string
		def.Get("properties").ForEach(func(k, _ gjson.Result) bool {
			fields = append(fields, k.Str)
			return true
		})
		if strings.Join(fields, ",") != "name" || def.Get("required").Raw != required {
			t.Errorf("%s: attachment fields %v, required %s; want name alone, required %s", name, fields, def.Get("required").Raw, required)
		}
	}
}

// Titles are in sentence case, every tool's alike: "Create memo", "Search
// memos", "List tags".
func TestTitlesInSentenceCase(t *testing.T) {
	defs := definitions(t)
	for _, tool := range All() {
		d := defs[tool.Name]
		for _, title := range []string{d.Get("title").Str, d.Get("annotations.title").Str} {
			if title == "" || title[:1] != strings.ToUpper(title[:1]) || title[1:] != strings.ToLower(title[1:]) {
				t.Errorf("%s: title %q is not in sentence case", tool.Name, title)
			}
		}
	}
}

// The generated tools' descriptions are the curation's, written for a
// model: none starts as Memos' doc comments do, with the method's name
// ("CreateMemo creates a memo.").
func TestDescriptionsAreOurs(t *testing.T) {
	defs := definitions(t)
	for _, tool := range All() {
		if tool.Handwritten != nil {
			continue
		}
		_, method, _ := strings.Cut(tool.OperationID, "_")
		if d := defs[tool.Name].Get("description").Str; strings.HasPrefix(d, method) {
			t.Errorf("%s: description starts as Memos' doc comment: %q", tool.Name, d)
		}
	}
}
