package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	memosproto "github.com/usememos/memos/proto"
)

// overlayFile is the project's facts about Memos v0.31.
const overlayFile = "../../../spec/memos-v0.31.json"

// asV031 is the pinned v0.30.0 document with the overlay's facts applied:
// the v0.31 document the build serves v0.31 instances from.
func asV031(t *testing.T) []byte {
	t.Helper()
	ov, err := loadOverlay(overlayFile)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ov.apply(memosproto.OpenAPIYAML())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A real document that differs from the overlay where a tool meets it
// fails the check, naming the difference; one that differs only where no
// tool looks, or in wording, passes.
func TestCheckOverlay(t *testing.T) {
	cur, err := loadCuration("../../../spec/curation.json")
	if err != nil {
		t.Fatal(err)
	}
	stated := document{"v0.31.0", asV031(t)}
	if err := checkOverlay(stated, stated, cur); err != nil {
		t.Fatalf("the overlay against itself: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(stated.spec, &m); err != nil {
		t.Fatal(err)
	}
	schemas := m["components"].(map[string]any)["schemas"].(map[string]any)
	memo := schemas["Memo"].(map[string]any)["properties"].(map[string]any)
	memo["content"].(map[string]any)["description"] = "worded otherwise"
	if err := checkOverlay(document{"v0.31.0", mustMarshal(t, m)}, stated, cur); err != nil {
		t.Errorf("a difference in wording: %v", err)
	}
	delete(memo, "snippet")
	err = checkOverlay(document{"v0.31.0", mustMarshal(t, m)}, stated, cur)
	if err == nil || !strings.Contains(err.Error(), "memo_get_memo output.properties.snippet: only in the overlay") {
		t.Errorf("an unstated difference: %v", err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The overlay's facts each meet what they change: a fact about a schema
// the document lacks is refused.
func TestOverlayStale(t *testing.T) {
	ov, err := loadOverlay(overlayFile)
	if err != nil {
		t.Fatal(err)
	}
	ov.Schemas["Gone"] = schemaChange{Drop: []string{"x"}}
	if _, err := ov.apply(memosproto.OpenAPIYAML()); err == nil || !strings.Contains(err.Error(), "no schema Gone") {
		t.Errorf("a fact about a missing schema: %v", err)
	}
}

// One curation builds for both releases; tool names, routes and notes
// follow the document.
func TestBuildsForEachRelease(t *testing.T) {
	cur, err := loadCuration("../../../spec/curation.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		version   string
		spec      []byte
		views     string // the saved-views listing tool
		path      string
		listField string
		contentID bool   // whether the reaction tool mentions contentId
		saved     string // what the views tool calls them
		later     bool   // v0.31's: mediaMetadata given at creation, has_location in filters
	}{
		{"v0.30.0", "v0.30.0", memosproto.OpenAPIYAML(), "shortcut_list_shortcuts", "/api/v1/users/{user}/shortcuts", "shortcuts", true, "shortcuts", false},
		{"v0.31 of the overlay", "v0.31.0", asV031(t), "memo_view_list_memo_views", "/api/v1/users/{user}/views", "memoViews", false, "memo views", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := parseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			tools, err := buildTools(doc, cur, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := emit([]release{{version: tc.version, tools: tools}}); err != nil {
				t.Fatalf("emit: %v", err)
			}
			byName := map[string]tool{}
			for _, tl := range tools {
				byName[tl.Name] = tl
			}
			if len(tools) != len(cur.Operations) {
				t.Errorf("%d tools, want %d", len(tools), len(cur.Operations))
			}
			views, ok := byName[tc.views]
			if !ok {
				t.Fatalf("no tool %s among %v", tc.views, keys(byName))
			}
			if views.Path != tc.path || views.Method != "GET" || !views.ReadOnly || views.OperationID == "" {
				t.Errorf("%s: %s %s read-only=%t", tc.views, views.Method, views.Path, views.ReadOnly)
			}
			out := mustJSON(t, views.Output)
			items := mustJSON(t, views.Output["properties"].(map[string]any)[tc.listField])
			if !strings.Contains(items, `"title"`) || !strings.Contains(items, `"filter"`) {
				t.Errorf("%s output schema has no %s list of views: %s", tc.views, tc.listField, out)
			}
			if d := views.Description; !strings.Contains(d, tc.saved) || tc.saved != "shortcuts" && strings.Contains(d, "shortcut") {
				t.Errorf("%s says %q, want %s", tc.views, d, tc.saved)
			}
			// v0.31 takes an attachment's media metadata at creation
			// (and answers with it); v0.30 has none.
			create := byName["attachment_create_attachment"].Input["properties"].(map[string]any)["body"].(map[string]any)["properties"].(map[string]any)
			if _, ok := create["mediaMetadata"]; ok != tc.later {
				t.Errorf("attachment_create_attachment takes mediaMetadata: %t, want %t", ok, tc.later)
			}
			if got := strings.Contains(mustJSON(t, byName["attachment_get_attachment"].Output), "mediaMetadata"); got != tc.later {
				t.Errorf("attachment_get_attachment answers mediaMetadata: %t, want %t", got, tc.later)
			}
			filter := byName["memo_list_memos"].Input["properties"].(map[string]any)["filter"].(map[string]any)["description"].(string)
			if got := strings.Contains(filter, "has_location"); got != tc.later {
				t.Errorf("memo_list_memos' filter names has_location: %t, want %t: %s", got, tc.later, filter)
			}

			for _, name := range []string{"memo_upsert_memo_reaction", "memo_list_memo_reactions"} {
				r := byName[name]
				text := r.Description + mustJSON(t, r.Input) + mustJSON(t, r.Output)
				if got := strings.Contains(text, "contentId"); got != tc.contentID {
					t.Errorf("%s mentions contentId: %t, want %t\n%s", name, got, tc.contentID, text)
				}
			}
			if d := byName["memo_upsert_memo_reaction"].Description; !strings.Contains(d, "reactionType") {
				t.Errorf("the reaction note lost its unconditional part: %q", d)
			}

			// Results with fields the schema does not list (a later
			// release's) still match the output schema.
			result := `{"name":"attachments/a","filename":"a.png","type":"image/png","fieldOfALaterRelease":{"x":[1]}}`
			if err := compileSchema(t, byName["attachment_get_attachment"].Output).Validate(decode(t, result)); err != nil {
				t.Errorf("an attachment with unknown fields fails the output schema: %v", err)
			}
		})
	}
}

func keys(m map[string]tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func compileSchema(t *testing.T, s map[string]any) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource("out.json", decode(t, mustJSON(t, s))); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A curated operation is found under any of its names, takes the name the
// document uses, and fails naming all of them when the document has none
// or more than one.
func TestOperationAliases(t *testing.T) {
	renamed := strings.Replace(miniSpec, "ThingService_ListThings", "ItemService_ListItems", 1)
	for _, tc := range []struct {
		name, spec, curation string
		want                 string // a tool name, or an error's text
	}{
		{"own name", miniSpec, `{"operations":[{"operationId":"ThingService_ListThings","aliases":["ItemService_ListItems"],"description":"d"}]}`, "thing_list_things"},
		{"successor's name", renamed, `{"operations":[{"operationId":"ThingService_ListThings","aliases":["ItemService_ListItems"],"description":"d"}]}`, "item_list_items"},
		{"predecessor's name", miniSpec, `{"operations":[{"operationId":"ItemService_ListItems","aliases":["ThingService_ListThings"],"description":"d"}]}`, "thing_list_things"},
		{"neither name", miniSpec, `{"operations":[{"operationId":"ThingService_Gone","aliases":["ItemService_Gone"]}]}`,
			`curated operation "ThingService_Gone" (also known as "ItemService_Gone") is not in the OpenAPI document`},
		{"neither name, tailored", miniSpec, `{"operations":[{"operationId":"ThingService_Gone","aliases":["ItemService_Gone"],"notes":"x"}]}`,
			`stale override: the curation tailors operation "ThingService_Gone" (also known as "ItemService_Gone")`},
		{"both names", miniSpec, `{"operations":[{"operationId":"ThingService_ListThings","aliases":["ThingService_DeletePart"],"description":"d"}]}`,
			`the OpenAPI document has "ThingService_ListThings" and "ThingService_DeletePart"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := buildMini(t, tc.spec, tc.curation)
			got := ""
			if err != nil {
				got = err.Error()
			} else if len(tools) == 1 {
				got = tools[0].Name
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A note with "when" is kept only when the tool has that argument,
// through $defs references too.
func TestConditionalNotes(t *testing.T) {
	for _, tc := range []struct {
		name, notes, want string
	}{
		{"plain string", `"Only changed fields."`, "Only changed fields."},
		{"argument present", `[{"text":"Data is base64.","when":"body.data"},{"text":"Always."}]`, "Data is base64. Always."},
		{"through a reference", `[{"text":"Parent data.","when":"body.parent.data"}]`, "Parent data."},
		{"argument absent", `[{"text":"Colour matters.","when":"body.colour"},{"text":"Always."}]`, "Always."},
		{"read-only field is no argument", `[{"text":"Owner.","when":"body.owner"}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := buildMini(t, miniSpec, `{"operations":[{"operationId":"ThingService_UpdateThing", "guard": "g","description":"Changes a thing.","notes":`+tc.notes+`}]}`)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := strings.CutPrefix(tools[0].Description, "Changes a thing.")
			if got = strings.TrimSpace(got); got != tc.want {
				t.Errorf("notes %q, want %q", got, tc.want)
			}
		})
	}
}

// The routes hand-written code calls come from every release's document:
// generation fails for a release that lacks one or moves it, and names it.
func TestRoutes(t *testing.T) {
	cur, err := loadCuration("../../../spec/curation.json")
	if err != nil {
		t.Fatal(err)
	}
	pinned := document{"v0.30.0", memosproto.OpenAPIYAML()}
	src, _, err := routesOf([]document{pinned, {"v0.31.0", asV031(t)}}, cur)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`APIRoot = "/api/v1/"`, `RouteMemo = "/api/v1/memos/{memo}"`, `RouteUserStats = "/api/v1/users/{user}:getStats"`} {
		if !strings.Contains(strings.Join(strings.Fields(string(src)), " "), want) {
			t.Errorf("routes_gen.go lacks %s:\n%s", want, src)
		}
	}
	moved := strings.Replace(string(memosproto.OpenAPIYAML()), "/api/v1/memos/{memo}/comments:", "/api/v1/memos/{memo}/notes:", 1)
	_, _, err = routesOf([]document{pinned, {"v0.31.0", []byte(moved)}}, cur)
	if err == nil || !strings.Contains(err.Error(), "memos.RouteMemoComments is /api/v1/memos/{memo}/comments in Memos v0.30.0 and /api/v1/memos/{memo}/notes") {
		t.Errorf("a release that moves a route: %v", err)
	}
	gone := strings.Replace(string(memosproto.OpenAPIYAML()), "operationId: UserService_GetUserStats", "operationId: UserService_GetUserStatistics", 1)
	_, _, err = routesOf([]document{{"v0.32.0", []byte(gone)}}, cur)
	if err == nil || !strings.Contains(err.Error(), "Memos v0.32.0: the document has no operation UserService_GetUserStats, whose route hand-written code calls as memos.RouteUserStats") {
		t.Errorf("a release without a route: %v", err)
	}
}

// A filter field the overlay's release gains is named in that release's
// filter description and in no other release's.
func TestFilterFieldsDescribed(t *testing.T) {
	ov := &overlay{Release: "v0.31.0", Filters: map[string][]string{"MemoService_ListMemos": {"has_location"}}}
	list := func(filter string) []tool {
		return []tool{{Curated: "MemoService_ListMemos", Input: map[string]any{"properties": map[string]any{"filter": map[string]any{"description": filter}}}}}
	}
	for _, tc := range []struct {
		name, version, filter, err string
	}{
		{"the release that gains it names it", "v0.31.0", "over pinned and has_location", ""},
		{"the release that gains it leaves it out", "v0.31.2", "over pinned", "does not name has_location"},
		{"the release without it names it", "v0.30.0", "over pinned and has_location", "which only the overlay's release (v0.31.0) has"},
		{"the release without it leaves it out", "v0.30.0", "over pinned", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ov.describes(tc.version, list(tc.filter))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("describes: %v, want %q", err, tc.err)
			}
		})
	}
	if err := ov.describes("v0.30.0", nil); err != nil {
		t.Errorf("a release without the tool: %v", err)
	}
}
