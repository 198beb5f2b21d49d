package tools

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// fakeDoer records the requests it gets and answers with resp, err, or what
// answer returns.
type fakeDoer struct {
	mu     sync.Mutex
	reqs   []*web.Request
	resp   *web.Response
	err    error
	answer func(ctx context.Context, req *web.Request) (*web.Response, error)
	// missing are paths (after the base URL) that a GET finds nothing at,
	// as Memos answers an id nothing holds.
	missing map[string]bool
	deleted map[string]bool // paths deleted since
	// probes makes the doer answer profile requests like any other; by
	// default it answers them itself, unrecorded, as an instance of the
	// registry's release, so that tool-call tests see only the tool's
	// request (a tool call also learns the instance's version).
	probes bool
}

func (f *fakeDoer) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	if !f.probes && strings.HasSuffix(req.URL, profilePath) {
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"version":"` + registry.MemosVersion() + `"}`)}, nil
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.answer != nil {
		return f.answer(ctx, req)
	}
	if f.err != nil {
		return nil, f.err
	}
	if f.resp != nil {
		return f.resp, nil
	}
	return f.memos(req), nil
}

// memos answers as a Memos instance would, in the little the tests need:
// alice is the caller, memos and attachments exist unless missing or
// deleted, a memo holds one reaction of hers (7), and a write's answer is
// what it wrote.
func (f *fakeDoer) memos(req *web.Request) *web.Response {
	path := strings.TrimPrefix(req.URL, testBase)
	json := func(status int, body string) *web.Response {
		return &web.Response{Status: status, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case req.Method == "DELETE":
		if f.deleted == nil {
			f.deleted = map[string]bool{}
		}
		f.deleted[strings.Split(path, "?")[0]] = true
		return json(200, `{}`)
	case req.Method != "GET":
		if len(req.Body) > 0 && req.Body[0] == '{' {
			return json(200, string(req.Body))
		}
		return json(200, `{}`)
	case f.missing[path] || f.deleted[path]:
		return json(404, `{"code":5,"message":"not found"}`)
	case strings.HasSuffix(path, "/auth/me"):
		return json(200, `{"user":{"name":"users/alice"}}`)
	case strings.HasSuffix(path, "/reactions"):
		if f.deleted[path+"/7"] {
			return json(200, `{"reactions":[]}`)
		}
		return json(200, `{"reactions":[{"name":"`+strings.TrimPrefix(path, "/api/v1/")+`/7","creator":"users/alice","reactionType":"👍"}]}`)
	}
	return json(200, `{}`)
}

func (f *fakeDoer) requests() []*web.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs
}

// nothingWritten ends the refusal of a write.
const nothingWritten = "; nothing was written: trying again is safe"

const testBase = "https://memos.example.com"

func testConfig() memos.Options {
	return memos.Options{URL: testBase, MaxResponseBytes: 1 << 20, Timeout: 5 * time.Second, Releases: Releases(), Differs: registry.Differs}
}

// newTable returns the table of every tool, asking Memos through doer.
func newTable(opts memos.Options, doer web.Doer) *Table {
	return New(memos.New(opts, doer), finder.Finder{Locks: &lease.Memory{}})
}

// run calls a tool as the MCP handler does and returns what it would
// answer: the tool's result, or its error as an isError result, with what
// the error says of the credentials and of waiting. ok is false for a tool
// unknown to c.
func run(c interface {
	Call(context.Context, string, rawjson.Value, string) ([]byte, error)
}, ctx context.Context, name string, args rawjson.Value, auth string) (res []byte, ok, refused bool, wait time.Duration) {
	res, err := c.Call(ctx, name, args, auth)
	switch {
	case errors.Is(err, errUnknown):
		return nil, false, false, 0
	case err != nil:
		e, _ := memos.AsError(err)
		if e != nil {
			refused, wait = e.Refused, e.Wait
		}
		res = append(append([]byte(`{"content":[{"type":"text","text":`), rawjson.AppendString(nil, err.Error())...), `}],"isError":true}`...)
	}
	return res, true, refused, wait
}

// profilePath is the instance's public profile, which the client reads to
// learn the release.
const profilePath = "/api/v1/instance/profile"

// call runs a tool against doer and returns the result's text and isError.
func call(t *testing.T, c *Table, name, args string) (text string, isError bool) {
	t.Helper()
	res, ok, _, _ := run(c, context.Background(), name, rawjson.Parse(args), "Bearer tok")
	if !ok {
		t.Fatalf("tool %s unknown", name)
	}
	if !gjson.ValidBytes(res) {
		t.Fatalf("result is not JSON: %s", res)
	}
	r := gjson.ParseBytes(res)
	if n := len(r.Get("content").Array()); n != 1 {
		t.Fatalf("result has %d content blocks, want 1: %s", n, res)
	}
	if r.Get("isError").Bool() && r.Get("structuredContent").Exists() {
		t.Errorf("error result carries structuredContent: %s", res)
	}
	return r.Get("content.0.text").String(), r.Get("isError").Bool()
}

func TestArgumentErrors(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"empty object", "memo_get_memo", `{}`, `missing required argument "memo"`},
		{"null arguments", "memo_get_memo", `null`, `missing required argument "memo"`},
		{"absent arguments", "memo_get_memo", ``, `missing required argument "memo"`},
		{"null argument counts as absent", "memo_get_memo", `{"memo":null}`, `missing required argument "memo"`},
		{"nested required", "memo_create_memo", `{"body":{}}`, `missing required argument "body.content"`},
		{"null nested member counts as absent", "memo_create_memo", `{"body":{"content":null}}`, `missing required argument "body.content"`},
		{"required inside a $ref", "memo_upsert_memo_reaction", `{"memo":"a","body":{"reaction":{"reactionType":"👍"}}}`, `missing required argument "body.reaction.contentId"`},
		{"required inside array items", "memo_set_memo_relations", `{"memo":"a","body":{"relations":[{"memo":{"name":"memos/a"},"type":"REFERENCE"}]}}`, `missing required argument "body.relations[0].relatedMemo"`},
		{"unknown argument", "memo_get_memo", `{"memo":"a","x":1}`, `unknown argument "x"`},
		{"first unknown argument by name", "memo_get_memo", `{"memo":"a","zz":1,"aa":2}`, `unknown argument "aa"`},
		{"required before unknown", "memo_get_memo", `{"bogus":1}`, `missing required argument "memo"`},
		{"unknown before a wrong type deeper down", "memo_list_memos", `{"pageSize":"x","bogus":1}`, `unknown argument "bogus"`},
		{"string for integer", "memo_list_memos", `{"pageSize":"ten"}`, `argument "pageSize" must be integer`},
		{"fraction for integer", "memo_list_memos", `{"pageSize":2.5}`, `argument "pageSize" must be integer`},
		{"number for string", "memo_get_memo", `{"memo":5}`, `argument "memo" must be string`},
		{"string for boolean", "memo_set_memo_attachments", `{"memo":"a","removeOthers":"yes","body":{"attachments":[]}}`, `argument "removeOthers" must be boolean`},
		{"an argument Memos would ignore", "memo_delete_memo", `{"memo":"a","force":true}`, `unknown argument "force"`},
		{"string for object", "memo_update_memo", `{"memo":"a","body":"text"}`, `argument "body" must be object`},
		{"enum lists the allowed values", "memo_list_memos", `{"state":"BOGUS"}`, `argument "state" must be one of "NORMAL", "ARCHIVED"`},
		{"nested enum", "memo_create_memo", `{"body":{"content":"x","visibility":"SECRET"}}`, `argument "body.visibility" must be one of "PRIVATE", "PROTECTED", "PUBLIC"`},
		{"enum in array items", "memo_set_memo_relations", `{"memo":"a","body":{"relations":[{"memo":{"name":"memos/a"},"relatedMemo":{"name":"memos/b"},"type":"LINK"}]}}`, `argument "body.relations[0].type" must be one of "REFERENCE", "COMMENT"`},
		{"empty update body", "memo_update_memo", `{"memo":"a","body":{}}`, `argument "body" must have at least 1 field`},
		{"array arguments", "memo_get_memo", `[]`, `arguments must be a JSON object, not an array`},
		{"string arguments", "memo_get_memo", `"memos/a"`, `arguments must be a JSON object, not a string`},
		{"number arguments", "memo_get_memo", `7`, `arguments must be a JSON object, not a number`},
		{"boolean arguments", "memo_get_memo", `true`, `arguments must be a JSON object, not a boolean`},
		{"duplicate argument", "memo_get_memo", `{"memo":"a","memo":"../x"}`, `argument "memo" is given twice`},
		{"duplicate nested key", "memo_create_memo", `{"body":{"content":"a","content":"b"}}`, `argument "body.content" is given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &fakeDoer{}
			c := newTable(testConfig(), doer)
			text, isError := call(t, c, tc.tool, tc.args)
			if !c.releases[0][tc.tool].def.ReadOnly {
				tc.want += nothingWritten // a write says so
			}
			if !isError || text != tc.want {
				t.Errorf("got %q (isError %v), want %q", text, isError, tc.want)
			}
			if n := len(doer.requests()); n != 0 {
				t.Errorf("invalid arguments reached Memos (%d requests)", n)
			}
		})
	}
}

// Arguments with very many values are refused before they are decoded, and
// a problem in every item costs no more than one: what a call costs is
// measured, not only what it answers.
func TestArgumentCost(t *testing.T) {
	many := func(item string, n int) string {
		return `{"memo":"a","body":{"relations":[` + strings.Repeat(item+",", n-1) + item + `]}}`
	}
	for _, tc := range []struct {
		name, args, want string
		maxAlloc         uint64
	}{
		{"1 MB of wrong-typed items", many("1", 500_000), "arguments hold more than 10000 values: send less in one call", 64 << 10},
		{"1 MB of empty objects", many("{}", 330_000), "arguments hold more than 10000 values: send less in one call", 64 << 10},
		{"wrong-typed items under the cap", many("1", 9_000), `argument "body.relations[0]" must be object`, 4 << 20},
		{"items each missing a member, under the cap", many(`{"type":"REFERENCE"}`, 4_000), `missing required argument "body.relations[0].memo"`, 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTable(testConfig(), &fakeDoer{})
			args := rawjson.Parse(tc.args)
			run(c, t.Context(), "memo_set_memo_relations", rawjson.Parse(`{}`), "") // compile the schema first
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res, _, _, _ := run(c, t.Context(), "memo_set_memo_relations", args, "Bearer tok")
			runtime.ReadMemStats(&after)
			if text := gjson.GetBytes(res, "content.0.text").Str; text != tc.want+nothingWritten {
				t.Errorf("got %q, want %q", text, tc.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.maxAlloc {
				t.Errorf("the call allocated %d bytes for %d bytes of arguments, want at most %d", alloc, len(tc.args), tc.maxAlloc)
			}
		})
	}
}

// The first problem is chosen deterministically, whatever order the
// validator finds them in.
func TestArgumentErrorIsStable(t *testing.T) {
	c := newTable(testConfig(), &fakeDoer{})
	args := `{"memo":"a","body":{"content":1,"pinned":"no","visibility":"X","state":"Y"}}`
	first, _ := call(t, c, "memo_update_memo", args)
	for range 50 {
		if got, _ := call(t, c, "memo_update_memo", args); got != first {
			t.Fatalf("message changed between calls: %q then %q", first, got)
		}
	}
	if first != `argument "body.content" must be string`+nothingWritten {
		t.Errorf("got %q", first)
	}
}

func TestUnknownTool(t *testing.T) {
	c := newTable(testConfig(), &fakeDoer{})
	if res, ok, _, _ := run(c, context.Background(), "no_such_tool", rawjson.Value{}, ""); ok || res != nil {
		t.Errorf("Call(no_such_tool) = %s, %v; want nil, false", res, ok)
	}
}

// Every tool's input schema compiles, and an argument that is not in the
// schema is refused by each.
func TestEverySchemaCompiles(t *testing.T) {
	c := newTable(testConfig(), &fakeDoer{})
	for _, def := range registry.All() {
		t.Run(def.Name, func(t *testing.T) {
			if _, err := c.releases[0][def.Name].prepare(); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			text, isError := call(t, c, def.Name, `{"notAnArgument":1}`)
			if !isError || !strings.Contains(text, "argument") {
				t.Errorf("got %q (isError %v)", text, isError)
			}
		})
	}
}

func TestLoneSurrogate(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"content":"plain"}`:                     false,
		`{"content":"\ud83d\ude00 a pair"}`:       false,
		`{"content":"\u00e9\u4e2d"}`:              false,
		`{"content":"a\\ud800 is not an escape"}`: false,
		`{"content":"\ud800"}`:                    true,
		`{"content":"\ude00 a low half alone"}`:   true,
		`{"content":"\ud83dx"}`:                   true,
		`{"content":"\ud83d\u0041"}`:              true,
		`{"a":"\ud83d\ude00","b":"\udfff"}`:       true,
	} {
		if got := loneSurrogate(raw); got != want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", raw, got, want)
		}
	}
}
