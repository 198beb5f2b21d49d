package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos/memostest"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/prompts"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/resources"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// memosTools stands for the registry's tools by name (the prompts name
// them), with memo_create_memo left out of a read-only grant's set. Calls
// are not what these tests are about: every name is unknown to Call.
type memosTools struct{ readOnly bool }

func (memosTools) Release(context.Context) int { return 0 }

func (t memosTools) ListJSON(int) []byte {
	list := `[{"name":"memo_get_memo","description":"Get.","inputSchema":{"type":"object"}},` +
		`{"name":"memo_list_memos","description":"List.","inputSchema":{"type":"object"}}`
	if !t.readOnly {
		list += `,{"name":"memo_create_memo","description":"Create.","inputSchema":{"type":"object"}}`
	}
	return []byte(list + "]")
}

func (memosTools) Confirm(context.Context, string, rawjson.Value, string) string { return "" }

func (memosTools) Call(context.Context, string, rawjson.Value, string) ([]byte, error) {
	return nil, errors.New("unknown tool")
}

// featureHandler serves resources, prompts and completions from a fake
// Memos (internal/memos/memostest). "Bearer read-only" is a
// read-only grant of alice's token; "Bearer issued-dead" a grant whose
// Memos token was deleted, which Revoked answers with a 401.
func featureHandler(fake *memostest.Memos) *Handler {
	client := fake.Client(1 << 20)
	return NewHandler(Options{
		Name: "test-server", Version: "1.2.3", MaxBodyBytes: 4096, MaxResponseBytes: 8192,
		Tools: memosTools{}, ReadOnlyTools: memosTools{readOnly: true},
		Resources: resources.New(client, 4096), Prompts: prompts.New(client),
		Authorize: func(_ context.Context, req *web.Request) (string, bool, *web.Response) {
			switch auth := req.Header.Get("authorization"); auth {
			case "Bearer read-only":
				return memostest.Token, true, nil
			case "Bearer issued-dead":
				return memostest.Deleted, false, nil
			default:
				return auth, false, nil
			}
		},
		Revoked: func(req *web.Request) *web.Response {
			if req.Header.Get("authorization") != "Bearer issued-dead" {
				return nil
			}
			return &web.Response{Status: 401, Header: web.Header{"www-authenticate": `Bearer error="invalid_token"`}, Body: []byte(`{"error":"invalid_token"}`)}
		},
	})
}

// handlerFor returns the handler a conversation script runs against:
// features*.txtar the one with resources and prompts, the others the
// tools-only one.
func handlerFor(script string) *Handler {
	if strings.HasPrefix(script, "features") {
		return featureHandler(&memostest.Memos{})
	}
	return testHandler()
}

// post sends one legacy-era request to h.
func post(h *Handler, auth, body string) *web.Response {
	return h.Serve(context.Background(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body),
		Header: web.Header{"content-type": "application/json", "authorization": auth, "mcp-protocol-version": "2025-03-26"}})
}

const (
	readMemo       = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"memo://memos/m1"}}`
	readAttachment = `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"memo://attachments/a1"}}`
	listResources  = `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`
	completeTags   = `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"capture"},"argument":{"name":"tags","value":"w"}}}`
	getCapture     = `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"capture","arguments":{"content":"x"}}}`
	listPrompts    = `{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`
	listTemplates  = `{"jsonrpc":"2.0","id":7,"method":"resources/templates/list"}`
)

// Resources, prompts and completions are reads: a read-only grant gets
// them all, with its Memos credentials, except the prompt that writes. A
// grant whose Memos token was deleted gets the authorization server's 401
// from any of them that asks Memos, as from a tool call; a plain Memos
// token gets the error; Memos' 429 comes back with Retry-After.
func TestFeatureGrants(t *testing.T) {
	for _, tc := range []struct {
		name, auth, body string
		status           int
		answer           string // a part of the body
		absent           string // not a part of the body
		header           string // "name: value" that the answer carries
	}{
		{name: "read-only grant reads a memo", auth: "Bearer read-only", body: readMemo, status: 200, answer: `"text":"---\nname: memos/m1`},
		{name: "read-only grant reads an attachment", auth: "Bearer read-only", body: readAttachment, status: 200, answer: `"text":"hello world"`},
		{name: "read-only grant lists memos", auth: "Bearer read-only", body: listResources, status: 200, answer: `"uri":"memo://memos/m1"`},
		{name: "read-only grant completes no capture", auth: "Bearer read-only", body: completeTags, status: 200, answer: `unknown prompt \"capture\"`},
		{name: "full grant completes tags", auth: memostest.Token, body: completeTags, status: 200, answer: `"values":["work","work/boiler","Workshop"]`},
		{name: "read-only grant lists prompts without capture", auth: "Bearer read-only", body: listPrompts, status: 200, answer: `"name":"find"`, absent: `"capture"`},
		{name: "read-only grant gets no capture", auth: "Bearer read-only", body: getCapture, status: 200, answer: `unknown prompt \"capture\"`},
		{name: "full grant gets capture", auth: memostest.Token, body: getCapture, status: 200, answer: `Create it with memo_create_memo`},
		{name: "full grant lists capture", auth: memostest.Token, body: listPrompts, status: 200, answer: `"name":"capture"`},
		{name: "revoked grant reads", auth: "Bearer issued-dead", body: readMemo, status: 401, answer: "invalid_token", header: `www-authenticate: Bearer error="invalid_token"`},
		{name: "revoked grant lists", auth: "Bearer issued-dead", body: listResources, status: 401, answer: "invalid_token"},
		{name: "revoked grant completes tags", auth: "Bearer issued-dead", body: completeTags, status: 401, answer: "invalid_token"},
		{name: "revoked grant in a batch", auth: "Bearer issued-dead", body: "[" + listTemplates + "," + readMemo + "]", status: 401, answer: "invalid_token"},
		{name: "revoked grant without a Memos request", auth: "Bearer issued-dead", body: getCapture, status: 200, answer: "memo_create_memo"},
		{name: "plain token refused", auth: memostest.Deleted, body: readMemo, status: 200, answer: `{"code":-32603,"message":"401 Unauthorized: authentication required"}`},
		{name: "rate limited", auth: memostest.Busy, body: readAttachment, status: 200, answer: "429 Too Many Requests", header: "retry-after: 42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(featureHandler(&memostest.Memos{}), tc.auth, tc.body)
			body := string(resp.Body)
			if resp.Status != tc.status || !strings.Contains(body, tc.answer) || (tc.absent != "" && strings.Contains(body, tc.absent)) {
				t.Errorf("%d %s", resp.Status, body)
			}
			if name, value, ok := strings.Cut(tc.header, ": "); ok && resp.Header.Get(name) != value {
				t.Errorf("%s: %q, want %q", name, resp.Header.Get(name), value)
			}
		})
	}
}

// Each method asks Memos a bounded number of times, whatever it is asked:
// the cost table of docs/tools.md. A batch holds at most MaxBatchCalls
// requests that ask Memos.
func TestFeatureCost(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		requests   int
	}{
		{"resources/templates/list", listTemplates, 0},
		{"resources/list", listResources, 2},
		{"resources/read of a memo", readMemo, 2}, // 1 where the caller check remembers the caller
		{"resources/read of an attachment", readAttachment, 2},
		{"resources/read of an attachment over the cap", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"memo://attachments/big"}}`, 1},
		{"resources/read of a URI not ours", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"memo://memos/a/../../x"}}`, 0},
		{"prompts/list", listPrompts, 0},
		{"prompts/get", getCapture, 0},
		{"completion/complete of tags", completeTags, 2},
		{"completion/complete of a long value", `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"capture"},"argument":{"name":"tags","value":"` + strings.Repeat("w", 1001) + `"}}}`, 0},
		{"batch of four", "[" + readMemo + "," + readAttachment + "," + listResources + "," + completeTags + "]", 8},
		{"batch of five", "[" + readMemo + "," + readAttachment + "," + listResources + "," + completeTags + "," + readMemo + "]", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &memostest.Memos{}
			resp := post(featureHandler(fake), memostest.Token, tc.body)
			if n := len(fake.Requests()); n != tc.requests {
				t.Errorf("%d requests to Memos, want %d: %v (answer %d %.300s)", n, tc.requests, fake.Requests(), resp.Status, resp.Body)
			}
		})
	}
}
