//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// listedNames is what tools/list of the gateway at base lists, in order.
func listedNames(t *testing.T, base string) []string {
	t.Helper()
	ctx := context.Background()
	res, err := connect(t, ctx, base+"/mcp", memos.Token, "").ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// rawCall posts one tools/call for name in the legacy or the 2026-07-28
// style and returns the HTTP status and body.
func rawCall(t *testing.T, base, name string, modern bool) (int, string) {
	t.Helper()
	meta, header := "", map[string]string{"MCP-Protocol-Version": "2025-11-25"}
	if modern {
		meta = "," + meta26
		header = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
	}
	return post(t, base, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"`+name+`","arguments":{"body":{"content":"must not be written"}}`+meta+`}}`, header)
}

// post sends body to the MCP endpoint of the gateway at base, with the
// test token and header, and returns the HTTP status and answer.
func post(t *testing.T, base, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+memos.Token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp.StatusCode, string(answer)
}

// READ_ONLY=true lists exactly the tools annotated readOnlyHint, and a
// write tool is refused exactly as an unknown tool is.
func TestReadOnlyDeployment(t *testing.T) {
	var want []string
	for _, tool := range listedDefinitions(t, worker.URL) {
		if tool.Get("annotations.readOnlyHint").Bool() {
			want = append(want, tool.Get("name").Str)
		}
	}
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": memos.URL, "READ_ONLY": "true"}})
	got := listedNames(t, gw.URL)
	if diff := cmp.Diff(want, got); diff != "" || len(want) == 0 {
		t.Errorf("tools of a read-only deployment (-want +got):\n%s", diff)
	}
	if c := toolsAt(t, gw.URL, memos.Token); c.ok("memo_list_memos", map[string]any{"pageSize": 1}) == nil {
		t.Error("a read-only tool does not work")
	}
	for _, modern := range []bool{false, true} {
		hiddenStatus, hidden := rawCall(t, gw.URL, "memo_create_memo", modern)
		unknownStatus, unknown := rawCall(t, gw.URL, "memo_no_such_tool", modern)
		if hiddenStatus != unknownStatus || hidden != strings.ReplaceAll(unknown, "memo_no_such_tool", "memo_create_memo") {
			t.Errorf("modern=%t: a write tool got %d %s\nan unknown tool got %d %s", modern, hiddenStatus, hidden, unknownStatus, unknown)
		}
		if gjson.Get(hidden, "error.code").Int() != -32602 {
			t.Errorf("modern=%t: a write tool is not refused as unknown: %s", modern, hidden)
		}
	}
	status, h := healthOf(t, gw.URL)
	if reg, _ := h["registry"].(map[string]any); status != 200 || reg["tools"] != float64(len(want)) {
		t.Errorf("healthz %d %v, want %d tools", status, h, len(want))
	}
}

// listedDefinitions is the tools array of tools/list of the gateway at base.
func listedDefinitions(t *testing.T, base string) []gjson.Result {
	t.Helper()
	_, body := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	return gjson.Get(body, "result.tools").Array()
}

// TOOLS lists exactly what its names, prefixes and removals select.
func TestToolsSelection(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{
		"MEMOS_URL": memos.URL,
		"TOOLS":     "attachment_, -attachment_delete_attachment, memo_get_memo, memo_list_memos",
	}})
	want := []string{"attachment_create_attachment", "attachment_get_attachment", "attachment_list_attachments", "attachment_read", "memo_get_memo", "memo_list_memos"}
	if diff := cmp.Diff(want, listedNames(t, gw.URL)); diff != "" {
		t.Errorf("selected tools (-want +got):\n%s", diff)
	}
	all := registryNames()
	for _, name := range []string{"attachment_delete_attachment", "memo_delete_memo"} {
		if !slices.Contains(all, name) {
			t.Fatalf("the registry has no %s", name)
		}
		if status, body := rawCall(t, gw.URL, name, false); status != 200 || !strings.Contains(body, `"unknown tool: \"`+name+`\""`) {
			t.Errorf("%s outside the selection: %d %s", name, status, body)
		}
	}
}

// A TOOLS entry that matches no tool is a configuration problem: /healthz
// names it and /mcp answers 503.
func TestBadToolsEntry(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": memos.URL, "TOOLS": "memo_, shortcut_list_shortcut, note_"}})
	status, h := healthOf(t, gw.URL)
	errs, _ := h["errors"].([]any)
	var texts []string
	for _, e := range errs {
		texts = append(texts, e.(string))
	}
	joined := strings.Join(texts, "\n")
	if status != 503 || h["status"] != "misconfigured" || !strings.Contains(joined, `TOOLS entry "note_" matches no tool`) || strings.Contains(joined, "shortcut_list_shortcut\"") {
		t.Fatalf("healthz %d %v", status, h)
	}
	if status, body := post(t, gw.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); status != 503 ||
		!strings.Contains(body, "misconfigured") || !strings.Contains(body, `TOOLS entry \"note_\"`) {
		t.Errorf("/mcp: %d %s", status, body)
	}
}
