package main

import (
	"encoding/json"
	memosproto "github.com/usememos/memos/proto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// miniSpec is a small OpenAPI document in the shape Memos' generator writes.
const miniSpec = `
openapi: 3.0.3
info: {title: "", version: 0.0.1}
paths:
  /api/v1/things:
    get:
      operationId: ThingService_ListThings
      description: |-
        ListThings lists things.
         Second line.
      parameters:
        - {name: pageSize, in: query, schema: {type: integer, format: int32}}
        - {name: kind, in: query, schema: {type: string, format: enum, enum: [KIND_UNSPECIFIED, A]}}
      responses:
        "200": {description: OK, content: {application/json: {schema: {$ref: '#/components/schemas/ListThingsResponse'}}}}
  /api/v1/things/{thing}:
    patch:
      operationId: ThingService_UpdateThing
      description: UpdateThing updates a thing.
      parameters:
        - {name: thing, in: path, required: true, schema: {type: string}}
        - {name: updateMask, in: query, schema: {type: string, format: field-mask}}
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}
      responses:
        "200": {description: OK, content: {}}
  /api/v1/things/{thing}/parts/{part}:
    delete:
      operationId: ThingService_DeletePart
      parameters:
        - {name: part, in: path, required: true, schema: {type: string}}
        - {name: thing, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: OK, content: {}}
components:
  schemas:
    ListThingsResponse:
      type: object
      properties:
        things: {type: array, items: {$ref: '#/components/schemas/Thing'}}
    Thing:
      type: object
      required: [name, data]
      properties:
        name: {type: string, description: The name.}
        data: {type: string, format: bytes, description: Required. The bytes.}
        owner: {readOnly: true, type: string}
        parent:
          allOf: [{$ref: '#/components/schemas/Thing'}]
          description: The parent thing.
`

func writeCuration(t *testing.T, c string) *curation {
	t.Helper()
	path := filepath.Join(t.TempDir(), "curation.json")
	if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	cur, err := loadCuration(path)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

const miniCuration = `{
  "params": {"thing": "The thing: things/x or x.", "pageSize": "Things per page."},
  "operations": [
    {"operationId": "ThingService_UpdateThing", "guard": "g", "description": "Changes a thing.", "bodyRequired": [], "bodyOmit": ["name"], "bodyMinProperties": 1, "destructive": true, "notes": "Only changed fields."},
    {"operationId": "ThingService_ListThings", "description": "Lists things.", "params": {"kind": "A or nothing.", "pageSize": "At most 50."}},
    {"operationId": "ThingService_DeletePart", "guard": "g", "description": "Deletes a part."}
  ]
}`

func buildMini(t *testing.T, spec, cur string) ([]tool, error) {
	t.Helper()
	doc, err := parseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return buildTools(doc, writeCuration(t, cur), "v0.30.0")
}

func TestBuildTools(t *testing.T) {
	tools, err := buildMini(t, miniSpec, miniCuration)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]tool{}
	for _, tl := range tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	if got := strings.Join(names, ","); got != "thing_delete_part,thing_list_things,thing_update_thing" {
		t.Fatalf("tools %s, want sorted names", got)
	}

	list := byName["thing_list_things"]
	// The curation's description, never the document's doc comment.
	if list.Title != "List things" || list.Description != "Lists things." {
		t.Errorf("title %q, description %q", list.Title, list.Description)
	}
	if !list.ReadOnly || list.Destructive || !list.Idempotent {
		t.Errorf("GET hints %t %t %t", list.ReadOnly, list.Destructive, list.Idempotent)
	}
	in := mustJSON(t, list.Input)
	for path, want := range map[string]string{
		"type":                            "object",
		"additionalProperties":            "false",
		"properties.pageSize.type":        "integer",
		"properties.pageSize.format":      "",
		"properties.kind.format":          "",
		"properties.kind.enum":            `["A"]`,
		"properties.kind.description":     "A or nothing.",
		"properties.pageSize.description": "At most 50.",
		"required":                        "",
	} {
		if got := gjson.Get(in, path).String(); got != want {
			t.Errorf("list input %s = %q, want %q", path, got, want)
		}
	}
	out := mustJSON(t, list.Output)
	// Output: references expanded in place, read-only fields kept, prose
	// and required lists left out, objects two levels down reduced to
	// their type.
	if want := `{"properties":{"things":{"items":{"properties":{"data":{"type":"string"},"name":{"type":"string"},"owner":{"type":"string"},"parent":{"type":"object"}},"type":"object"},"type":"array"}},"type":"object"}`; out != want {
		t.Errorf("list output\n got %s\nwant %s", out, want)
	}

	upd := byName["thing_update_thing"]
	if upd.ReadOnly || !upd.Destructive || upd.Idempotent || !upd.HasBody {
		t.Errorf("PATCH hints %t %t %t body %t", upd.ReadOnly, upd.Destructive, upd.Idempotent, upd.HasBody)
	}
	if upd.Guard != "g" {
		t.Errorf("guard %q, want the curation's", upd.Guard)
	}
	if upd.Description != "Changes a thing.\n\nOnly changed fields." {
		t.Errorf("notes not appended: %q", upd.Description)
	}
	in = mustJSON(t, upd.Input)
	for path, want := range map[string]string{
		"required":                                        `["thing","body"]`,
		"properties.thing.description":                    "The thing: things/x or x.",
		"properties.updateMask.format":                    "",
		"properties.body.required":                        "",
		"properties.body.minProperties":                   "1",
		"properties.body.properties.name":                 "",
		"properties.body.properties.owner":                "",
		"properties.body.properties.data.contentEncoding": "base64",
		"properties.body.properties.data.description":     "The bytes.",
		`properties.body.properties.parent.\$ref`:         "#/$defs/Thing",
		"properties.body.properties.parent.description":   "The parent thing.",
		`\$defs.Thing.properties.owner`:                   "",
		`\$defs.Thing.required`:                           `["name","data"]`,
		"properties.body.additionalProperties":            "false",
		`\$defs.Thing.additionalProperties`:               "false",
	} {
		if got := gjson.Get(in, path).String(); got != want {
			t.Errorf("update input %s = %q, want %q", path, got, want)
		}
	}
	if got := mustJSON(t, upd.Output); got != `{"properties":{"ok":{"type":"boolean"}},"type":"object"}` {
		t.Errorf("empty response output schema %s", got)
	}

	del := byName["thing_delete_part"]
	if del.ReadOnly || !del.Destructive || !del.Idempotent {
		t.Errorf("DELETE hints %t %t %t", del.ReadOnly, del.Destructive, del.Idempotent)
	}
	if len(del.Params) != 2 || del.Params[0].Name != "thing" || del.Params[1].Name != "part" {
		t.Errorf("path parameters not in template order: %+v", del.Params)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildToolsFailsClearly(t *testing.T) {
	for _, tc := range []struct {
		name, spec, curation, want string
	}{
		{
			name:     "missing operation",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_GoneThing"}]}`,
			want:     `curated operation "ThingService_GoneThing" is not in the OpenAPI document`,
		},
		{
			name:     "stale override",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_RenamedThing", "guard": "g","bodyOmit":["name"],"notes":"Only changed fields."}]}`,
			want:     `stale override: the curation tailors operation "ThingService_RenamedThing", which the OpenAPI document does not have`,
		},
		{
			name:     "duplicate tool name",
			spec:     strings.Replace(miniSpec, "operationId: ThingService_DeletePart", "operationId: Thing_ListThings", 1),
			curation: `{"operations":[{"operationId":"ThingService_ListThings","description":"d"},{"operationId":"Thing_ListThings","guard":"g","description":"d"}]}`,
			want:     `both become tool "thing_list_things"`,
		},
		{
			name:     "override names an unknown body property",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_UpdateThing", "guard": "g","description":"d","bodyOmit":["nope"]}]}`,
			want:     `curation omits body property "nope"`,
		},
		{
			name:     "override of a body that does not exist",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_ListThings","description":"d","bodyRequired":["x"]}]}`,
			want:     "overrides the body of an operation without one",
		},
		{
			name:     "omitting a parameter the operation lacks",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_ListThings","description":"d","paramsOmit":["colour"]}]}`,
			want:     `curation omits parameter "colour"`,
		},
		{
			name:     "a write without a guard",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_UpdateThing","description":"d"}]}`,
			want:     "the curation gives the write no guard",
		},
		{
			name:     "no description",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_ListThings"}]}`,
			want:     "the curation gives no description",
		},
		{
			name:     "description of a parameter the operation lacks",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_ListThings","description":"d","params":{"colour":"c"}}]}`,
			want:     `curation describes parameter "colour"`,
		},
		{
			name:     "keeping a property a $defs schema lacks",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_UpdateThing", "guard": "g","description":"d","defKeep":{"Thing":["colour"]}}]}`,
			want:     `curation keeps property "colour" of $defs "Thing"`,
		},
		{
			name:     "keeping properties of $defs the input lacks",
			spec:     miniSpec,
			curation: `{"operations":[{"operationId":"ThingService_UpdateThing", "guard": "g","description":"d","defKeep":{"Part":["name"]}}]}`,
			want:     `curation keeps properties of $defs "Part"`,
		},
		{
			name:     "reference outside the components",
			spec:     strings.Replace(miniSpec, "items: {$ref: '#/components/schemas/Thing'}", "items: {$ref: 'other.yaml#/Thing'}", 1),
			curation: `{"operations":[{"operationId":"ThingService_ListThings","description":"d"}]}`,
			want:     "disallowed external reference",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := parseSpec([]byte(tc.spec))
			if err == nil {
				_, err = buildTools(doc, writeCuration(t, tc.curation), "v0.30.0")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestToolName(t *testing.T) {
	for in, want := range map[string]string{
		"MemoService_ListMemos":         "memo_list_memos",
		"MemoViewService_ListMemoViews": "memo_view_list_memo_views",
		"AuthService_GetCurrentUser":    "auth_get_current_user",
		"ListThings":                    "list_things",
		"IdPService_GetOAuth2Config":    "id_p_get_oauth2_config",
	} {
		if got := toolName(in); got != want {
			t.Errorf("toolName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The registry the Worker embeds is the generator's current output for the
// pinned document and spec/curation.json (make generate wrote it).
func TestGeneratedUpToDate(t *testing.T) {
	if err := run("", "", "../../../spec/curation.json", overlayFile, "../tools_gen.go", "../../memos/routes_gen.go", "../../bridge/routes_gen.mjs", true); err != nil {
		t.Fatal(err)
	}
}

func TestUnresolvableReferences(t *testing.T) {
	for ref, want := range map[string]string{
		"#/definitions/Thing":       "is not a component schema, so it cannot be made self-contained",
		componentPrefix + "Missing": "names no component",
	} {
		c := newConverter(map[string]map[string]any{}, true)
		_, err := c.root(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": ref}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", ref, err, want)
		}
	}
}

// Reference cycles terminate: in input schemas through $defs, in output
// schemas by stopping the expansion, through properties or through items.
func TestReferenceCycle(t *testing.T) {
	components := map[string]map[string]any{
		"Node": {"type": "object", "properties": map[string]any{"next": map[string]any{"$ref": componentPrefix + "Node"}}},
		"List": {"type": "array", "items": map[string]any{"$ref": componentPrefix + "List"}},
	}
	for _, tc := range []struct {
		name, ref string
		input     bool
		want      string
	}{
		{"input", "Node", true, `{"$defs":{"Node":{"properties":{"next":{"$ref":"#/$defs/Node"}},"type":"object"}},"properties":{"next":{"$ref":"#/$defs/Node"}},"type":"object"}`},
		{"output through properties", "Node", false, `{"properties":{"next":{"properties":{"next":{"type":"object"}},"type":"object"}},"type":"object"}`},
		{"output through items", "List", false, `{"items":{"items":{"type":"array"},"type":"array"},"type":"array"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConverter(components, tc.input)
			out, err := c.root(map[string]any{"$ref": componentPrefix + tc.ref})
			if err != nil {
				t.Fatal(err)
			}
			if got := mustJSON(t, c.withDefs(out)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// Building for another release takes its document from a file, with its
// version; the pinned release's document is built in already.
func TestSpecFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, memosproto.OpenAPIYAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, routesOut, routesJSOut := filepath.Join(t.TempDir(), "out.go"), filepath.Join(t.TempDir(), "routes.go"), filepath.Join(t.TempDir(), "routes.mjs")
	if err := run(path, pinnedVersion(), "../../../spec/curation.json", overlayFile, out, routesOut, routesJSOut, false); err == nil || !strings.Contains(err.Error(), "built in already") {
		t.Errorf("the pinned document from a file: %v", err)
	}
	if err := run(path, "", "../../../spec/curation.json", overlayFile, out, routesOut, routesJSOut, false); err == nil || !strings.Contains(err.Error(), "-spec needs -memos-version") {
		t.Errorf("a file without its version: %v", err)
	}
	if err := run(path, "v0.32.0", "../../../spec/curation.json", overlayFile, out, routesOut, routesJSOut, false); err != nil {
		t.Errorf("a release the overlay does not describe: %v", err)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `{Version: "v0.32.0"`) || strings.Contains(string(b), `{Version: "v0.31.0"`) {
		t.Errorf("a release the overlay does not describe is not built alone:\n%.300s", b)
	}
}

// Titles read as what the tool does, without the name's service prefix.
func TestToolTitle(t *testing.T) {
	for id, want := range map[string]string{
		"MemoService_CreateMemo":          "Create memo",
		"MemoService_ListMemoComments":    "List memo comments",
		"AuthService_GetCurrentUser":      "Get current user",
		"MemoViewService_ListMemoViews":   "List memo views",
		"ShortcutService_ListShortcuts":   "List shortcuts",
		"AttachmentService_GetAttachment": "Get attachment",
		"Standalone":                      "Standalone",
	} {
		t.Run(id, func(t *testing.T) {
			if got := toolTitle(id); got != want {
				t.Errorf("toolTitle(%q) = %q, want %q", id, got, want)
			}
		})
	}
}

// defKeep keeps only the listed fields of a $defs schema, with the
// required names left; $defs nothing refers to any more are dropped; the
// $defs left are closed, as the body is.
func TestDefKeepAndPruning(t *testing.T) {
	for _, tc := range []struct {
		name, override, want string
	}{
		{"kept fields", `"defKeep":{"Thing":["data","parent"]}`,
			`{"Thing":{"additionalProperties":false,"properties":{"data":{"contentEncoding":"base64","description":"The bytes.","type":"string"},"parent":{"$ref":"#/$defs/Thing","description":"The parent thing."}},"required":["data"],"type":"object"}}`},
		{"no required name left", `"defKeep":{"Thing":["parent"]}`,
			`{"Thing":{"additionalProperties":false,"properties":{"parent":{"$ref":"#/$defs/Thing","description":"The parent thing."}},"type":"object"}}`},
		{"a required list set, then kept", `"defRequired":{"Thing":["owner","parent"]},"defKeep":{"Thing":["parent"]}`,
			`{"Thing":{"additionalProperties":false,"properties":{"parent":{"$ref":"#/$defs/Thing","description":"The parent thing."}},"required":["parent"],"type":"object"}}`},
		{"referenced no more", `"bodyOmit":["parent"]`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := buildMini(t, miniSpec, `{"operations":[{"operationId":"ThingService_UpdateThing", "guard": "g","description":"d",`+tc.override+`}]}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.Get(mustJSON(t, tools[0].Input), `\$defs`).Raw; got != tc.want {
				t.Errorf("$defs\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// paramsOmit leaves a query parameter out of the tool: its schema and its
// route's parameters.
func TestParamsOmit(t *testing.T) {
	tools, err := buildMini(t, miniSpec, `{"operations":[{"operationId":"ThingService_ListThings","description":"d","paramsOmit":["kind"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	in := mustJSON(t, tools[0].Input)
	if gjson.Get(in, "properties.kind").Exists() || !gjson.Get(in, "properties.pageSize").Exists() {
		t.Errorf("input %s", in)
	}
	for _, p := range tools[0].Params {
		if p.Name == "kind" {
			t.Errorf("the route keeps the omitted parameter: %v", tools[0].Params)
		}
	}
}
