//go:build e2e

package e2e

import (
	"bytes"
	"cmp"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// badCase is one hostile or malformed request and exactly what it must get.
type badCase struct {
	name   string
	method string            // HTTP method; POST when empty
	path   string            // /mcp when empty
	header map[string]string // added to Content-Type: application/json (set "" to remove)
	body   string
	status int
	code   int    // JSON-RPC error code; 0 = none expected
	id     string // raw id the error must echo; "" = not checked
	text   string // substring of the error message or tool error text
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func badInputCases() []badCase {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	huge := strings.Repeat("x", 900_000)
	over := strings.Repeat("y", 1_100_000)
	v26 := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	return []badCase{
		// Malformed JSON.
		{name: "truncated object", body: `{"jsonrpc":"2.0","id":1,"method":`, status: 400, code: -32700},
		{name: "trailing comma", body: `{"jsonrpc":"2.0","id":1,"method":"ping",}`, status: 400, code: -32700},
		{name: "two objects", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 400, code: -32700},
		{name: "single quotes", body: `{'jsonrpc':'2.0','id':1,'method':'ping'}`, status: 400, code: -32700},
		{name: "bare word", body: `nul`, status: 400, code: -32700},
		{name: "empty body", body: ``, status: 400, code: -32700},
		{name: "control character in string", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\x01ng\"}", status: 400, code: -32700},
		{name: "invalid UTF-8", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\xff\"}", status: 400, code: -32700},
		{name: "scalar body", body: `42`, status: 400, code: -32600},
		{name: "string body", body: `"ping"`, status: 400, code: -32600},
		{name: "null body", body: `null`, status: 400, code: -32600},
		// The jsonrpc member.
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, status: 400, code: -32600, id: "7"},
		{name: "jsonrpc number", body: `{"jsonrpc":2.0,"id":7,"method":"ping"}`, status: 400, code: -32600, id: "7"},
		{name: "jsonrpc missing", body: `{"id":7,"method":"ping"}`, status: 400, code: -32600, id: "7"},
		{name: "jsonrpc null", body: `{"jsonrpc":null,"id":7,"method":"ping"}`, status: 400, code: -32600, id: "7"},
		// Every id type.
		{name: "id string", body: `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, status: 200, id: `"abc"`},
		{name: "id empty string", body: `{"jsonrpc":"2.0","id":"","method":"ping"}`, status: 200, id: `""`},
		{name: "id integer", body: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, status: 200, id: `12345678901234567890`},
		{name: "id negative float", body: `{"jsonrpc":"2.0","id":-1.5e3,"method":"ping"}`, status: 200, id: `-1.5e3`},
		{name: "id null", body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, status: 400, code: -32600},
		{name: "id true", body: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, status: 400, code: -32600},
		{name: "id object", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, status: 400, code: -32600},
		{name: "id array", body: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, status: 400, code: -32600},
		// Methods.
		{name: "method missing", body: `{"jsonrpc":"2.0","id":8}`, status: 400, code: -32600, id: "8"},
		{name: "method number", body: `{"jsonrpc":"2.0","id":8,"method":7}`, status: 400, code: -32600, id: "8"},
		{name: "method empty", body: `{"jsonrpc":"2.0","id":8,"method":""}`, status: 200, code: -32601, id: "8"},
		{name: "method unknown", body: `{"jsonrpc":"2.0","id":8,"method":"foo/bar"}`, status: 200, code: -32601, id: "8"},
		{name: "method of an unadvertised capability", body: `{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"info"}}`, status: 200, code: -32601, id: "8"},
		{name: "method wrong case", body: `{"jsonrpc":"2.0","id":8,"method":"TOOLS/LIST"}`, status: 200, code: -32601, id: "8"},
		{name: "a response posted", body: `{"jsonrpc":"2.0","id":8,"result":{}}`, status: 400, code: -32600, id: "8"},
		{name: "unknown notification", body: `{"jsonrpc":"2.0","method":"notifications/whatever"}`, status: 202},
		// Params.
		{name: "params string", body: `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":"x"}`, status: 400, code: -32600, id: "9"},
		{name: "params number", body: `{"jsonrpc":"2.0","id":9,"method":"ping","params":3}`, status: 400, code: -32600, id: "9"},
		{name: "tools/call without name", body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}`, status: 200, code: -32602, id: "9"},
		{name: "tools/call name number", body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}`, status: 200, code: -32602, id: "9"},
		{name: "tools/call params array", body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":["memo_get_memo"]}`, status: 200, code: -32602, id: "9"},
		{name: "tools/call unknown tool", body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"user_create_user"}}`, status: 200, code: -32602, id: "9", text: "unknown tool"},
		{name: "duplicate keys take the first", body: `{"jsonrpc":"2.0","id":10,"id":11,"method":"ping","method":"nope"}`, status: 200, id: "10"},
		// Sizes and depth.
		{name: "10000-deep nesting", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + deep + `}}`, status: 400, code: -32600, text: "nested deeper"},
		{name: "huge string under the cap", body: `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"pad":"` + huge + `"}}`, status: 200, id: "12"},
		{name: "body over the cap", body: `{"jsonrpc":"2.0","id":13,"method":"ping","params":{"pad":"` + over + `"}}`, status: 200, code: -32600, text: "too large"},
		// Content-Type and Accept.
		{name: "no content type", header: map[string]string{"Content-Type": ""}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 415, code: -32600},
		{name: "text/plain", header: map[string]string{"Content-Type": "text/plain"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 415, code: -32600},
		{name: "form encoded", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: `a=b`, status: 415, code: -32600},
		{name: "json lookalike type", header: map[string]string{"Content-Type": "application/jsonx"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 415, code: -32600},
		{name: "accept html only", header: map[string]string{"Accept": "text/html"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 406, code: -32600},
		{name: "accept sse only", header: map[string]string{"Accept": "text/event-stream"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 406, code: -32600},
		{name: "accept json refused by q=0", header: map[string]string{"Accept": "application/json;q=0"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 406, code: -32600},
		{name: "accept wildcard", header: map[string]string{"Accept": "*/*"}, body: `{"jsonrpc":"2.0","id":14,"method":"ping"}`, status: 200, id: "14"},
		// Batches in each era.
		{name: "batch 2024-11-05", header: map[string]string{"MCP-Protocol-Version": "2024-11-05"}, body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, status: 200},
		{name: "batch 2025-03-26", header: map[string]string{"MCP-Protocol-Version": "2025-03-26"}, body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, status: 200},
		{name: "batch 2025-06-18", header: map[string]string{"MCP-Protocol-Version": "2025-06-18"}, body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, status: 400, code: -32600},
		{name: "batch 2025-11-25", header: map[string]string{"MCP-Protocol-Version": "2025-11-25"}, body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, status: 400, code: -32600},
		{name: "batch 2026-07-28", header: v26, body: `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, status: 400, code: -32600},
		{name: "empty batch", body: `[]`, status: 400, code: -32600},
		{name: "batch of notifications", body: `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, status: 202},
		// Version header and 2026-07-28 header/_meta mismatches.
		{name: "unsupported version header", header: map[string]string{"MCP-Protocol-Version": "2024-10-07"}, body: `{"jsonrpc":"2.0","id":15,"method":"ping"}`, status: 400, code: -32600, id: "15"},
		{name: "2026 without _meta", header: v26, body: `{"jsonrpc":"2.0","id":16,"method":"tools/list"}`, status: 400, code: -32602, id: "16"},
		{name: "2026 header differs from _meta", header: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
			body: `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: -32020, id: "16"},
		{name: "2026 unsupported version", header: map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"},
			body: `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: -32022, id: "16"},
		{name: "2026 method header differs", header: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"},
			body: `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{` + meta26 + `}}`, status: 400, code: -32020, id: "16"},
		{name: "2026 name header differs", header: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "memo_delete_memo"},
			body: `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":"x"},` + meta26 + `}}`, status: 400, code: -32020, id: "16"},
		{name: "2026 removed method", header: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "initialize"},
			body: `{"jsonrpc":"2.0","id":16,"method":"initialize","params":{` + meta26 + `}}`, status: 404, code: -32601, id: "16"},
		// Origins and hosts.
		{name: "foreign origin", header: map[string]string{"Origin": "https://evil.example.com"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "null origin", header: map[string]string{"Origin": "null"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "origin on another port", header: map[string]string{"Origin": "http://127.0.0.1:1"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "file origin", header: map[string]string{"Origin": "file://"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "origin with a path", header: map[string]string{"Origin": "http://127.0.0.1/evil"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "rebinding host", header: map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: -32600},
		{name: "preflight from a foreign origin", method: "OPTIONS", header: map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"}, status: 403, code: -32600},
		// HTTP methods and paths.
		{name: "GET", method: "GET", status: 405, code: -32600},
		{name: "DELETE", method: "DELETE", status: 405, code: -32600},
		{name: "PUT", method: "PUT", body: `{}`, status: 405, code: -32600},
		{name: "PATCH", method: "PATCH", body: `{}`, status: 405, code: -32600},
		{name: "trailing slash", path: "/mcp/", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 404},
		{name: "upper-case path", path: "/MCP", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 404},
		{name: "dot segments", path: "/x/../mcp/..%2f", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 404},
	}
}

// Every hostile or malformed request gets its exact answer, and the Go
// instance that answered the first one still answers the last.
func TestBadInputBattery(t *testing.T) {
	client := &http.Client{}
	before := getHealth(t, client, worker.URL)
	cases := badInputCases()
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := caseRequest(t, tc.method, tc.path, tc.body, "Bearer "+memos.Token, tc.header)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, tc.status, body)
			}
			if len(body) == 0 {
				if tc.code != 0 || tc.status == 200 {
					t.Fatalf("empty answer, want JSON")
				}
				return
			}
			if !gjson.ValidBytes(body) {
				t.Fatalf("answer is not JSON: %.300s", body)
			}
			answer := gjson.ParseBytes(body)
			if got := answer.Get("error.code").Int(); got != int64(tc.code) && !(tc.code == 0 && answer.IsArray()) {
				t.Errorf("error code %d, want %d: %.300s", got, tc.code, body)
			}
			if tc.id != "" && answer.Get("id").Raw != tc.id {
				t.Errorf("id %s, want %s", answer.Get("id").Raw, tc.id)
			}
			if tc.text != "" && !bytes.Contains(body, []byte(tc.text)) {
				t.Errorf("answer lacks %q: %.300s", tc.text, body)
			}
		})
	}
	after := getHealth(t, client, worker.URL)
	if after.Instance.ID != before.Instance.ID {
		t.Errorf("the Go instance changed during the battery: %s → %s", before.Instance.ID, after.Instance.ID)
	}
	if got := after.Instance.Requests - before.Instance.Requests; got < int64(len(cases)) {
		t.Errorf("the instance served %d requests, want at least %d", got, len(cases))
	}
	t.Logf("%d bad-input cases answered by one Go instance (%s)", len(cases), after.Instance.ID)
}

// caseRequest builds a request to the shared Worker: POST /mcp unless method
// and path say otherwise, a JSON body, the given Authorization; header
// entries then set a field, remove it (an empty value), or set the Host.
func caseRequest(t *testing.T, method, path, body, auth string, header map[string]string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(cmp.Or(method, "POST"), worker.URL+cmp.Or(path, "/mcp"), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	for k, v := range header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	return req
}
