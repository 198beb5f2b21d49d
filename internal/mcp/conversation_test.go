package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
	"golang.org/x/tools/txtar"
)

// fakeTools is a two-tool surface: "echo" answers its arguments, any other
// name is unknown. Memos refuses the Authorization "Bearer deleted", and asks
// "Bearer busy" to wait 41.5 seconds.
type fakeTools struct{}

func (fakeTools) Release(context.Context) int { return 0 }

func (fakeTools) ListJSON(int) []byte {
	return []byte(`[{"name":"echo","description":"Echo.","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]`)
}

func (fakeTools) Call(_ context.Context, name string, args rawjson.Value, auth string) ([]byte, error) {
	switch {
	case name != "echo":
		return nil, errors.New("unknown tool")
	case auth == "Bearer deleted":
		return nil, &memos.Error{Status: 401, Msg: "401 Unauthorized: the token was deleted", Refused: true}
	case auth == "Bearer busy":
		return nil, &memos.Error{Status: 429, Msg: "429 Too Many Requests: slow down (retry after 42 seconds)", Wait: 41500 * time.Millisecond}
	}
	structured := args.Raw
	if structured == "" {
		structured = "{}"
	}
	text := string(gjson.AppendJSONString(nil, structured+" "+auth))
	return []byte(`{"content":[{"type":"text","text":` + text + `}],"structuredContent":` + structured + `}`), nil
}

// Confirm asks before an echo that says "delete".
func (fakeTools) Confirm(_ context.Context, name string, args rawjson.Value, _ string) string {
	if name == "echo" && args.Get("delete").Kind == rawjson.True {
		return "Delete it for good?"
	}
	return ""
}

func testHandler() *Handler {
	return NewHandler(Options{
		Name: "test-server", Version: "1.2.3", MaxBodyBytes: 4096, MaxResponseBytes: 2048, Tools: fakeTools{},
		AllowedOrigins: []string{"https://app.example.com"},
		Instructions: func(served func(string) bool) string {
			if served("echo") {
				return "Use echo to hear \"yourself\"."
			}
			return ""
		},
	})
}

// TestConversations replays the scripts in testdata/*.txtar (features*.txtar
// against a handler with resources and prompts). Each script is a
// sequence of exchanges: a file "N.request" holds a request line
// ("POST /mcp"), header lines, a blank line and the body; "N.response" holds
// the status, the headers that must be present (an empty value: absent), a blank line and the expected
// body (compared as JSON; empty means no body).
func TestConversations(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conversation scripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			h := handlerFor(filepath.Base(file))
			exchanges := 0
			for i := 0; i+1 < len(ar.Files); i += 2 {
				reqFile, respFile := ar.Files[i], ar.Files[i+1]
				if !strings.HasSuffix(reqFile.Name, ".request") || !strings.HasSuffix(respFile.Name, ".response") {
					t.Fatalf("files %q and %q are not a request and its response", reqFile.Name, respFile.Name)
				}
				req := parseRequest(t, reqFile.Data)
				got := h.Serve(context.Background(), req)
				checkResponse(t, reqFile.Name, respFile.Data, got)
				exchanges++
			}
			if exchanges == 0 || len(ar.Files)%2 != 0 {
				t.Fatalf("script has %d files; want request/response pairs", len(ar.Files))
			}
		})
	}
}

func parseRequest(t *testing.T, data []byte) *web.Request {
	t.Helper()
	head, body, _ := bytes.Cut(data, []byte("\n\n"))
	lines := strings.Split(string(head), "\n")
	method, target, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("bad request line %q", lines[0])
	}
	req := &web.Request{Method: method, URL: "http://127.0.0.1:8787" + target, Header: web.Header{}, Body: bytes.TrimSpace(body)}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("bad header line %q", l)
		}
		req.Header.Add(k, strings.TrimSpace(v))
	}
	if host := req.Header.Get("host"); host != "" {
		req.URL = "http://" + host + target // as the runtime reports it
	}
	return req
}

func checkResponse(t *testing.T, name string, want []byte, got *web.Response) {
	t.Helper()
	head, body, _ := bytes.Cut(want, []byte("\n\n"))
	lines := strings.Split(strings.TrimSpace(string(head)), "\n")
	status, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatalf("%s: bad status line %q", name, lines[0])
	}
	if got.Status != status {
		t.Errorf("%s: status %d, want %d (body %s)", name, got.Status, status, got.Body)
	}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		if g, ok := got.Header[strings.ToLower(k)]; g != strings.TrimSpace(v) || (v == "" && ok) {
			t.Errorf("%s: header %s = %q, want %q", name, k, g, strings.TrimSpace(v))
		}
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		if len(got.Body) != 0 {
			t.Errorf("%s: body %s, want none", name, got.Body)
		}
		return
	}
	if diff := cmp.Diff(normalJSON(t, body), normalJSON(t, got.Body)); diff != "" {
		t.Errorf("%s: body mismatch (-want +got):\n%s", name, diff)
	}
}

// normalJSON decodes JSON for comparison that ignores member order. An
// object that names a member twice is reported, since decoding keeps only
// the last.
func normalJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Sprintf("invalid JSON %q: %v", b, err)
	}
	if dup := duplicateMember(b); dup != "" {
		return fmt.Sprintf("JSON with the member %q twice in one object: %s", dup, b)
	}
	return v
}

// duplicateMember returns a member name that valid JSON b repeats within
// one object, or "".
func duplicateMember(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	type level struct {
		object    bool
		names     map[string]bool
		expectKey bool
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := (*level)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expectKey {
			if name, ok := tok.(string); ok {
				if top.names[name] {
					return name
				}
				top.names[name] = true
				top.expectKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.expectKey = true // the value just read ends a member
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, names: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			stack = append(stack, &level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].expectKey = true
			}
		}
	}
}

// panicTools fails inside a tool, as a bug would.
type panicTools struct{ fakeTools }

func (panicTools) Call(context.Context, string, rawjson.Value, string) ([]byte, error) {
	panic("bug in a tool")
}

// A panic inside a method becomes a JSON-RPC internal error for that request
// only; the handler keeps serving.
func TestPanicBecomesInternalError(t *testing.T) {
	h := NewHandler(Options{Name: "s", Version: "1", MaxBodyBytes: 4096, Tools: panicTools{}})
	call := &web.Request{Method: "POST", URL: "http://127.0.0.1/mcp", Header: web.Header{"content-type": "application/json"},
		Body: []byte(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"echo"}}`)}
	resp := h.Serve(context.Background(), call)
	if want := `{"jsonrpc":"2.0","id":"p","error":{"code":-32603,"message":"internal error"}}`; resp.Status != 200 || string(resp.Body) != want {
		t.Errorf("got %d %s, want 200 %s", resp.Status, resp.Body, want)
	}
	call.Body = []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if resp := h.Serve(context.Background(), call); resp.Status != 200 {
		t.Errorf("after the panic: %d %s", resp.Status, resp.Body)
	}
}

// A tool's result can be megabytes: in either era it is copied once, into
// the response, which is allocated once at its size.
func TestResultCopiedOnce(t *testing.T) {
	h := testHandler()
	result := []byte(`{"content":[],"structuredContent":{"text":"` + strings.Repeat("x", 1<<20) + `"}}`)
	for _, modern := range []bool{false, true} {
		c := &call{msg: jsonrpc.Message{ID: []byte(`7`)}, modern: modern}
		var r reply
		if n := testing.AllocsPerRun(10, func() { r = h.ok(c, result) }); n != 1 || len(r.body) != cap(r.body) {
			t.Errorf("modern %v: %v allocations, %d bytes of room for %d", modern, n, cap(r.body), len(r.body))
		}
		got := gjson.ParseBytes(r.body)
		if !got.Get("result.structuredContent").Exists() || got.Get("result.resultType").Exists() != modern || !gjson.ValidBytes(r.body) {
			t.Errorf("modern %v: %.200s", modern, r.body)
		}
	}
}
