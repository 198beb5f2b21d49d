package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"object as is", `{"name":"memos/a","pinned":false}`, `{"name":"memos/a","pinned":false}`},
		{"space removed", "{ \"a\" : [ 1 , \"x y\" ] ,\n \"b\": {} }", `{"a":[1,"x y"],"b":{}}`},
		{"empty", ``, `{"ok":true}`},
		{"whitespace", " \n", `{"ok":true}`},
		{"null", `null`, `{"ok":true}`},
		{"empty object stays", `{}`, `{}`},
		{"array", `[{"a":1},{"b":null}]`, `{"result":[{"a":1},{}]}`},
		{"string", `"hi"`, `{"result":"hi"}`},
		{"number", `42`, `{"result":42}`},
		{"boolean", `true`, `{"result":true}`},
		{"null member dropped", `{"admin":null,"version":"dev"}`, `{"version":"dev"}`},
		{"only member null", `{"a":null}`, `{}`},
		{"nulls dropped at every depth", `{"memos":[{"attachments":[{"name":"attachments/x","motionMedia":null,"memo":"memos/a"}],"location":null}],"nextPageToken":""}`,
			`{"memos":[{"attachments":[{"name":"attachments/x","memo":"memos/a"}]}],"nextPageToken":""}`},
		{"null array items kept", `{"a":[null,1]}`, `{"a":[null,1]}`},
		{"escapes kept", `{"content":"a\"b\\n\u00e9 <x>","k\"ey":1}`, `{"content":"a\"b\\n\u00e9 <x>","k\"ey":1}`},
		{"string that says null", `{"a":"null"}`, `{"a":"null"}`},
		{"key that says null", `{"null":1,"b":null}`, `{"null":1}`},
		{"escaped quote before null", `{"a\"":null,"b":"\\","c":null}`, `{"b":"\\"}`},
		{"numbers kept as written", `{"a":-1.50e+3,"b":0}`, `{"a":-1.50e+3,"b":0}`},
		{"deep", `{"a":{"b":{"c":[{"d":null,"e":[[{"f":null}]]}]}}}`, `{"a":{"b":{"c":[{"e":[[{}]]}]}}}`},
		{"fields of a later release pass", `{"name":"attachments/x","mediaMetadata":{"width":4,"exif":{"iso":100}},"motionMedia":null}`,
			`{"name":"attachments/x","mediaMetadata":{"width":4,"exif":{"iso":100}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, escapes, err := normalize([]byte(tc.body))
			if err != nil || string(got) != tc.want {
				t.Errorf("normalize(%s) = %s, %v; want %s", tc.body, got, err, tc.want)
			}
			res := successResult(got, escapes)
			if !gjson.ValidBytes(res) {
				t.Fatalf("result is not JSON: %s", res)
			}
			r := gjson.ParseBytes(res)
			if text := r.Get("content.0.text").String(); text != string(got) {
				t.Errorf("text %s, want %s", text, got)
			}
			if sc := r.Get("structuredContent").Raw; sc != string(got) {
				t.Errorf("structuredContent %s, want %s", sc, got)
			}
		})
	}
	for _, bad := range []string{`<html>`, `{"a":1`, "{\"a\":\"x\ny\"}", `{"a":1}{"b":2}`, `nul`} {
		if _, _, err := normalize([]byte(bad)); err != errNotJSON {
			t.Errorf("normalize(%q): %v, want errNotJSON", bad, err)
		}
	}
	// Nested deeper than memos.MaxAnswerDepth: refused as such, whole or wrapped
	// under "result"; at the bound it passes.
	nest := func(n int) string { return strings.Repeat(`{"a":`, n) + "[]" + strings.Repeat("}", n) }
	for _, tc := range []struct {
		body string
		want error
	}{
		{nest(memos.MaxAnswerDepth - 1), nil},
		{nest(memos.MaxAnswerDepth), errTooDeep},
		{"[" + nest(memos.MaxAnswerDepth-2) + "]", nil},
		{strings.Repeat("[", 100000) + strings.Repeat("]", 100000), errTooDeep},
		{strings.Repeat("[", 100000) + strings.Repeat("]", 99999), errNotJSON},
	} {
		if _, _, err := normalize([]byte(tc.body)); err != tc.want {
			t.Errorf("normalize of %d bytes nested: %v, want %v", len(tc.body), err, tc.want)
		}
	}
}

// The success result carries the same JSON as structured content and as
// text.
func TestSuccessResult(t *testing.T) {
	doer := &fakeDoer{resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"},
		Body: []byte(`{"name": "memos/a", "content": "<b>\"hi\"</b> & more", "location": null}`)}}
	res, _, _, _ := run(newTable(testConfig(), doer), t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), "")
	r := gjson.ParseBytes(res)
	want := `{"name":"memos/a","content":"<b>\"hi\"</b> & more","contentHash":"` + memos.ContentHash(`<b>"hi"</b> & more`) + `"}`
	if got := r.Get("structuredContent").Raw; got != want {
		t.Errorf("structuredContent %s, want %s", got, want)
	}
	if got := r.Get("content.0.text").String(); got != want {
		t.Errorf("text %s, want %s", got, want)
	}
	if r.Get("content.0.type").String() != "text" || r.Get("isError").Exists() {
		t.Errorf("result %s", res)
	}
}

// Stripped answers of Memos v0.30.0 validate against the tools' output
// schemas, which allow null nowhere.
func TestOutputSchemas(t *testing.T) {
	for _, def := range registry.All() {
		if strings.Contains(def.OutputSchema(), `"null"`) || strings.Contains(def.OutputSchema(), `"nullable"`) {
			t.Errorf("%s: output schema allows null: the null-dropping rule needs revisiting", def.Name)
		}
	}
	attachment := `{"name":"attachments/x","createTime":"2026-11-29T11:12:57Z","filename":"a.txt","content":"","externalLink":"","type":"text/plain","size":"5","memo":"memos/a","motionMedia":null}`
	memo := `{"name":"memos/a","state":"NORMAL","creator":"users/admin","createTime":"2026-11-29T11:12:57Z","updateTime":"2026-11-29T11:12:57Z","content":"hi","visibility":"PRIVATE","tags":[],"pinned":false,` +
		`"attachments":[` + attachment + `],"relations":[],"reactions":[],"property":{"hasLink":false,"hasTaskList":false,"hasCode":false,"hasIncompleteTasks":false,"title":""},"snippet":"hi"}`
	for _, tc := range []struct {
		tool, body string
		nullFails  bool // the unstripped answer fails the schema
	}{
		{"attachment_get_attachment", attachment, true},
		{"attachment_create_attachment", attachment, true},
		{"attachment_list_attachments", `{"attachments":[` + attachment + `],"nextPageToken":""}`, true},
		{"memo_list_memo_attachments", `{"attachments":[` + attachment + `],"nextPageToken":""}`, true},
		{"memo_get_memo", memo, true},
		{"memo_update_memo", memo, true},
		{"memo_list_memos", `{"memos":[` + memo + `],"nextPageToken":"CAEQAQ=="}`, false},
		{"memo_list_memo_comments", `{"memos":[` + memo + `],"nextPageToken":"","totalSize":1}`, false},
		{"memo_delete_memo", `{}`, false},
		{"memo_set_memo_relations", ``, false},
		{"auth_get_current_user", `{"user":{"name":"users/admin","role":"ADMIN","username":"admin","email":"","displayName":"","avatarUrl":"","description":"","password":"","state":"NORMAL","createTime":"2026-11-29T11:12:57Z","updateTime":"2026-11-29T11:12:57Z"}}`, false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			def := newTable(testConfig(), &fakeDoer{}).releases[0][tc.tool].def
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(def.OutputSchema()))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("urn:output", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("urn:output")
			if err != nil {
				t.Fatal(err)
			}
			obj, _, err := normalize([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			v, err := decodeValue(rawjson.ParseBytes(obj), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s does not match the output schema: %v", obj, err)
			}
			// The same answer before stripping fails where the schema
			// reaches the null: the rule is needed, not merely harmless.
			if tc.nullFails {
				raw, _ := decodeJSONKeepingNulls(tc.body)
				if sch.Validate(raw) == nil {
					t.Errorf("unstripped answer passes too; the test no longer shows why nulls are dropped")
				}
			}
		})
	}
}

func decodeJSONKeepingNulls(s string) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader(s))
}

// Every way an upstream call can fail gives one clear message, and none of
// them quotes the token, the Access secret or the instance's address.
func TestUpstreamFailures(t *testing.T) {
	html := web.Header{"content-type": "text/html; charset=utf-8"}
	page := []byte("<!DOCTYPE html><html><body>Sign in</body></html>")
	for _, tc := range []struct {
		name   string
		access bool // a Cloudflare Access service token is configured
		resp   *web.Response
		err    error
		want   string // prefix of the message
		// refused: Memos itself refused the credentials, for the MCP
		// endpoint to send an OAuth client to renew them
		refused bool
	}{
		{name: "not found", resp: &web.Response{Status: 404, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":5,"message":"memo not found","details":[]}`)},
			want: "404 Not Found: memo not found"},
		{name: "unauthorized, JSON sent as text/plain", resp: &web.Response{Status: 401, Header: web.Header{"content-type": "text/plain"}, Body: []byte(`{"code": 16, "message": "authentication required"}`)},
			want: "401 Unauthorized: authentication required", refused: true},
		{name: "permission denied", resp: &web.Response{Status: 403, Body: []byte(`{"code":7,"message":"permission denied","details":[]}`)},
			want: "403 Forbidden: permission denied"},
		{name: "error key", resp: &web.Response{Status: 400, Body: []byte(`{"error":"bad filter"}`)}, want: "400 Bad Request: bad filter"},
		{name: "no message", resp: &web.Response{Status: 500, Body: []byte(`{"code":13}`)}, want: "500 Internal Server Error"},
		{name: "unnamed status", resp: &web.Response{Status: 418, Body: []byte(`{"message":"teapot"}`)}, want: "418: teapot"},
		{name: "long message clipped", resp: &web.Response{Status: 400, Body: []byte(`{"message":"` + strings.Repeat("é", 400) + `"}`)},
			want: "400 Bad Request: " + strings.Repeat("é", 250) + "…"},
		{name: "redirect to an Access login", resp: &web.Response{Status: 302, Header: web.Header{"location": "https://team.cloudflareaccess.com/cdn-cgi/access/login/memos.example.com?redirect_url=%2F"}},
			want: "302 Found: Cloudflare Access answered instead of Memos: create a service token, allow it with a Service Auth policy, and set the Worker secrets CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"},
		{name: "redirect to an Access login with a token configured", access: true, resp: &web.Response{Status: 302, Header: web.Header{"location": "https://team.cloudflareaccess.com/cdn-cgi/access/login/x"}},
			want: "302 Found: Cloudflare Access did not accept the configured service token (CF_ACCESS_CLIENT_ID, CF_ACCESS_CLIENT_SECRET)"},
		{name: "redirect elsewhere", resp: &web.Response{Status: 301, Header: web.Header{"location": "https://elsewhere.example.net/api/v1/memos/a"}},
			want: "301 Moved Permanently: the instance's address answered with a redirect, which is not followed (it would take your token elsewhere): set MEMOS_URL to the instance's final address"},
		{name: "redirect that echoes the call", resp: &web.Response{Status: 302, Header: web.Header{"location": "https://login.example.net/oauth2/start?rd=%2Fapi%2Fv1%2Fmemos%2Fsecret-id#secret-id"}},
			want: "302 Found: the instance's address answered with a redirect, which is not followed"},
		{name: "Access forbidden page", resp: &web.Response{Status: 403, Header: html, Body: page},
			want: "403 Forbidden: Cloudflare Access answered instead of Memos: create a service token"},
		{name: "Access forbidden page with a token configured", access: true, resp: &web.Response{Status: 403, Header: html, Body: page},
			want: "403 Forbidden: Cloudflare Access did not accept the configured service token"},
		{name: "unauthorized page", resp: &web.Response{Status: 401, Header: web.Header{"content-type": "text/html"}, Body: page},
			want: "401 Unauthorized: Cloudflare Access answered instead of Memos"},
		{name: "tunnel error page", resp: &web.Response{Status: 502, Header: html, Body: page},
			want: "502 Bad Gateway from the proxy or tunnel in front of Memos, not from Memos: check that Memos and its Cloudflare Tunnel (cloudflared) are running"},
		{name: "origin down", resp: &web.Response{Status: 521, Header: html, Body: page}, want: "521 Web Server Is Down from the proxy or tunnel in front of Memos"},
		{name: "tunnel gone", resp: &web.Response{Status: 530, Header: html, Body: page},
			want: "530 from Cloudflare: the origin behind it cannot be reached (a stopped or disconnected Cloudflare Tunnel answers this way): check that cloudflared is running"},
		{name: "login page with 200", resp: &web.Response{Status: 200, Header: html, Body: page},
			want: "the upstream answered with an HTML page instead of Memos' API: check that MEMOS_URL is the base URL of the Memos instance (without /api/v1) and, if Cloudflare Access protects it, set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"},
		{name: "HTML without a content type", resp: &web.Response{Status: 404, Body: []byte("  <html>not here</html>")},
			want: "404 Not Found: the upstream answered with an HTML page instead of Memos' API"},
		{name: "plain text", resp: &web.Response{Status: 200, Header: web.Header{"content-type": "text/plain"}, Body: []byte("Service ready.")},
			want: "the upstream answered with something other than Memos' JSON: check that MEMOS_URL points at the Memos instance"},
		{name: "truncated JSON", resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"name":"memos/a"`)},
			want: "the upstream answered with something other than Memos' JSON"},
		{name: "too large", err: web.ErrResponseTooLarge,
			want: "the Memos answer is larger than MAX_RESPONSE_BYTES (1048576 bytes): ask for less, e.g. with a smaller pageSize or a filter"},
		{name: "wrapped too large", err: fmt.Errorf("read: %w", web.ErrResponseTooLarge), want: "the Memos answer is larger than MAX_RESPONSE_BYTES"},
		{name: "unreachable", err: errors.New(`Get "https://memos.example.com/api/v1/memos/secret-id": dial tcp: connection refused`),
			want: "the Memos instance cannot be reached: check that it is up and that MEMOS_URL (or MEMOS_SERVICE) points at it"},
		{name: "timeout", err: web.ErrTimeout,
			want: "Memos did not answer within 5s (UPSTREAM_TIMEOUT_MS): the instance is slow or unreachable"},
		{name: "wrapped timeout", err: fmt.Errorf("%w (read: context deadline exceeded)", web.ErrTimeout),
			want: "Memos did not answer within 5s (UPSTREAM_TIMEOUT_MS)"},
		{name: "a runtime error naming a timeout", err: errors.New("fetch: TimeoutError: from a proxy"),
			want: "the Memos instance cannot be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			logline.SetOutput(&logs)
			defer logline.SetOutput(nil)
			cfg := testConfig()
			if tc.access {
				cfg.AccessClientID, cfg.AccessClientSecret = "id.access", "access-secret-value"
			}
			doer := &fakeDoer{resp: tc.resp, err: tc.err}
			res, _, refused, _ := run(newTable(cfg, doer), t.Context(), "memo_get_memo", rawjson.Parse(`{"memo":"secret-id"}`), "Bearer token-value")
			if refused != tc.refused {
				t.Errorf("refused %v, want %v", refused, tc.refused)
			}
			r := gjson.ParseBytes(res)
			text := r.Get("content.0.text").String()
			if !r.Get("isError").Bool() || r.Get("structuredContent").Exists() {
				t.Errorf("not an error result: %s", res)
			}
			if !strings.HasPrefix(text, tc.want) {
				t.Errorf("got  %q\nwant %q…", text, tc.want)
			}
			for _, secret := range []string{"token-value", "access-secret-value", "memos.example.com", "elsewhere.example.net", "cloudflareaccess.com"} {
				if strings.Contains(text, secret) {
					t.Errorf("message quotes %q: %s", secret, text)
				}
			}
			for _, secret := range []string{"token-value", "access-secret-value", "secret-id"} {
				if strings.Contains(logs.String(), secret) {
					t.Errorf("log quotes %q: %s", secret, logs.String())
				}
			}
			if logs.Len() == 0 {
				t.Error("failure not logged")
			}
		})
	}
}

func TestCancel(t *testing.T) {
	logline.SetOutput(&bytes.Buffer{})
	defer logline.SetOutput(nil)
	ctx, cancel := context.WithCancel(context.Background())
	c := newTable(testConfig(), &fakeDoer{answer: func(ctx context.Context, req *web.Request) (*web.Response, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	res, _, _, _ := run(c, ctx, "memo_get_memo", rawjson.Parse(`{"memo":"a"}`), "")
	if got := gjson.GetBytes(res, "content.0.text").String(); got != "the call was cancelled before Memos answered" {
		t.Errorf("cancel: got %q", got)
	}
}

// referenceCompact is the obvious, slower form of compact, built on gjson,
// for the fuzz test to compare with.
func referenceCompact(dst []byte, r gjson.Result) []byte {
	switch {
	case r.IsObject():
		dst = append(dst, '{')
		n := 0
		r.ForEach(func(k, v gjson.Result) bool {
			if v.Type != gjson.Null {
				if n > 0 {
					dst = append(dst, ',')
				}
				n++
				dst = append(append(dst, k.Raw...), ':')
				dst = referenceCompact(dst, v)
			}
			return true
		})
		return append(dst, '}')
	case r.IsArray():
		dst = append(dst, '[')
		n := 0
		r.ForEach(func(_, v gjson.Result) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = referenceCompact(dst, v)
			return true
		})
		return append(dst, ']')
	}
	return append(dst, r.Raw...)
}

func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		`{"a":null}`, `[1, null, {"b" : null, "c":"\"}"}]`, `"x"`, `-1.5e3`, `{ }`, ` [ ] `,
		`{"memos":[{"attachments":[{"motionMedia":null,"name":"attachments/x"}]}]}`, `{"k\\":null,"l":{"m":[null]}}`,
		// Strings longer than a word, with escapes on and across word edges.
		`{"content":"eight by\"tes and more \\ then \u0022 and a last quote\"","x":null}`,
		`["0123456\"","01234567\\","abcdefghijklmnopqrstuvwxyz\\\"xyz"]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, escapes, err := normalize(body)
		if valid := json.Valid(body); err == errNotJSON && valid || err == errTooDeep && !valid {
			t.Fatalf("normalize(%q): %v, but encoding/json finds it valid: %v", body, err, valid)
		}
		if err != nil {
			return
		}
		if want := escapesIn(got); escapes != want {
			t.Fatalf("normalize(%q) counted %d quotes and backslashes in %q, want %d", body, escapes, got, want)
		}
		if !gjson.ValidBytes(got) || !gjson.ParseBytes(got).IsObject() {
			t.Fatalf("normalize(%q) = %q, not a JSON object", body, got)
		}
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) == 0 || string(trimmed) == "null" {
			return
		}
		var want []byte
		if r := gjson.ParseBytes(trimmed); r.IsObject() {
			want = referenceCompact(nil, r)
		} else {
			want = append(referenceCompact([]byte(`{"result":`), r), '}')
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("normalize(%q) = %q, want %q", body, got, want)
		}
		res := successResult(got, escapes)
		if text := gjson.GetBytes(res, "content.0.text").String(); text != string(got) {
			t.Fatalf("text %q, want %q", text, got)
		}
		if len(res) != cap(res) {
			t.Fatalf("successResult made %d bytes of room for %d", cap(res), len(res))
		}
	})
}

// A result is allocated once, at its size: a large one grown by append would
// be copied and allocated again.
func TestSuccessResultAllocatesOnce(t *testing.T) {
	obj := []byte(`{"memos":[` + strings.Repeat(`{"name":"memos/1","content":"a \"quoted\" word and a \\ backslash"},`, 2000) + `{}]}`)
	var res []byte
	escapes := escapesIn(obj)
	if n := testing.AllocsPerRun(20, func() { res = successResult(obj, escapes) }); n != 1 {
		t.Errorf("successResult: %v allocations, want 1", n)
	}
	if len(res) != cap(res) {
		t.Errorf("successResult made %d bytes of room for %d", cap(res), len(res))
	}
}

// quote escapes every quote and backslash wherever it stands in a word,
// alone, in runs, and at the ends, and writes exactly the room it is given:
// texts up to 40 bytes, so that whole words before the last 16 bytes hold
// them too.
func TestQuote(t *testing.T) {
	escape := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	var inputs []string
	for n := range 40 {
		for i := range n {
			for _, c := range []byte{'"', '\\'} {
				// Between bytes that differ from it by one bit, or by a
				// borrow: a word-wise test must not mix them up.
				for _, other := range []byte{'a', c ^ 1, c + 1, c - 1, c ^ 0x80, 0, 0xff} {
					b := bytes.Repeat([]byte{other}, n)
					b[i] = c
					inputs = append(inputs, string(b))
					b[n-1-i] = '"' // a second one, before or after it, or on it
					inputs = append(inputs, string(b))
				}
			}
		}
	}
	inputs = append(inputs, `"\""\\"x"\`, strings.Repeat(`"`, 17), strings.Repeat(`\`, 9)+"abcdefgh",
		strings.Repeat(`"\`, 20), strings.Repeat(`a"`, 20), strings.Repeat(`ab"\cd`, 7))
	for _, in := range inputs {
		want := escape.Replace(in)
		dst := make([]byte, len(in)+escapesIn([]byte(in)))
		quote(dst, []byte(in))
		if string(dst) != want {
			t.Fatalf("quote(%q) = %q, want %q", in, dst, want)
		}
	}
}

// escapesIn counts the bytes of b that quote escapes: quotes and backslashes.
func escapesIn(b []byte) int {
	return bytes.Count(b, []byte{'"'}) + bytes.Count(b, []byte{'\\'})
}
