package finder

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// fakeMemos answers from a table of paths and records what was asked. A
// PATCH sets a memo's content, unless lost says otherwise.
type fakeMemos struct {
	answers map[string]string // path (without query) → body
	asked   []string          // full paths, a PATCH's after "PATCH "
	lost    *lostAnswer
	refuse  error // a PATCH's answer, when set
	// lockdown is LOCKDOWN; who the caller is, auth/me says, asked as
	// memos.Caller asks it when nothing remembers the caller.
	lockdown bool
}

// lostAnswer makes a PATCH go unanswered, applied or not, and the memo
// unreadable afterwards when gone.
type lostAnswer struct{ applied, gone bool }

func (f *fakeMemos) Patch(_ context.Context, _, path string, body []byte) ([]byte, error) {
	f.asked = append(f.asked, "PATCH "+path)
	p, _, _ := strings.Cut(path, "?")
	if f.refuse != nil {
		return nil, f.refuse
	}
	memo := `{"name":"memos/` + p[strings.LastIndexByte(p, '/')+1:] + `","content":` + rawjson.Quote(rawjson.ParseBytes(body).Get("content").Str) + `}`
	switch l := f.lost; {
	case l == nil:
		f.answers[p] = memo
		return []byte(memo), nil
	case l.applied:
		f.answers[p] = memo
	}
	if f.lost.gone {
		delete(f.answers, p)
	}
	return nil, &memos.Error{Msg: "Memos did not answer in time", Unsure: true}
}

func (f *fakeMemos) Get(_ context.Context, _, path string) ([]byte, error) {
	f.asked = append(f.asked, path)
	p, _, _ := strings.Cut(path, "?")
	if body, ok := f.answers[p]; ok {
		return []byte(body), nil
	}
	return nil, &memos.Error{Status: 404, Msg: "404 Not Found: not found"}
}

func (f *fakeMemos) File(ctx context.Context, route, path string) ([]byte, string, error) {
	body, err := f.Get(ctx, route, path)
	return body, "image/jpeg", err
}

func (f *fakeMemos) WebURL() string { return "https://memos.example" }

func (f *fakeMemos) Others(ctx context.Context) (memos.Others, error) {
	body, err := f.Get(ctx, "/api/v1/auth/me", "/api/v1/auth/me")
	if err != nil {
		return memos.Others{}, err
	}
	return memos.Others{Me: rawjson.ParseBytes(body).Get("user").Get("name").Str, Lockdown: f.lockdown}, nil
}

const fakeMemo = `{"name":"memos/abc","creator":"users/ann","createTime":"2024-03-10T11:00:00Z","updateTime":"2024-03-10T11:00:00Z",` +
	`"content":"# Boiler\nserviced at 1.5 bar #home","snippet":"Boiler serviced at 1.5 bar","tags":["home"],"pinned":true,"visibility":"PRIVATE",` +
	`"attachments":[{"name":"attachments/p","filename":"p.png","type":"image/png"}]}`

func newFake() *fakeMemos {
	return &fakeMemos{answers: map[string]string{
		"/api/v1/auth/me":            `{"user":{"name":"users/ann"}}`,
		"/api/v1/memos":              `{"memos":[` + fakeMemo + `],"nextPageToken":"NEXT"}`,
		"/api/v1/memos/abc":          fakeMemo,
		"/api/v1/users/ann:getStats": `{"tagCount":{"b":2,"a":2,"z":9},"memoCreatedTimestamps":["2024-01-01T00:00:00Z"]}`,
		"/api/v1/attachments/p":      `{"name":"attachments/p","filename":"p.png","type":"image/png","size":"3","memo":"memos/abc"}`,
		"/file/attachments/p/p.png":  "\xff\xd8\xff",
		"/api/v1/attachments/t":      `{"name":"attachments/t","filename":"t.txt","type":"text/plain","size":"5"}`,
		"/file/attachments/t/t.txt":  "hello",
		"/api/v1/attachments/pdf":    `{"name":"attachments/pdf","filename":"m.pdf","type":"application/pdf","size":"5"}`,
	}}
}

func TestTools(t *testing.T) {
	f := &Finder{Offsets: GoOffsets, Now: func() time.Time { return utc("2024-03-14T10:00:00Z") }}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string   // the result, exactly
		asked      []string // paths asked, in order (queries cut)
		fails      string
	}{
		{name: "memo_search", tool: "memo_search", args: map[string]any{"text": `boiler ")`, "tags": []any{"#home"}, "on": "2024-03-10", "timezone": "Pacific/Auckland", "pageSize": rawjson.Numeral("5")},
			want: `{"content":[{"type":"text","text":"{\"memos\":[{\"name\":\"memos/abc\",\"created\":\"2024-03-11T00:00:00+13:00\",\"pinned\":true,\"tags\":[\"home\"],\"text\":\"# Boiler\\nserviced at 1.5 bar #home\",\"attachments\":1}],\"nextPageToken\":\"NEXT\",\"url\":\"https://memos.example/memos/{id}\"}"}]}`,
			asked: []string{"/api/v1/auth/me", "/api/v1/memos?pageSize=5&orderBy=create_time+desc&filter=" + uri.QueryEscape(
				`creator == "users/ann" && content.contains("boiler") && content.contains("\")") && ((tags.exists(t, t == "home") || tags.exists(t, t.startsWith("home/")))) && ((created_ts >= timestamp("2024-03-09T11:00:00Z") && created_ts < timestamp("2024-03-10T11:00:00Z")))`)}},
		{name: "memo_search of everything visible", tool: "memo_search", args: map[string]any{"scope": "all", "pageToken": "NEXT"},
			asked: []string{"/api/v1/auth/me", "/api/v1/memos?pageSize=10&orderBy=create_time+desc&pageToken=NEXT"}},
		{name: "search", tool: "search", args: map[string]any{"query": "boiler #home"},
			want: `{"content":[{"type":"text","text":"{\"results\":[{\"id\":\"abc\",\"title\":\"Boiler\",\"url\":\"https://memos.example/memos/abc\"}]}"}]}`},
		{name: "fetch", tool: "fetch", args: map[string]any{"id": "memo://memos/abc"},
			want: `{"content":[{"type":"text","text":"{\"id\":\"abc\",\"title\":\"Boiler\",\"text\":\"# Boiler\\nserviced at 1.5 bar #home\",\"url\":\"https://memos.example/memos/abc\",\"metadata\":{\"created\":\"2024-03-10T11:00:00Z\",\"creator\":\"users/ann\",\"pinned\":\"true\",\"tags\":\"home\",\"attachments\":\"attachments/p (p.png, image/png)\"}}"}]}`},
		{name: "fetch of a path", tool: "fetch", args: map[string]any{"id": "abc/../x"}, fails: "id must be"},
		{name: "tag_list", tool: "tag_list", args: map[string]any{"limit": rawjson.Numeral("2")},
			want: `{"content":[{"type":"text","text":"{\"tags\":[{\"tag\":\"z\",\"count\":9},{\"tag\":\"a\",\"count\":2}],\"total\":3}"}]}`},
		{name: "an image", tool: "attachment_read", args: map[string]any{"name": "attachments/p"},
			want: `{"content":[{"type":"text","text":"{\"name\":\"attachments/p\",\"filename\":\"p.png\",\"type\":\"image/png\",\"size\":3,\"memo\":\"memos/abc\",\"returned\":\"image\",\"bytes\":3}"},{"type":"image","mimeType":"image/jpeg","data":"/9j/"}],` +
				`"structuredContent":{"name":"attachments/p","filename":"p.png","type":"image/png","size":3,"memo":"memos/abc","returned":"image","bytes":3}}`,
			asked: []string{"/api/v1/attachments/p", "/file/attachments/p/p.png?thumbnail=true"}},
		{name: "a text file", tool: "attachment_read", args: map[string]any{"name": "t"},
			want: `{"content":[{"type":"text","text":"{\"name\":\"attachments/t\",\"filename\":\"t.txt\",\"type\":\"text/plain\",\"size\":5,\"returned\":\"text\",\"bytes\":5}"},{"type":"text","text":"hello"}],` +
				`"structuredContent":{"name":"attachments/t","filename":"t.txt","type":"text/plain","size":5,"returned":"text","bytes":5}}`},
		{name: "a PDF", tool: "attachment_read", args: map[string]any{"name": "attachments/pdf"}, fails: "images (PNG, JPEG, GIF, WebP) and text files only"},
		{name: "Memos' refusal", tool: "fetch", args: map[string]any{"id": "nosuch"}, fails: "404 Not Found"},
		{name: "a zone without offsets", tool: "memo_search", args: map[string]any{"timezone": "Nowhere/Atall"}, fails: "not a known IANA time zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFake()
			got, err, ok := call(f, tc.tool, tc.args, m)
			if !ok {
				t.Fatal("no such tool")
			}
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Errorf("error %v, want one saying %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rawjson.ValidBytes(got) || tc.want != "" && string(got) != tc.want {
				t.Errorf("result\n%s\nwant\n%s", got, tc.want)
			}
			// Structured content exactly where an output schema promises it.
			if has, promised := rawjson.ParseBytes(got).Get("structuredContent").Exists(), outputSchema(tc.tool); has != promised {
				t.Errorf("structuredContent %t, output schema %t", has, promised)
			}
			if tc.asked != nil && strings.Join(m.asked, "\n") != strings.Join(tc.asked, "\n") {
				t.Errorf("asked\n%s\nwant\n%s", strings.Join(m.asked, "\n"), strings.Join(tc.asked, "\n"))
			}
			if len(m.asked) > memosRequests {
				t.Errorf("%d Memos requests, more than %d", len(m.asked), memosRequests)
			}
		})
	}
	if _, _, ok := call(f, "memo_get_memo", nil, newFake()); ok {
		t.Error("a generated tool runs here")
	}
}

// definition is the tools/list entry of the hand-written tool called name.
func definition(name string) rawjson.Value {
	for _, t := range Tools() {
		if t.Name == name {
			return rawjson.Parse(t.JSON)
		}
	}
	return rawjson.Value{}
}

// outputSchema reports whether the hand-written tool called name declares
// an output schema.
func outputSchema(name string) bool { return definition(name).Get("outputSchema").Exists() }

// call runs the hand-written tool called name; ok is false when none is.
func call(f *Finder, name string, args map[string]any, m Memos) (_ []byte, _ error, ok bool) {
	for _, t := range Tools() {
		if t.Name == name {
			result, err := t.Run(f, context.Background(), args, m)
			return result, err, true
		}
	}
	return nil, nil, false
}

// Every hand-written tool has a function that runs it and a definition of
// its own name.
func TestEveryToolRuns(t *testing.T) {
	for _, tool := range Tools() {
		if tool.Run == nil {
			t.Errorf("%s: no function runs it", tool.Name)
		}
		if got := rawjson.Parse(tool.JSON).Get("name").Str; got != tool.Name {
			t.Errorf("%s: its definition is named %q", tool.Name, got)
		}
	}
}

// A memo's title is the first line of its text that has any, without
// heading marks and cut to 80 runes; then its snippet's; then its name.
func TestTitle(t *testing.T) {
	for _, tc := range []struct{ name, memo, want string }{
		{"first line", `{"name":"memos/a","content":"Hello\nworld"}`, "Hello"},
		{"heading marks and blank lines", `{"name":"memos/a","content":"\n  ## Plans  \nrest"}`, "Plans"},
		{"a line of marks alone", `{"name":"memos/a","content":"#\nReal title"}`, "Real title"},
		{"long", `{"name":"memos/a","content":"` + strings.Repeat("ä", 100) + `"}`, strings.Repeat("ä", 79) + "…"},
		{"the snippet", `{"name":"memos/a","content":"","snippet":"From the snippet"}`, "From the snippet"},
		{"the name", `{"name":"memos/a","content":" \n"}`, "memos/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := title(rawjson.Parse(tc.memo)); got != tc.want {
				t.Errorf("title(%s) = %q, want %q", tc.memo, got, tc.want)
			}
		})
	}
}
