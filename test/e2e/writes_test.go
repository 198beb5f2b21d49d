//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The tests here hold the gateway to writing safely (docs/tools.md, "Writing
// safely") against the real Memos: a fault proxy in front of it loses the
// answers of writes that Memos applied, and the person edits memos over
// Memos' own API between an agent's read and its write.

// writesGateway is a gateway that reaches Memos through a fault proxy.
func writesGateway(t *testing.T) (*faultProxy, *tools) {
	t.Helper()
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL(), "UPSTREAM_TIMEOUT_MS": faultTimeoutMs}})
	return proxy, toolsAt(t, gw.URL, memos.Token)
}

// loseAnswer is a fault for the requests of one method: Memos gets each
// and applies it, and the gateway gets lose instead of Memos' answer. Other
// requests (the guards' reads) pass through. hits counts the lost answers.
func loseAnswer(p *faultProxy, method string, lose http.HandlerFunc, hits *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			p.pass.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		applied := httptest.NewRecorder()
		p.pass.ServeHTTP(applied, r)
		hits.Add(1)
		lose(w, r)
	}
}

// The ways an answer is lost after Memos applied the write.
var lostAnswers = []struct {
	name string
	lose http.HandlerFunc
}{
	{"connection reset", hangUp},
	{"a proxy's 502", answer(502, "text/html", nginx502)},
	{"an empty 200", answer(200, "application/json", "")},
	{"a body cut short", answer(200, "application/json", `{"name":"memos/`)},
	{"the gateway's timeout", stall(false)},
}

// memosWith lists the caller's memos whose content holds text, over
// Memos' own API.
func memosWith(t *testing.T, text string) []any {
	t.Helper()
	list := rest(t, "GET", "/api/v1/memos?pageSize=100&filter="+url.QueryEscape(`content.contains("`+text+`")`), nil)
	items, _ := list["memos"].([]any)
	return items
}

// A create whose answer is lost after Memos stored it answers with the memo
// Memos stored, and exactly one exists; a retry with the same memoId
// answers with it too (Memos' 409), and makes no second one.
func TestWriteCreateOnceAfterLostAnswer(t *testing.T) {
	proxy, c := writesGateway(t)
	for _, tc := range lostAnswers {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			proxy.set(loseAnswer(proxy, "POST", tc.lose, &hits))
			content := "created once through " + tc.name + " #e2ewrites"
			m := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": content}})
			proxy.set(nil)
			if hits.Load() != 1 || str(m, "content") != content || !strings.Contains(str(m, "note"), "answer was lost") {
				t.Errorf("%d lost answers; result %v", hits.Load(), m)
			}
			if n := len(memosWith(t, content)); n != 1 {
				t.Errorf("%d memos made, want 1", n)
			}
			id := strings.TrimPrefix(str(m, "name"), "memos/")
			again := c.ok("memo_create_memo", map[string]any{"memoId": id, "body": map[string]any{"content": content}})
			if str(again, "name") != str(m, "name") || !strings.Contains(str(again, "note"), "existed already") {
				t.Errorf("retry: %v", again)
			}
			if n := len(memosWith(t, content)); n != 1 {
				t.Errorf("%d memos after the retry, want 1", n)
			}
			// A model that never saw the answer (its client hung up)
			// makes the same call again, without the id: the same memo.
			same := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": content}})
			if str(same, "name") != str(m, "name") || !strings.Contains(str(same, "note"), "existed already") {
				t.Errorf("the same call again: %v", same)
			}
			if n := len(memosWith(t, content)); n != 1 {
				t.Errorf("%d memos after the same call again, want 1", n)
			}
		})
	}
}

// A create Memos never got (the connection refused) says that nothing was
// made and how to retry safely.
func TestWriteCreateNotMade(t *testing.T) {
	proxy, c := writesGateway(t)
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			hangUp(w, r) // before Memos sees it
			return
		}
		proxy.pass.ServeHTTP(w, r)
	})
	defer proxy.set(nil)
	content := "never made #e2ewrites"
	msg := c.fails("memo_create_memo", map[string]any{"body": map[string]any{"content": content}})
	if !strings.Contains(msg, "shows nothing was made; nothing was written: trying again is safe") {
		t.Errorf("message %q", msg)
	}
	if n := len(memosWith(t, content)); n != 0 {
		t.Errorf("%d memos made, want 0", n)
	}
}

// A write whose answer is lost is settled by reading back: an update and a
// delete report what Memos did.
func TestWriteUpdateAndDeleteAfterLostAnswer(t *testing.T) {
	proxy, c := writesGateway(t)
	for _, tc := range lostAnswers {
		t.Run(tc.name, func(t *testing.T) {
			name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "to update and delete #e2ewrites", "visibility": "PRIVATE"}}), "name")
			var hits atomic.Int32
			proxy.set(loseAnswer(proxy, "PATCH", tc.lose, &hits))
			m := c.ok("memo_update_memo", map[string]any{"memo": name, "body": map[string]any{"visibility": "PROTECTED"}})
			if hits.Load() != 1 || str(m, "visibility") != "PROTECTED" || str(m, "replaced.visibility") != "PRIVATE" {
				t.Errorf("update: %d lost answers, result %v", hits.Load(), m)
			}
			proxy.set(loseAnswer(proxy, "DELETE", tc.lose, &hits))
			d := c.ok("memo_delete_memo", map[string]any{"memo": name})
			proxy.set(nil)
			// The runtime itself may resend a DELETE whose connection was
			// reset, so Memos may see it twice.
			if hits.Load() < 2 || str(d, "deleted.content") != "to update and delete #e2ewrites" {
				t.Errorf("delete: %d lost answers, result %v", hits.Load(), d)
			}
			// A retry of the delete finds nothing, and says so: not as
			// a delete it made.
			if again := c.fails("memo_delete_memo", map[string]any{"memo": name}); !strings.Contains(again, "deleted already") || !strings.Contains(again, "nothing was written") {
				t.Errorf("retried delete: %v", again)
			}
		})
	}
}

// The lost update: the agent reads a memo, the person adds a line in the
// web app, the agent writes its version back. The write is refused as a
// conflict that holds the person's line; written from the current text, it
// keeps both. A content change without contentHash is refused too.
func TestWriteLostUpdateRefused(t *testing.T) {
	c := newTools(t, memos.Token)
	name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "shopping #e2ewrites\n- milk"}}), "name")
	read := c.ok("memo_get_memo", map[string]any{"memo": name})
	rest(t, "PATCH", "/api/v1/"+name+"?updateMask=content", map[string]any{"content": "shopping #e2ewrites\n- milk\n- eggs (the person's)"})
	msg := c.fails("memo_update_memo", map[string]any{"memo": name, "contentHash": str(read, "contentHash"),
		"body": map[string]any{"content": "shopping #e2ewrites\n- milk\n- bread (the agent's)"}})
	if !strings.HasPrefix(msg, "conflict: "+name+" changed since you read it") || !strings.Contains(msg, "eggs (the person's)") {
		t.Errorf("conflict message %q", msg)
	}
	if got := rest(t, "GET", "/api/v1/"+name, nil)["content"]; !strings.Contains(got.(string), "eggs") || strings.Contains(got.(string), "bread") {
		t.Errorf("after the refused write: %q", got)
	}
	if msg := c.fails("memo_update_memo", map[string]any{"memo": name, "body": map[string]any{"content": "blind"}}); !strings.Contains(msg, "pass the contentHash") {
		t.Errorf("without contentHash: %q", msg)
	}
	now := c.ok("memo_get_memo", map[string]any{"memo": name})
	m := c.ok("memo_update_memo", map[string]any{"memo": name, "contentHash": str(now, "contentHash"),
		"body": map[string]any{"content": str(now, "content") + "\n- bread (the agent's)"}})
	if !strings.Contains(str(m, "content"), "eggs") || !strings.Contains(str(m, "content"), "bread") || str(m, "replaced.content") != str(now, "content") {
		t.Errorf("update from the current text: %v", m)
	}
}

// Masks cannot blank: a field named without a value is refused, and the
// memo is left as it was; a content change Memos refuses writes nothing of
// the other fields.
func TestWriteMasksCannotBlank(t *testing.T) {
	c := newTools(t, memos.Token)
	name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "a public note #e2ewrites", "visibility": "PUBLIC"}}), "name")
	hash := str(c.ok("memo_get_memo", map[string]any{"memo": name}), "contentHash")
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"content named, visibility given", map[string]any{"updateMask": "content,visibility", "body": map[string]any{"visibility": "PRIVATE"}}, `updateMask names "content", which body does not give`},
		{"state and visibility named, pinned given", map[string]any{"updateMask": "visibility,state", "body": map[string]any{"pinned": true}}, `updateMask names "visibility", which body does not give`},
		{"a body field the mask leaves out", map[string]any{"updateMask": "pinned", "contentHash": hash, "body": map[string]any{"pinned": true, "content": "x"}}, `body gives "content", which updateMask leaves out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["memo"] = name
			if msg := c.fails("memo_update_memo", tc.args); !strings.HasPrefix(msg, tc.want) {
				t.Errorf("message %q, want %q…", msg, tc.want)
			}
		})
	}
	// Over Memos' content limit (8 KiB by default): refused, and the
	// visibility change beside it is not made either (content goes first).
	msg := c.fails("memo_update_memo", map[string]any{"memo": name, "contentHash": hash, "body": map[string]any{"visibility": "PRIVATE", "content": strings.Repeat("long ", 3000)}})
	m := rest(t, "GET", "/api/v1/"+name, nil)
	if m["content"] != "a public note #e2ewrites" || m["visibility"] != "PUBLIC" || m["state"] != "NORMAL" {
		t.Errorf("after the refused updates (%q): %v %v %v", msg, m["content"], m["visibility"], m["state"])
	}
}

// A delete says what it takes and leaves what it took in its result; a memo
// is archived instead by an update of its state.
func TestWriteDeleteSaysWhatItTakes(t *testing.T) {
	c := newTools(t, memos.Token)
	name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "with comments #e2ewrites", "visibility": "PROTECTED"}}), "name")
	for _, text := range []string{"first", "second"} {
		c.ok("memo_create_memo_comment", map[string]any{"memo": name, "body": map[string]any{"content": text}})
	}
	d := c.ok("memo_delete_memo", map[string]any{"memo": name})
	if str(d, "deleted.content") != "with comments #e2ewrites" || str(d, "deleted.visibility") != "PROTECTED" || get(d, "deleted.comments") != 2.0 ||
		!strings.Contains(str(d, "note"), "create it again") {
		t.Errorf("delete result %v", d)
	}
	archived := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "put away #e2ewrites"}}), "name")
	if m := c.ok("memo_update_memo", map[string]any{"memo": archived, "body": map[string]any{"state": "ARCHIVED"}}); str(m, "state") != "ARCHIVED" || str(m, "content") != "put away #e2ewrites" {
		t.Errorf("archive: %v", m)
	}
}

// A memo or comment is made whole or not at all: file bytes and a relation
// to a memo that does not exist are refused before anything is written,
// and a comment Memos failed half-way leaves no memo of its own.
func TestWriteNothingHalfMade(t *testing.T) {
	proxy, c := writesGateway(t)
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"inline file bytes", map[string]any{"content": "with a file #e2ewrites-half", "attachments": []any{map[string]any{"filename": "a.txt", "type": "text/plain", "content": "aGVsbG8="}}},
			`unknown argument "body.attachments[0].content"`},
		{"an attachment without its name", map[string]any{"content": "unnamed file #e2ewrites-half", "attachments": []any{map[string]any{}}},
			"names no attachment"},
		{"a relation to nothing", map[string]any{"content": "related #e2ewrites-half", "relations": []any{map[string]any{"memo": map[string]any{"name": "memos/new"}, "relatedMemo": map[string]any{"name": "memos/doesnotexist"}, "type": "REFERENCE"}}},
			"memos/doesnotexist, which does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := c.fails("memo_create_memo", map[string]any{"body": tc.body}); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "nothing was written") {
				t.Errorf("message %q", msg)
			}
		})
	}
	if n := len(memosWith(t, "#e2ewrites-half")); n != 0 {
		t.Errorf("%d memos made, want 0", n)
	}
	// Memos failing a comment half-way (as v0.30 does when the comment's
	// attachment fails): the comment made as a memo of its own, PUBLIC,
	// and a 500. The proxy plays it with the comment's own id and text.
	parent := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "commented on #e2ewrites"}}), "name")
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || !strings.HasSuffix(r.URL.Path, "/comments") {
			proxy.pass.ServeHTTP(w, r)
			return
		}
		var comment map[string]any
		json.NewDecoder(r.Body).Decode(&comment)
		made, _ := json.Marshal(map[string]any{"content": comment["content"], "visibility": "PUBLIC"})
		stray, _ := http.NewRequest("POST", memos.URL+"/api/v1/memos?memoId="+r.URL.Query().Get("commentId"), bytes.NewReader(made))
		stray.Header.Set("Content-Type", "application/json")
		if resp, err := bearer(memos.Token).Do(stray); err == nil {
			resp.Body.Close()
		}
		answer(500, "application/json", `{"code":13,"message":"failed to create memo"}`)(w, r)
	})
	msg := c.fails("memo_create_memo_comment", map[string]any{"memo": parent, "body": map[string]any{"content": "half a comment #e2ewrites-stray"}})
	proxy.set(nil)
	if !strings.Contains(msg, "which was deleted; nothing was written: trying again is safe") {
		t.Errorf("comment message %q", msg)
	}
	if n := len(memosWith(t, "#e2ewrites-stray")); n != 0 {
		t.Errorf("%d stray memos left, want 0", n)
	}
}

// A memo and a comment are created with attachments named by their name
// alone, as their input schemas ask: Memos links them.
func TestWriteCreateWithAttachments(t *testing.T) {
	c := newTools(t, memos.Token)
	upload := func(filename string) map[string]any {
		return map[string]any{"name": str(c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": filename, "type": "text/plain", "content": "aGVsbG8="}}), "name")}
	}
	a, b := upload("a.txt"), upload("b.txt")
	memo := c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "with a file #e2ewrites", "attachments": []any{a}}})
	comment := c.ok("memo_create_memo_comment", map[string]any{"memo": str(memo, "name"), "body": map[string]any{"content": "a comment with a file", "attachments": []any{b}}})
	for _, tc := range []struct {
		what, memo string
		want       map[string]any
	}{{"memo", str(memo, "name"), a}, {"comment", str(comment, "name"), b}} {
		list := c.ok("memo_list_memo_attachments", map[string]any{"memo": tc.memo})
		if count(list, "attachments") != 1 || str(list, "attachments.0.name") != tc.want["name"] {
			t.Errorf("the %s's attachments: %v, want %v", tc.what, list, tc.want["name"])
		}
	}
}

// memo_set_memo_attachments deletes no attachment untold: the memo's others
// are kept unless removeOthers, and an attachment of another memo is
// refused, not taken from it.
func TestWriteAttachmentsKept(t *testing.T) {
	c := newTools(t, memos.Token)
	upload := func(filename string) map[string]any {
		return c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": filename, "type": "text/plain", "content": "aGVsbG8="}})
	}
	name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "two files #e2ewrites"}}), "name")
	a, b := upload("a.txt"), upload("b.txt")
	link := func(at map[string]any) map[string]any { return map[string]any{"name": str(at, "name")} } // by name alone
	c.ok("memo_set_memo_attachments", map[string]any{"memo": name, "body": map[string]any{"attachments": []any{link(a)}}})
	set := c.ok("memo_set_memo_attachments", map[string]any{"memo": name, "body": map[string]any{"attachments": []any{link(b)}}})
	if count(set, "attachments") != 2 || count(set, "removed") != 0 {
		t.Errorf("after adding b: %v", set)
	}
	other := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "another #e2ewrites"}}), "name")
	if msg := c.fails("memo_set_memo_attachments", map[string]any{"memo": other, "body": map[string]any{"attachments": []any{link(a)}}}); !strings.Contains(msg, "belongs to "+name) {
		t.Errorf("taking another memo's attachment: %q", msg)
	}
	set = c.ok("memo_set_memo_attachments", map[string]any{"memo": name, "removeOthers": true, "body": map[string]any{"attachments": []any{link(b)}}})
	if count(set, "attachments") != 1 || str(set, "removed.0") != str(a, "name") {
		t.Errorf("with removeOthers: %v", set)
	}
	if m := rest(t, "GET", "/api/v1/"+name, nil); count(m, "attachments") != 1 {
		t.Errorf("the memo holds %d attachments, want 1", count(m, "attachments"))
	}
}

// Half a surrogate pair is refused with an error that names it, before
// anything is written; a whole pair is stored as sent.
func TestWriteLoneSurrogate(t *testing.T) {
	const tag = "#e2ewrites-surrogate"
	call := func(content string) string {
		_, body := rpcPost(t, worker.URL, "Bearer "+memos.Token, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memo_create_memo","arguments":{"body":{"content":"`+content+` `+tag+`"}}}}`)
		return body
	}
	if body := call(`half \ud800 a pair`); !strings.Contains(body, "lone surrogate") || !strings.Contains(body, `"isError":true`) {
		t.Errorf("lone surrogate: %s", body)
	}
	if body := call(`a whole pair \ud83d\ude00`); strings.Contains(body, `"isError":true`) {
		t.Errorf("a whole pair: %s", body)
	}
	if got := memosWith(t, tag); len(got) != 1 || !strings.Contains(got[0].(map[string]any)["content"].(string), "😀") {
		t.Errorf("memos made: %v", got)
	}
}

// A call over the body cap gets a JSON-RPC error to its own id, on 200 as
// the era's other errors (SDK clients then report it with the call, not as
// a broken transport), naming the size a file can have; whether the body
// declares its length or is streamed.
func TestWriteOverBodyCap(t *testing.T) {
	file := strings.Repeat("A", 2<<20) // base64 of 1.5 MB, over the 1 MB default
	body := `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"attachment_create_attachment","arguments":{"body":{"filename":"big.bin","type":"application/octet-stream","content":"` + file + `"}}}}`
	for _, declared := range []bool{true, false} {
		var in io.Reader = strings.NewReader(body)
		if !declared {
			in = io.MultiReader(in) // no length: sent chunked
		}
		req, _ := http.NewRequest("POST", worker.URL+"/mcp", in)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		req.Header.Set("Authorization", "Bearer "+memos.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(answer), `"id":77`) || !strings.Contains(string(answer), "a file sent in base64 can be about 784 KB") {
			t.Errorf("declared length %v: %d %s", declared, resp.StatusCode, answer)
		}
	}
}

// What held before the guards keeps holding: text comes back byte for byte,
// whatever it holds, through a create, a read and an edit, and so does a
// memo of 900 KB (with the instance's content limit raised for it).
func TestWriteTextKeptExactly(t *testing.T) {
	c := newTools(t, memos.Token)
	for _, text := range []string{
		"a NUL \x00 inside", "bidi \u202e reversed\u202c and \u200f marks", "\ufeffa BOM first", "a ZWJ family 👨\u200d👩\u200d👧",
		"a line\u2028separator", "a lone\rCR", "CRLF\r\nlines\r\n", "noncharacters \ufffe \uffff \U0010ffff",
	} {
		content := text + " #e2ewrites-text"
		name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": content}}), "name")
		if got := str(c.ok("memo_get_memo", map[string]any{"memo": name}), "content"); got != content {
			t.Errorf("read back %q, want %q", got, content)
		}
		if got := rest(t, "GET", "/api/v1/"+name, nil)["content"]; got != content {
			t.Errorf("stored %q, want %q", got, content)
		}
	}
	const setting = "/api/v1/instance/settings/MEMO_RELATED"
	limit := func(n int) {
		rest(t, "PATCH", setting+"?updateMask=content_length_limit", map[string]any{"name": "instance/settings/MEMO_RELATED", "memoRelatedSetting": map[string]any{"contentLengthLimit": n}})
	}
	was, _ := get(rest(t, "GET", setting, nil), "memoRelatedSetting.contentLengthLimit").(float64)
	limit(1 << 20)
	t.Cleanup(func() { limit(int(was)) })
	big := strings.Repeat("日本語のメモ、", 900_000/21) + " #e2ewrites-big"
	name := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": big}}), "name")
	if got := str(c.ok("memo_get_memo", map[string]any{"memo": name}), "content"); got != big {
		t.Errorf("a memo of %d bytes came back with %d", len(big), len(got))
	}
	edited := str(c.ok("memo_edit", map[string]any{"memo": name, "append": "one line more"}), "name")
	if got := rest(t, "GET", "/api/v1/"+edited, nil)["content"].(string); got != big+"\none line more" {
		t.Errorf("after an edit, %d bytes, want %d", len(got), len(big)+len("\none line more"))
	}
}

// A client of 2026-07-28 that declares elicitation is asked before a
// delete: the memo stays until the person says yes.
func TestWriteDeleteConfirmed(t *testing.T) {
	name := str(newTools(t, memos.Token).ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "asked about first #e2ewrites"}}), "name")
	call := func(responses string) map[string]any {
		body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memo_delete_memo","arguments":{"memo":"` + name + `"}` + responses +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		req, _ := http.NewRequest("POST", worker.URL+"/mcp", strings.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
			"Mcp-Method": "tools/call", "Mcp-Name": "memo_delete_memo", "Authorization": "Bearer " + memos.Token} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d: %v", resp.StatusCode, err)
		}
		return out
	}
	asked := call("")
	if str(asked, "result.resultType") != "input_required" || !strings.Contains(str(asked, "result.inputRequests.confirm.params.message"), "Delete "+name+`, "asked about first #e2ewrites" for good?`) {
		t.Errorf("first round: %v", asked)
	}
	rest(t, "GET", "/api/v1/"+name, nil) // still there
	if no := call(`,"inputResponses":{"confirm":{"action":"decline"}}`); get(no, "result.isError") != true {
		t.Errorf("declined: %v", no)
	}
	rest(t, "GET", "/api/v1/"+name, nil)
	if yes := call(`,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`); str(yes, "result.structuredContent.deleted.name") != name {
		t.Errorf("confirmed: %v", yes)
	}
	if n := len(memosWith(t, "asked about first #e2ewrites")); n != 0 {
		t.Errorf("%d memos left after the confirmed delete", n)
	}
}
