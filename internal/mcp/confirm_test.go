package mcp

import (
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// A call that deletes for good is confirmed first in 2026-07-28 when the
// client declares elicitation: an input_required result with one form;
// the call sent again with the person's yes runs, with a no does nothing.
// Without elicitation, or in a legacy version, it runs at once.
func TestConfirmBeforeDelete(t *testing.T) {
	h := testHandler()
	call := func(caps, extra string) gjson.Result {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"delete":true}` + extra +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		resp := h.Serve(t.Context(), &web.Request{Method: "POST", URL: "http://127.0.0.1:8787/mcp", Body: []byte(body), Header: web.Header{
			"content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"}})
		if resp.Status != 200 || !gjson.ValidBytes(resp.Body) {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		return gjson.GetBytes(resp.Body, "result")
	}
	asked := call(`{"elicitation":{}}`, "")
	form := asked.Get("inputRequests.confirm")
	if asked.Get("resultType").Str != "input_required" || form.Get("method").Str != "elicitation/create" || form.Get("params.message").Str != "Delete it for good?" ||
		form.Get("params.requestedSchema.properties.confirm.type").Str != "boolean" || asked.Get("content").Exists() {
		t.Errorf("first round: %s", asked.Raw)
	}
	yes := call(`{"elicitation":{}}`, `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	if yes.Get("resultType").Str != "complete" || yes.Get("isError").Bool() || !strings.Contains(yes.Get("content.0.text").Str, `"delete":true`) {
		t.Errorf("confirmed: %s", yes.Raw)
	}
	for _, no := range []string{`{"action":"decline"}`, `{"action":"accept","content":{"confirm":false}}`, `{"action":"cancel"}`} {
		r := call(`{"elicitation":{}}`, `,"inputResponses":{"confirm":`+no+`}`)
		if !r.Get("isError").Bool() || !strings.Contains(r.Get("content.0.text").Str, "nothing was done") {
			t.Errorf("answer %s: %s", no, r.Raw)
		}
	}
	if direct := call(`{}`, ""); direct.Get("resultType").Str != "complete" || direct.Get("isError").Bool() {
		t.Errorf("without elicitation: %s", direct.Raw)
	}
}
