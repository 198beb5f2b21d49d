//go:build e2e

package e2e

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// memoContent reads a memo's content straight from Memos.
func memoContent(t *testing.T, name string) string {
	t.Helper()
	return memoContentAt(t, memos, name)
}

// memoContentAt reads a memo's text straight from Memos m.
func memoContentAt(t *testing.T, m *harness.Memos, name string) string {
	t.Helper()
	return str(restOn(t, m, "GET", "/api/v1/"+name, nil), "content")
}

// The lost update of issue 28: the agent reads a memo, the person adds a
// line in the web app, then the agent appends through memo_edit: both
// lines are there. A contentHash from before the person's next edit is
// refused as a conflict that holds the current text.
func TestMemoEditKeepsThePersonsLine(t *testing.T) {
	c := newTools(t, memos.Token)
	name := c.createMemo("Shopping #e2eedit\n- [ ] milk", "PRIVATE")
	read := str(c.ok("memo_get_memo", map[string]any{"memo": name}), "content")
	rest(t, "PATCH", "/api/v1/"+name+"?updateMask=content", map[string]any{"content": read + "\n- [ ] eggs"})

	got := c.ok("memo_edit", map[string]any{"memo": name, "append": "- [ ] bread"})
	want := "Shopping #e2eedit\n- [ ] milk\n- [ ] eggs\n- [ ] bread"
	if content := memoContent(t, name); content != want {
		t.Errorf("content after the append %q, want %q", content, want)
	}
	if str(got, "name") != name || str(got, "change") != "append" || str(got, "new") != "- [ ] bread" || str(got, "previousContent") != read+"\n- [ ] eggs" {
		t.Errorf("append's result %v", got)
	}

	got = c.ok("memo_edit", map[string]any{"memo": strings.TrimPrefix(name, "memos/"), "check": "eggs", "contentHash": str(got, "contentHash")})
	want = "Shopping #e2eedit\n- [ ] milk\n- [x] eggs\n- [ ] bread"
	if content := memoContent(t, name); content != want || str(got, "old") != "- [ ] eggs" || str(got, "new") != "- [x] eggs" {
		t.Errorf("after the check: %q, result %v", content, got)
	}

	rest(t, "PATCH", "/api/v1/"+name+"?updateMask=content", map[string]any{"content": want + "\n- [ ] tea"})
	msg := c.fails("memo_edit", map[string]any{"memo": name, "prepend": "# Shop", "contentHash": str(got, "contentHash")})
	if !strings.Contains(msg, "conflict: "+name+" has changed since it was read") || !strings.HasSuffix(msg, "\n"+want+"\n- [ ] tea") {
		t.Errorf("a stale contentHash: %q", msg)
	}
	if content := memoContent(t, name); content != want+"\n- [ ] tea" {
		t.Errorf("content after a refused edit %q", content)
	}
}

// 50 concurrent appends to one memo through one gateway keep all 50 lines.
func TestMemoEditConcurrentAppends(t *testing.T) {
	c := newTools(t, memos.Token)
	name := c.createMemo("Log #e2eedit", "PRIVATE")
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			res, err := c.cs.CallTool(c.ctx, &mcp.CallToolParams{Name: "memo_edit", Arguments: map[string]any{"memo": name, "append": "entry " + strconv.Itoa(i)}})
			switch {
			case err != nil:
				errs <- err.Error()
			case res.IsError:
				errs <- res.Content[0].(*mcp.TextContent).Text
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("an append failed: %s", e)
	}
	lines := strings.Split(memoContent(t, name), "\n")
	seen := map[string]int{}
	for _, l := range lines[1:] {
		seen[l]++
	}
	for i := range n {
		if seen["entry "+strconv.Itoa(i)] != 1 {
			t.Errorf("entry %d is there %d times", i, seen["entry "+strconv.Itoa(i)])
		}
	}
	if len(lines) != n+1 {
		t.Errorf("%d lines after %d appends to one, want %d", len(lines), n, n+1)
	}
}

// A replace whose passage the person changed after the agent read it is
// refused, with the memo's current text, and changes nothing.
func TestMemoEditReplaceChangedPassage(t *testing.T) {
	c := newTools(t, memos.Token)
	name := c.createMemo("Dentist at 10:00 #e2eedit", "PRIVATE")
	rest(t, "PATCH", "/api/v1/"+name+"?updateMask=content", map[string]any{"content": "Dentist at 10:30 #e2eedit"})
	msg := c.fails("memo_edit", map[string]any{"memo": name, "replace": map[string]any{"old": "at 10:00", "new": "at 11:00"}})
	if !strings.Contains(msg, "replace.old does not occur in "+name) || !strings.HasSuffix(msg, "\nDentist at 10:30 #e2eedit") {
		t.Errorf("a changed passage: %q", msg)
	}
	if content := memoContent(t, name); content != "Dentist at 10:30 #e2eedit" {
		t.Errorf("content after a refused replace %q", content)
	}
	c.ok("memo_edit", map[string]any{"memo": name, "replace": map[string]any{"old": "at 10:30", "new": "at 11:00"}})
	if content := memoContent(t, name); content != "Dentist at 11:00 #e2eedit" {
		t.Errorf("content after the replace %q", content)
	}
}

// When the answer to memo_edit's write is lost, it reads the memo back:
// a write Memos applied is reported done (and made once), one that never
// reached Memos is reported not made, safe to retry. A call makes two
// requests to Memos, three with the read-back, whatever its arguments.
func TestMemoEditLostAnswer(t *testing.T) {
	proxy := startFaultProxy(t)
	gw := startGateway(t, harness.WorkerOptions{Vars: map[string]string{"MEMOS_URL": proxy.URL()}})
	c := toolsAt(t, gw.URL, memos.Token)
	name := c.createMemo("Lost answers #e2eedit", "PRIVATE")
	requests := func(want int, call func()) {
		t.Helper()
		before, _ := proxy.requests()
		call()
		if after, _ := proxy.requests(); after-before != want {
			t.Errorf("%d requests to Memos, want %d", after-before, want)
		}
	}
	requests(2, func() {
		msg := c.fails("memo_edit", map[string]any{"memo": name, "append": strings.Repeat("x", 100_000)})
		if !strings.HasPrefix(msg, "400 ") {
			t.Errorf("an append past Memos' content limit: %q", msg)
		}
	})

	// Memos applies the write; its answer never comes.
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PATCH" {
			proxy.pass.ServeHTTP(httptest.NewRecorder(), r)
			hangUp(w, r)
			return
		}
		proxy.pass.ServeHTTP(w, r)
	})
	var got map[string]any
	requests(3, func() { got = c.ok("memo_edit", map[string]any{"memo": name, "append": "applied"}) })
	if content := memoContent(t, name); content != "Lost answers #e2eedit\napplied" || str(got, "new") != "applied" {
		t.Errorf("after a lost answer to an applied write: %q, result %v", content, got)
	}

	// The write never reaches Memos.
	proxy.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PATCH" {
			hangUp(w, r)
			return
		}
		proxy.pass.ServeHTTP(w, r)
	})
	var msg string
	requests(3, func() { msg = c.fails("memo_edit", map[string]any{"memo": name, "append": "lost"}) })
	if !strings.Contains(msg, "reading "+name+" back shows the write was not applied") || !strings.Contains(msg, "nothing was written: trying again is safe") {
		t.Errorf("a write that never reached Memos: %q", msg)
	}
	if content := memoContent(t, name); content != "Lost answers #e2eedit\napplied" {
		t.Errorf("content after a write that never reached Memos %q", content)
	}
}
