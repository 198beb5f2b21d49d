package prompts

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos/memostest"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// Tool sets a caller may be served.
var (
	// every tool, the hand-written search and tags tools included
	everything = func(string) bool { return true }
	// the generated tools only (before memo_search and tag_list existed,
	// or with TOOLS removing them)
	generated = func(tool string) bool { return tool != "memo_search" && tool != "tag_list" }
	// what READ_ONLY or a read-only grant leaves
	readOnly = func(tool string) bool { return tool != "memo_create_memo" }
	// TOOLS=auth_ leaves no tool to find memos with
	noSearch = func(tool string) bool { return strings.HasPrefix(tool, "auth_") }
)

// A prompt is listed only when the caller is served a tool it needs.
func TestListFollowsTools(t *testing.T) {
	for _, tc := range []struct {
		name   string
		served func(string) bool
		want   []string
	}{
		{"every tool", everything, []string{"capture", "daily_review", "on_this_day", "find"}},
		{"generated tools only", generated, []string{"capture", "daily_review", "on_this_day", "find"}},
		{"read-only", readOnly, []string{"daily_review", "on_this_day", "find"}},
		{"no tool to find memos", noSearch, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := New(nil).ListJSON(tc.served)
			if !gjson.ValidBytes(list) {
				t.Fatalf("invalid JSON %s", list)
			}
			var names []string
			for _, p := range gjson.GetBytes(list, "prompts").Array() {
				names = append(names, p.Get("name").Str)
				if p.Get("description").Str == "" || !p.Get("arguments").IsArray() {
					t.Errorf("prompt %s lacks a description or arguments: %s", p.Get("name").Str, p.Raw)
				}
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			if _, err := New(nil).Get("capture", rawjson.Parse(`{"content":"x"}`), tc.served); (err == nil) != contains(tc.want, "capture") {
				t.Errorf("prompts/get capture served as listed? err %v", err)
			}
		})
	}
}

// Each prompt's text, for the arguments and tools of each case, is the
// golden file testdata/<case>.md (go test -update rewrites them).
func TestGetGolden(t *testing.T) {
	for _, tc := range []struct {
		file, prompt, args string
		served             func(string) bool
	}{
		{"capture", "capture", `{"content":"Boiler serviced today, next check in March.","tags":"home, #boiler","visibility":"PROTECTED"}`, everything},
		{"capture-no-tags", "capture", `{"content":"Call the bank"}`, everything},
		{"capture-generated", "capture", `{"content":"Call the bank"}`, generated},
		{"daily_review", "daily_review", `{}`, everything},
		{"daily_review-week-generated", "daily_review", `{"days":"7"}`, generated},
		{"on_this_day", "on_this_day", `{"timezone":"Europe/Berlin"}`, everything},
		{"on_this_day-date-generated", "on_this_day", `{"date":"2026-03-14"}`, generated},
		{"find", "find", `{"what":"the boiler repair last March"}`, everything},
		{"find-generated", "find", `{"what":"the boiler repair last March"}`, generated},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := New(nil).Get(tc.prompt, rawjson.Parse(tc.args), tc.served)
			if err != nil {
				t.Fatal(err)
			}
			if !gjson.ValidBytes(got) || gjson.GetBytes(got, "messages.#").Int() != 1 || gjson.GetBytes(got, "messages.0.role").Str != "user" ||
				gjson.GetBytes(got, "messages.0.content.type").Str != "text" || gjson.GetBytes(got, "description").Str == "" {
				t.Fatalf("not a prompts/get result of one user text message: %s", got)
			}
			text := gjson.GetBytes(got, "messages.0.content.text").Str + "\n"
			golden := filepath.Join("testdata", tc.file+".md")
			if *update {
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), text); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// Arguments are checked before anything is rendered: each mistake is one
// -32602 that says what is wrong.
func TestGetArguments(t *testing.T) {
	for _, tc := range []struct {
		name, prompt, args, want string
	}{
		{"unknown prompt", "nope", `{}`, `invalid params: unknown prompt "nope"`},
		{"missing required", "capture", `{}`, `invalid params: missing required argument "content" of prompt capture`},
		{"blank required", "find", `{"what":"  "}`, `invalid params: missing required argument "what" of prompt find`},
		{"no arguments at all", "find", ``, `invalid params: missing required argument "what" of prompt find`},
		{"null arguments", "find", `null`, `invalid params: missing required argument "what" of prompt find`},
		{"unknown argument", "find", `{"what":"x","when":"y"}`, `invalid params: unknown argument "when" of prompt find (it takes what)`},
		{"not a string", "daily_review", `{"days":7}`, `invalid params: argument "days" must be a string`},
		{"arguments not an object", "find", `["what"]`, `invalid params: "arguments" must be an object of strings`},
		{"days not a number", "daily_review", `{"days":"week"}`, `invalid params: argument "days" must be a whole number of days from 1 to 366`},
		{"days zero", "daily_review", `{"days":"0"}`, `invalid params: argument "days" must be a whole number of days from 1 to 366`},
		{"days too many", "daily_review", `{"days":"367"}`, `invalid params: argument "days" must be a whole number of days from 1 to 366`},
		{"visibility", "capture", `{"content":"x","visibility":"private"}`, `invalid params: argument "visibility" must be one of PRIVATE, PROTECTED, PUBLIC`},
		{"date", "on_this_day", `{"date":"14.03.2026"}`, `invalid params: argument "date" must be a date as YYYY-MM-DD, from 1970`},
		{"date that is not one", "on_this_day", `{"date":"2026-02-30"}`, `invalid params: argument "date" must be a date as YYYY-MM-DD, from 1970`},
		{"date before 1970", "on_this_day", `{"date":"1969-12-31"}`, `invalid params: argument "date" must be a date as YYYY-MM-DD, from 1970`},
		{"timezone", "on_this_day", `{"timezone":"Berlin time"}`, `invalid params: argument "timezone" must be an IANA time zone name such as Europe/Berlin or UTC`},
		{"timezone path", "on_this_day", `{"timezone":"/etc/passwd"}`, `invalid params: argument "timezone" must be an IANA time zone name such as Europe/Berlin or UTC`},
		{"long value", "find", `{"what":"` + strings.Repeat("x", 1001) + `"}`, `invalid params: argument "what" is longer than 1000 bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New(nil).Get(tc.prompt, rawjson.Parse(tc.args), everything)
			var invalid *jsonrpc.Error
			if !errors.As(err, &invalid) || invalid.Code != jsonrpc.CodeInvalidParams || err.Error() != tc.want {
				t.Errorf("got %s, %v; want invalid params %q", got, err, tc.want)
			}
		})
	}
	// capture's content is the text to save, which may be long.
	long := `{"content":"` + strings.Repeat("x", 5000) + `"}`
	if got, err := New(nil).Get("capture", rawjson.Parse(long), everything); err != nil || !strings.Contains(gjson.GetBytes(got, "messages.0.content.text").Str, strings.Repeat("x", 5000)) {
		t.Errorf("long content: %v", err)
	}
}

// completion/complete offers the caller's tags for a tags argument (the
// most used first, keeping what was typed before the last tag), the values
// of a fixed set, and nothing for the rest; the tags cost two requests to
// Memos.
func TestComplete(t *testing.T) {
	stats := []string{"/api/v1/auth/me", "/api/v1/users/alice:getStats"}
	for _, tc := range []struct {
		name, ref, arg, auth string
		served               func(string) bool
		want                 string // the completion object
		err                  string
		refused              bool // the error says Memos refused the credentials
		requests             []string
	}{
		{name: "tags by prefix, most used first", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"w"}`, auth: memostest.Token,
			want: `{"values":["work","work/boiler","Workshop"],"total":3,"hasMore":false}`, requests: stats},
		{name: "every tag", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":""}`, auth: memostest.Token,
			want: `{"values":["work","travel","home","work/boiler","Workshop"],"total":5,"hasMore":false}`, requests: stats},
		{name: "the last of several tags, with its #", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"home, #work/"}`, auth: memostest.Token,
			want: `{"values":["home, #work/boiler"],"total":1,"hasMore":false}`, requests: stats},
		{name: "no match", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"zz"}`, auth: memostest.Token,
			want: `{"values":[],"total":0,"hasMore":false}`, requests: stats},
		{name: "tags without a token", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"w"}`,
			want: `{"values":[],"total":0,"hasMore":false}`},
		{name: "tags with a refused token", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"w"}`, auth: memostest.Deleted,
			err: "401 Unauthorized: authentication required", refused: true, requests: stats[:1]},
		{name: "visibility", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"visibility","value":"p"}`,
			want: `{"values":["PRIVATE","PROTECTED","PUBLIC"],"total":3,"hasMore":false}`},
		{name: "visibility narrowed", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"visibility","value":"pu"}`,
			want: `{"values":["PUBLIC"],"total":1,"hasMore":false}`},
		{name: "free text", ref: `{"type":"ref/prompt","name":"find"}`, arg: `{"name":"what","value":"boi"}`,
			want: `{"values":[],"total":0,"hasMore":false}`},
		{name: "resource template", ref: `{"type":"ref/resource","uri":"memo://memos/{id}"}`, arg: `{"name":"id","value":"a"}`,
			want: `{"values":[],"total":0,"hasMore":false}`},
		{name: "unknown template", ref: `{"type":"ref/resource","uri":"test://x/{id}"}`, arg: `{"name":"id","value":"a"}`,
			err: `invalid params: no resource template "test://x/{id}"`},
		{name: "unknown prompt", ref: `{"type":"ref/prompt","name":"test_prompt_with_arguments"}`, arg: `{"name":"arg1","value":"test"}`,
			err: `invalid params: unknown prompt "test_prompt_with_arguments"`},
		{name: "prompt not served", ref: `{"type":"ref/prompt","name":"capture"}`, arg: `{"name":"tags","value":"w"}`, served: readOnly,
			err: `invalid params: unknown prompt "capture"`},
		{name: "unknown argument", ref: `{"type":"ref/prompt","name":"find"}`, arg: `{"name":"tag","value":"w"}`,
			err: `invalid params: unknown argument "tag" of prompt find (it takes what)`},
		{name: "bad ref", ref: `{"type":"ref/tool","name":"x"}`, arg: `{"name":"tag","value":"w"}`,
			err: `invalid params: "ref" must be a ref/prompt or a ref/resource`},
		{name: "value not a string", ref: `{"type":"ref/prompt","name":"find"}`, arg: `{"name":"what","value":1}`,
			err: `invalid params: "argument" must be an object with the strings "name" and "value"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &memostest.Memos{}
			served := tc.served
			if served == nil {
				served = everything
			}
			got, err := New(fake.Client(1<<20)).Complete(context.Background(), rawjson.Parse(tc.ref), rawjson.Parse(tc.arg), served, tc.auth)
			switch {
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Errorf("got %s, %v; want error %q", got, err, tc.err)
				}
				if refused := memos.IsRefused(err); refused != tc.refused {
					t.Errorf("refused %v, want %v", refused, tc.refused)
				}
			case err != nil:
				t.Errorf("error %v", err)
			default:
				if diff := cmp.Diff(tc.want, gjson.GetBytes(got, "completion").Raw); diff != "" {
					t.Errorf("completion (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.requests, fake.Requests()); diff != "" {
				t.Errorf("requests to Memos (-want +got):\n%s", diff)
			}
		})
	}
}

// A completion holds at most 100 values and says how many there were.
func TestCompletionCap(t *testing.T) {
	values := make([]string, 250)
	for i := range values {
		values[i] = "t"
	}
	got := result(values, len(values))
	if n := gjson.GetBytes(got, "completion.values.#").Int(); n != MaxCompletions || gjson.GetBytes(got, "completion.total").Int() != 250 ||
		!gjson.GetBytes(got, "completion.hasMore").Bool() {
		t.Errorf("%d values: %s", n, got)
	}
}
