//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// memo_edit answers with what changed, not with the memo: an append to a
// memo near Memos' default limit of 8,192 characters, and to a 200 KB
// journal on an instance that raised the limit, answers in under 2 KB as
// sent (the whole HTTP body), and the undo it gives restores the text.
// Its own Memos, since the limit is the instance's.
func TestEditAnswersByTheChange(t *testing.T) {
	m := memosOfItsOwn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": m.URL}})
	c := toolsAt(t, gw.URL, m.Token)
	client := &http.Client{Timeout: time.Minute}
	edit := func(args map[string]any) (int, map[string]any) {
		t.Helper()
		params, _ := json.Marshal(map[string]any{"name": "memo_edit", "arguments": args})
		status, body, err := harness.Post(ctx, client, gw.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+string(params)+`}`, harness.MCPHeaders(m.Token))
		var res struct {
			Result struct {
				IsError bool
				Content []struct{ Text string }
			}
		}
		if err != nil || status != 200 || json.Unmarshal(body, &res) != nil || res.Result.IsError || len(res.Result.Content) != 1 {
			t.Fatalf("memo_edit: %v, HTTP %d: %.500s", err, status, body)
		}
		var out map[string]any
		json.Unmarshal([]byte(res.Result.Content[0].Text), &out)
		return len(body), out
	}
	line := "Tuesday: walked along the river, wrote two pages, cooked the soup.\n"
	for _, tc := range []struct {
		name  string
		limit int // 0: Memos' default
		size  int // characters before the append
	}{
		{"near the default limit", 0, 8192 - 200},
		{"a 200 KB journal", 256 << 10, 200 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.limit > 0 {
				restOn(t, m, "PATCH", "/api/v1/instance/settings/MEMO_RELATED",
					map[string]any{"name": "instance/settings/MEMO_RELATED", "memoRelatedSetting": map[string]any{"contentLengthLimit": tc.limit}})
			}
			text := "Journal #e2etold\n" + strings.Repeat(line, (tc.size-17)/len(line))
			name := c.createMemo(text, "PRIVATE")
			before := memoContentAt(t, m, name)
			n, got := edit(map[string]any{"memo": name, "append": "- [ ] buy stamps"})
			if n >= 2000 {
				t.Errorf("an append to a memo of %d characters answered %d bytes", len(before), n)
			}
			t.Logf("an append to a memo of %d characters answered %d bytes", len(before), n)
			if _, ok := got["previousContent"]; ok {
				t.Errorf("the answer holds the memo's previous text: %.300v", got)
			}
			undo, _ := got["undo"].(map[string]any)
			if undo == nil {
				t.Fatalf("no undo in %v", got)
			}
			undo["memo"] = name
			edit(undo)
			if after := memoContentAt(t, m, name); after != before {
				t.Errorf("undo left %d characters, the memo had %d", len(after), len(before))
			}
		})
	}
}

// Refusals say that nothing was written and what the model can do: a
// stale contentHash (with the text to start again from), bytes that are
// not base64 (naming base64); a delete's answer counts comments as a
// number.
func TestRefusalsSayWhatToDo(t *testing.T) {
	c := newTools(t, memos.Token)
	name := c.createMemo("Told #e2etold\n- [ ] milk", "PRIVATE")
	hash := str(c.ok("memo_get_memo", map[string]any{"memo": name}), "contentHash")
	c.ok("memo_edit", map[string]any{"memo": name, "append": "- [ ] tea"})
	msg := c.fails("memo_edit", map[string]any{"memo": name, "check": "milk", "contentHash": hash})
	if !strings.Contains(msg, "nothing was written") || !strings.Contains(msg, "- [ ] tea") {
		t.Errorf("a stale contentHash: %q", msg)
	}
	msg = c.fails("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": "a.txt", "type": "text/plain", "content": "not base64!"}})
	if !strings.Contains(msg, "base64") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("bytes that are not base64: %q", msg)
	}
	c.ok("memo_create_memo_comment", map[string]any{"memo": name, "body": map[string]any{"content": "a comment"}})
	res := c.ok("memo_delete_memo", map[string]any{"memo": name})
	if n, ok := get(res, "deleted.comments").(float64); !ok || n != 1 {
		t.Errorf("the delete's comments: %#v in %v", get(res, "deleted.comments"), res)
	}
}
