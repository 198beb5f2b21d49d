package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
	"golang.org/x/tools/txtar"
)

// FuzzServe drives the whole endpoint with arbitrary bodies and MCP headers.
// The seed corpus is every request of the conversation scripts. Beyond not
// panicking, every answer must be well-formed: a known status, JSON (or no
// body where none belongs), the request's id echoed, and never an internal
// error (which would mean a recovered panic).
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if filepath.Ext(af.Name) != ".request" {
				continue
			}
			head, body, _ := bytes.Cut(af.Data, []byte("\n\n"))
			req := parseHeaders(head)
			f.Add(bytes.TrimSpace(body), req.Get("mcp-protocol-version"), req.Get("mcp-method"), req.Get("mcp-name"), req.Get("origin"))
		}
	}
	h := testHandler()
	counted := &countingTools{Tools: h.opts.Tools}
	h.opts.Tools = counted
	f.Fuzz(func(t *testing.T, body []byte, version, method, name, origin string) {
		counted.calls.Store(0)
		req := &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: body, Header: web.Header{
			"content-type":         "application/json",
			"mcp-protocol-version": version,
			"mcp-method":           method,
			"mcp-name":             name,
			"origin":               origin,
		}}
		resp := h.Serve(context.Background(), req)
		switch resp.Status {
		case 202:
			if len(resp.Body) != 0 {
				t.Fatalf("202 with a body: %s", resp.Body)
			}
			return
		case 200, 400, 403, 404, 413:
		default:
			t.Fatalf("status %d for %q", resp.Status, body)
		}
		if !gjson.ValidBytes(resp.Body) {
			t.Fatalf("invalid JSON answer %q for %q", resp.Body, body)
		}
		answer := gjson.ParseBytes(resp.Body)
		// What one request may cost is bounded, whatever it holds.
		if n := counted.calls.Load(); n > MaxBatchCalls {
			t.Fatalf("%d tool calls for one request: %q", n, body)
		}
		if n := len(answer.Array()); answer.IsArray() && n > MaxBatchItems {
			t.Fatalf("%d answers for one request: %q", n, body)
		}
		if answer.Get("error.code").Int() == -32603 {
			t.Fatalf("internal error (a recovered panic) for %q: %s", body, resp.Body)
		}
		// Refusals before parsing (origin, size, …) carry a null id; any
		// other answer to a request echoes its id.
		in := gjson.ParseBytes(body)
		if gjson.ValidBytes(body) && in.IsObject() && answer.IsObject() && (resp.Status == 200 || answer.Get("id").Type != gjson.Null) {
			if id := in.Get("id"); (id.Type == gjson.String || id.Type == gjson.Number) && answer.Get("id").Raw != id.Raw {
				t.Fatalf("answer id %s, request id %s", answer.Get("id").Raw, id.Raw)
			}
		}
	})
}

// countingTools counts the tool calls made through it.
type countingTools struct {
	Tools
	calls atomic.Int64
}

func (c *countingTools) Call(ctx context.Context, name string, args rawjson.Value, auth string) ([]byte, error) {
	c.calls.Add(1)
	return c.Tools.Call(ctx, name, args, auth)
}

func parseHeaders(head []byte) web.Header {
	h := web.Header{}
	for _, line := range bytes.Split(head, []byte("\n"))[1:] {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok {
			h.Add(string(k), string(bytes.TrimSpace(v)))
		}
	}
	return h
}

// FuzzDecodeHeaderValue checks the base64 sentinel round trip and that plain
// values come back trimmed and unchanged.
func FuzzDecodeHeaderValue(f *testing.F) {
	for _, s := range []string{"echo", " echo ", "=?base64?ZWNobw==?=", "=?base64?%%?=", "日本語", "=?base64?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
		if got, ok := decodeHeaderValue(enc); !ok || got != s {
			t.Fatalf("round trip of %q: %q, %t", s, got, ok)
		}
		got, ok := decodeHeaderValue(s)
		if !ok {
			return // a malformed sentinel
		}
		if len(got) > len(s) {
			t.Fatalf("decoding %q grew it to %q", s, got)
		}
	})
}
