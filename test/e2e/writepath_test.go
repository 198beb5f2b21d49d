//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The write path held to what a hostile review found (issue "One write
// path"): a second user, a taken id, another memo's file, a comment's
// visibility, LOCKDOWN, and answers lost after Memos applied a write. A
// Memos of its own, so that the second user shows up in no other test.
func TestWritePathSecondUser(t *testing.T) {
	m, bob := memosWithBob(t)
	open := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": m.URL}})
	locked := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": m.URL, "LOCKDOWN": "true"}})
	alice := toolsAt(t, open.URL, m.Token) // the admin
	bobs := toolsAt(t, open.URL, bob.Token)
	// still reads a memo over Memos' own API, as the admin: whether it is
	// there, and what it holds.
	still := func(name string) map[string]any {
		t.Helper()
		var out map[string]any
		if status := restAt(t, m.URL, m.Token, "GET", "/api/v1/"+name, nil, &out); status != 200 {
			return nil
		}
		return out
	}
	upload := func(c *tools, filename string) string {
		return str(c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": filename, "type": "text/plain", "content": base64.StdEncoding.EncodeToString([]byte("secret " + filename))}}), "name")
	}

	const hidden = "Bob's plan \u202eterces\u202c"
	bobMemo := bobs.createMemo(hidden, "PUBLIC")
	bobID := strings.TrimPrefix(bobMemo, "memos/")

	t.Run("a comment under another memo's id", func(t *testing.T) {
		parent := alice.createMemo("a memo to comment on #e2epath", "PUBLIC")
		msg := alice.fails("memo_create_memo_comment", map[string]any{"memo": parent, "commentId": bobID, "body": map[string]any{"content": "my comment"}})
		if !strings.Contains(msg, "is taken") || !strings.Contains(msg, "nothing was written") || strings.Contains(msg, "terces") {
			t.Errorf("message %q", msg)
		}
		if memo := still(bobMemo); memo == nil || memo["content"] != hidden {
			t.Errorf("bob's memo after the call: %v", memo)
		}
	})

	t.Run("a taken id is not handed over", func(t *testing.T) {
		msg := alice.fails("memo_create_memo", map[string]any{"memoId": bobID, "body": map[string]any{"content": "alice's own text"}})
		if !strings.Contains(msg, "is taken") || strings.Contains(msg, "terces") || strings.Contains(msg, "Bob's plan") {
			t.Errorf("bob's id: %q", msg)
		}
		own := alice.createMemo("alice's first text #e2epath", "PRIVATE")
		msg = alice.fails("memo_create_memo", map[string]any{"memoId": strings.TrimPrefix(own, "memos/"), "body": map[string]any{"content": "other text"}})
		if !strings.Contains(msg, "is taken") {
			t.Errorf("her own memo's id, other text: %q", msg)
		}
		// The same id with the same text is an earlier try's memo.
		same := alice.ok("memo_create_memo", map[string]any{"memoId": strings.TrimPrefix(own, "memos/"), "body": map[string]any{"content": "alice's first text #e2epath"}})
		if str(same, "name") != own || !strings.Contains(str(same, "note"), "existed already") {
			t.Errorf("the same call again: %v", same)
		}
	})

	t.Run("an update takes only its declared fields", func(t *testing.T) {
		file := upload(alice, "kept.txt")
		memo := str(alice.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "with a file #e2epath", "attachments": []any{map[string]any{"name": file}}}}), "name")
		msg := alice.fails("memo_update_memo", map[string]any{"memo": memo, "body": map[string]any{"pinned": true, "attachments": []any{}, "relations": []any{}}})
		if !strings.Contains(msg, `unknown argument "body.attachments"`) || !strings.Contains(msg, "nothing was written") {
			t.Errorf("message %q", msg)
		}
		if got := still(memo); count(got, "attachments") != 1 || get(got, "pinned") == true {
			t.Errorf("the memo after the refused update: %v", got)
		}
	})

	t.Run("another memo's file is not taken", func(t *testing.T) {
		file := upload(alice, "private.txt")
		private := str(alice.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "private with a file #e2epath", "visibility": "PRIVATE", "attachments": []any{map[string]any{"name": file}}}}), "name")
		fileURL := m.URL + "/file/" + file + "/private.txt"
		before := statusOf(t, fileURL)
		msg := alice.fails("memo_create_memo", map[string]any{"body": map[string]any{"content": "public #e2epath", "visibility": "PUBLIC", "attachments": []any{map[string]any{"name": file}}}})
		if !strings.Contains(msg, "belongs to "+private) || !strings.Contains(msg, "nothing was written") {
			t.Errorf("create: %q", msg)
		}
		parent := alice.createMemo("a public memo #e2epath", "PUBLIC")
		msg = alice.fails("memo_create_memo_comment", map[string]any{"memo": parent, "body": map[string]any{"content": "a comment", "attachments": []any{map[string]any{"name": file}}}})
		if !strings.Contains(msg, "belongs to "+private) {
			t.Errorf("comment: %q", msg)
		}
		var meta map[string]any
		restAt(t, m.URL, m.Token, "GET", "/api/v1/"+file, nil, &meta)
		if str(meta, "memo") != private {
			t.Errorf("the file belongs to %q, want %s", str(meta, "memo"), private)
		}
		if after := statusOf(t, fileURL); after != before || after == 200 {
			t.Errorf("an anonymous download of the private file: %d before, %d after", before, after)
		}
		if msg := alice.fails("memo_create_memo", map[string]any{"body": map[string]any{"content": "with a missing file #e2epath-missing", "attachments": []any{map[string]any{"name": "attachments/nosuchfile"}}}}); !strings.Contains(msg, "does not exist") {
			t.Errorf("a missing file: %q", msg)
		}
		var list map[string]any
		restAt(t, m.URL, m.Token, "GET", "/api/v1/memos?filter="+url.QueryEscape(`content.contains("#e2epath-missing")`), nil, &list)
		if n := count(list, "memos"); n != 0 {
			t.Errorf("%d memos made with a missing file, want 0", n)
		}
	})

	t.Run("a comment's visibility is its memo's", func(t *testing.T) {
		parent := alice.createMemo("a public memo to comment on #e2epath", "PUBLIC")
		msg := alice.fails("memo_create_memo_comment", map[string]any{"memo": parent, "body": map[string]any{"content": "meant private", "visibility": "PRIVATE"}})
		if !strings.Contains(msg, "takes the visibility of its memo") || !strings.Contains(msg, "is PUBLIC, not PRIVATE") || !strings.Contains(msg, "nothing was written") {
			t.Errorf("create: %q", msg)
		}
		comment := str(alice.ok("memo_create_memo_comment", map[string]any{"memo": parent, "body": map[string]any{"content": "a comment"}}), "name")
		msg = alice.fails("memo_update_memo", map[string]any{"memo": comment, "body": map[string]any{"visibility": "PRIVATE"}})
		if !strings.Contains(msg, "did not apply all of it") || !strings.Contains(msg, `visibility "PUBLIC"`) {
			t.Errorf("update: %q", msg)
		}
	})

	t.Run("a delete that finds nothing says so", func(t *testing.T) {
		if msg := alice.fails("memo_delete_memo", map[string]any{"memo": "nosuchmemo"}); !strings.Contains(msg, "there is no memo memos/nosuchmemo") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("another user's text is marked", func(t *testing.T) {
		msg := alice.fails("memo_update_memo", map[string]any{"memo": bobMemo, "body": map[string]any{"content": "overwritten"}})
		if !strings.Contains(msg, "(written by "+bob.Name+", not you)\nBob's plan terces") || strings.Contains(msg, "\u202e") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("lockdown", func(t *testing.T) {
		c := toolsAt(t, locked.URL, m.Token)
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{"memo_update_memo", map[string]any{"memo": bobMemo, "body": map[string]any{"pinned": true}}},
			{"memo_update_memo", map[string]any{"memo": bobMemo, "body": map[string]any{"content": "x"}}},
			{"memo_edit", map[string]any{"memo": bobMemo, "append": "x"}},
			{"memo_delete_memo", map[string]any{"memo": bobMemo}},
			{"memo_create_memo", map[string]any{"memoId": bobID, "body": map[string]any{"content": "x"}}},
		} {
			msg := c.fails(tc.tool, tc.args)
			if strings.Contains(msg, "terces") || strings.Contains(msg, "Bob's plan") || !strings.Contains(msg, "nothing was written") {
				t.Errorf("%s under LOCKDOWN: %q", tc.tool, msg)
			}
		}
		if memo := still(bobMemo); memo == nil || memo["content"] != hidden || memo["pinned"] == true {
			t.Errorf("bob's memo after the calls under LOCKDOWN: %v", memo)
		}
	})
}

// Answers lost after Memos applied a write are settled by reading back:
// the attachments set (and those removed), a relation, a reaction, an
// attachment deleted; and a delete Memos answered as done but did not
// apply is not reported done.
func TestWritePathLostAnswers(t *testing.T) {
	proxy, c := writesGateway(t)
	upload := func(filename string) string {
		return str(c.ok("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": filename, "type": "text/plain", "content": "aGVsbG8="}}), "name")
	}
	for _, tc := range lostAnswers {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			a, b := upload("a.txt"), upload("b.txt")
			memo := str(c.ok("memo_create_memo", map[string]any{"body": map[string]any{"content": "lost answers #e2epath", "attachments": []any{map[string]any{"name": a}}}}), "name")
			proxy.set(loseAnswer(proxy, "PATCH", tc.lose, &hits))
			set := c.ok("memo_set_memo_attachments", map[string]any{"memo": memo, "removeOthers": true, "body": map[string]any{"attachments": []any{map[string]any{"name": b}}}})
			proxy.set(nil)
			if hits.Load() != 1 || str(set, "removed.0") != a || str(set, "attachments.0") != b || !strings.Contains(str(set, "note"), "answer was lost") {
				t.Errorf("attachments: %d lost answers, %v", hits.Load(), set)
			}

			other := c.createMemo("related #e2epath", "PRIVATE")
			proxy.set(loseAnswer(proxy, "PATCH", tc.lose, &hits))
			rel := c.ok("memo_set_memo_relations", map[string]any{"memo": memo, "body": map[string]any{"relations": []any{map[string]any{"memo": map[string]any{"name": memo}, "relatedMemo": map[string]any{"name": other}, "type": "REFERENCE"}}}})
			proxy.set(nil)
			if get(rel, "ok") != true {
				t.Errorf("relations: %v", rel)
			}

			proxy.set(loseAnswer(proxy, "POST", tc.lose, &hits))
			reaction := map[string]any{"reactionType": "👍"}
			if reactionTakesContentID(t) { // v0.30's reactions name their memo again
				reaction["contentId"] = memo
			}
			re := c.ok(curated(t, "MemoService_UpsertMemoReaction").Name, map[string]any{"memo": memo, "body": map[string]any{"reaction": reaction}})
			proxy.set(nil)
			if str(re, "reactionType") != "👍" || !strings.HasPrefix(str(re, "name"), memo+"/reactions/") {
				t.Errorf("reaction: %v", re)
			}

			loose := upload("c.txt")
			proxy.set(loseAnswer(proxy, "DELETE", tc.lose, &hits))
			del := c.ok("attachment_delete_attachment", map[string]any{"attachment": loose})
			proxy.set(nil)
			if get(del, "ok") != true {
				t.Errorf("attachment delete: %v", del)
			}
			if msg := c.fails("attachment_delete_attachment", map[string]any{"attachment": loose}); !strings.Contains(msg, "there is no attachment") {
				t.Errorf("attachment delete again: %q", msg)
			}
		})
	}
	// Memos (or something before it) answers a delete as done without
	// applying it: the memo is still there, and the call says so.
	memo := c.createMemo("not deleted #e2epath", "PRIVATE")
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "DELETE" {
			answer(200, "application/json", "{}")(w, r)
			return
		}
		proxy.pass.ServeHTTP(w, r)
	})
	msg := c.fails("memo_delete_memo", map[string]any{"memo": memo})
	proxy.set(nil)
	if !strings.Contains(msg, "still there") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("a delete not applied: %q", msg)
	}
}

// statusOf is the status of an anonymous GET of u.
func statusOf(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// restAt calls a Memos at base over its own API with token, decodes a JSON
// answer into out, and returns the status.
func restAt(t *testing.T, base, token, method, path string, body any, out any) int {
	t.Helper()
	status, raw := restRaw(t, base, token, method, path, body)
	if out != nil {
		json.Unmarshal(raw, out)
	}
	return status
}

// restRaw calls a Memos at base over its own API with token, body as
// JSON, and returns the status and the answer's body.
func restRaw(t *testing.T, base, token, method, path string, body any) (int, []byte) {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, in)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := bearer(token).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// Parallel writes of one memo, as a model's client sends them, through one
// Worker and through two (isolates of their own that share the memo
// locks): each runs on what the one before wrote. Appends all land, two
// updates from one read cannot both pass, and two attachment sets keep
// both files.
func TestWritePathParallel(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{Twin: true, Vars: map[string]string{"MEMOS_URL": memos.URL}})
	bases := []string{gw.URL, gw.TwinURL}
	clients := make([]*tools, 16)
	for i := range clients {
		clients[i] = toolsAt(t, bases[i%2], memos.Token)
	}
	memo := clients[0].createMemo("parallel appends #e2epath", "PRIVATE")
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { c.ok("memo_edit", map[string]any{"memo": memo, "append": "line " + strconv.Itoa(i)}) })
	}
	wg.Wait()
	content := memoContent(t, memo)
	for i := range clients {
		if !strings.Contains(content, "\nline "+strconv.Itoa(i)) {
			t.Errorf("line %d is lost: %q", i, content)
		}
	}

	// Two updates made from the same read: one passes, the other is
	// refused as a conflict, through the same Worker or two.
	for n, pair := range [][2]*tools{{clients[0], clients[2]}, {clients[0], clients[1]}} {
		hash := str(pair[0].ok("memo_get_memo", map[string]any{"memo": memo}), "contentHash")
		var passed, conflicts atomic.Int32
		for i, c := range pair {
			wg.Go(func() {
				res := c.call("memo_update_memo", map[string]any{"memo": memo, "contentHash": hash, "body": map[string]any{"content": "rewritten in round " + strconv.Itoa(n) + " by " + strconv.Itoa(i) + " #e2epath"}})
				switch text := res.Content[0].(*mcp.TextContent).Text; {
				case !res.IsError:
					passed.Add(1)
				case strings.Contains(text, "conflict:"):
					conflicts.Add(1)
				default:
					t.Errorf("update %d: %s", i, text)
				}
			})
		}
		wg.Wait()
		if passed.Load() != 1 || conflicts.Load() != 1 {
			t.Errorf("two updates from one read: %d passed, %d conflicts", passed.Load(), conflicts.Load())
		}
	}

	// Two attachment sets at once, each adding a file: both files stay.
	files := make([]string, 2)
	for i := range files {
		files[i] = str(clients[0].ok("attachment_create_attachment", map[string]any{"body": map[string]any{"filename": "f" + strconv.Itoa(i) + ".txt", "type": "text/plain", "content": "aGVsbG8="}}), "name")
	}
	for i := range files {
		wg.Go(func() {
			clients[i].ok("memo_set_memo_attachments", map[string]any{"memo": memo, "body": map[string]any{"attachments": []any{map[string]any{"name": files[i]}}}})
		})
	}
	wg.Wait()
	if got := rest(t, "GET", "/api/v1/"+memo, nil); count(got, "attachments") != 2 {
		t.Errorf("the memo holds %d attachments after two parallel sets, want 2", count(got, "attachments"))
	}
}

// The small untruths a review found: a second identical comment says that
// nothing new was made and how to make one; a task done already is not
// confused with a longer open one; an append made again (its answer lost
// to a client that gave up) is not added twice, and made again on purpose
// it is; a refusal for length says nothing was written.
func TestWritePathSaysWhatHappened(t *testing.T) {
	c := newTools(t, memos.Token)
	memo := c.createMemo("shopping #e2epath\n- [x] buy milk\n- [ ] buy milk and eggs", "PRIVATE")
	first := c.ok("memo_create_memo_comment", map[string]any{"memo": memo, "body": map[string]any{"content": "same words"}})
	again := c.ok("memo_create_memo_comment", map[string]any{"memo": memo, "body": map[string]any{"content": "same words"}})
	if str(again, "name") != str(first, "name") || !strings.Contains(str(again, "note"), "nothing new was created") || !strings.Contains(str(again, "note"), "give a commentId of your own") {
		t.Errorf("the same comment again: %v", again)
	}
	if msg := c.fails("memo_edit", map[string]any{"memo": memo, "check": "buy milk"}); !strings.Contains(msg, `the task "buy milk" of `+memo+` is already checked`) {
		t.Errorf("check of a task done already: %q", msg)
	}
	if got := memoContent(t, memo); strings.Contains(got, "[x] buy milk and eggs") {
		t.Errorf("the longer task was ticked: %q", got)
	}
	c.ok("memo_edit", map[string]any{"memo": memo, "append": "- [ ] bread"})
	same := c.ok("memo_edit", map[string]any{"memo": memo, "append": "- [ ] bread"})
	if n := strings.Count(memoContent(t, memo), "bread"); n != 1 || !strings.Contains(str(same, "note"), "nothing new was written") {
		t.Errorf("the same append again: %d lines, %v", n, same)
	}
	c.ok("memo_edit", map[string]any{"memo": memo, "append": "- [ ] bread", "contentHash": str(same, "contentHash")})
	if n := strings.Count(memoContent(t, memo), "bread"); n != 2 {
		t.Errorf("the append made again on purpose: %d lines", n)
	}
	long := strings.Repeat("x", 9000) // over Memos' default limit of 8 KiB
	if msg := c.fails("memo_create_memo", map[string]any{"body": map[string]any{"content": long}}); !strings.HasSuffix(msg, "nothing was written: trying again is safe") {
		t.Errorf("too long: %q", msg)
	}
}
