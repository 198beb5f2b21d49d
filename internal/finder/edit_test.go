package finder

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

const editPath = "/api/v1/memos/e"

// memo_edit applies each kind of change to the memo's current text and
// writes back the content alone; it refuses what it cannot apply exactly
// once, and reads the memo back when a write's outcome is unclear. It asks
// Memos at most memosRequests times.
func TestMemoEdit(t *testing.T) {
	// me is who the caller is, for the call's digest: the caller check
	// answers it in the Worker, without a request.
	read, me, write := editPath, "/api/v1/auth/me", "PATCH "+editPath+"?updateMask=content"
	for _, tc := range []struct {
		name    string
		content string
		args    map[string]any
		lost    *lostAnswer
		refuse  error
		after   string   // the content Memos holds afterwards
		was     string   // the result's old passage
		now     string   // and its new one
		asked   []string // nil: read and write
		fails   []string // all in the error, when it fails
	}{
		{name: "append", content: "a\nb", args: map[string]any{"append": "c"}, after: "a\nb\nc", now: "c"},
		{name: "append after a final line break", content: "a\n", args: map[string]any{"append": "c"}, after: "a\nc\n", now: "c"},
		{name: "append to CRLF lines", content: "a\r\nb", args: map[string]any{"append": "c\nd"}, after: "a\r\nb\r\nc\r\nd", now: "c\r\nd"},
		{name: "append to nothing", content: "", args: map[string]any{"append": "c"}, after: "c", now: "c"},
		{name: "prepend", content: "a\nb", args: map[string]any{"prepend": "top"}, after: "top\na\nb", now: "top"},
		{name: "prepend to CRLF lines", content: "a\r\n", args: map[string]any{"prepend": "top"}, after: "top\r\na\r\n", now: "top"},
		{name: "replace", content: "the cat sat", args: map[string]any{"replace": map[string]any{"old": "cat", "new": "dog"}}, after: "the dog sat", was: "cat", now: "dog"},
		{name: "replace with nothing", content: "keep drop", args: map[string]any{"replace": map[string]any{"old": " drop", "new": ""}}, after: "keep", was: " drop"},
		{name: "replace across CRLF lines", content: "one\r\ntwo\r\nthree", args: map[string]any{"replace": map[string]any{"old": "one\ntwo", "new": "1\n2"}},
			after: "1\r\n2\r\nthree", was: "one\r\ntwo", now: "1\r\n2"},
		{name: "a passage that is not there", content: "the dog sat", args: map[string]any{"replace": map[string]any{"old": "cat", "new": "dog"}},
			fails: []string{"replace.old does not occur in memos/e", memos.ContentHash("the dog sat"), "current text follows:\nthe dog sat"}, asked: []string{read, me}},
		{name: "a passage twice", content: "cat and cat", args: map[string]any{"replace": map[string]any{"old": "cat", "new": "dog"}},
			fails: []string{"occurs 2 times in memos/e", "quote more of the text around"}, asked: []string{read, me}},
		{name: "check", content: "- [ ] milk\n- [ ] eggs", args: map[string]any{"check": "eggs"}, after: "- [ ] milk\n- [x] eggs", was: "- [ ] eggs", now: "- [x] eggs"},
		{name: "uncheck an indented task", content: "list\n  * [X] done\n", args: map[string]any{"uncheck": "done"}, after: "list\n  * [ ] done\n", was: "  * [X] done", now: "  * [ ] done"},
		{name: "check by part of the text", content: "- [ ] buy milk and bread", args: map[string]any{"check": "milk"}, after: "- [x] buy milk and bread", was: "- [ ] buy milk and bread", now: "- [x] buy milk and bread"},
		{name: "check given the whole line", content: "+ [ ] eggs", args: map[string]any{"check": "+ [ ] eggs"}, after: "+ [x] eggs", was: "+ [ ] eggs", now: "+ [x] eggs"},
		{name: "the exact text before a part", content: "- [ ] oat milk\n- [ ] milk", args: map[string]any{"check": "milk"}, after: "- [ ] oat milk\n- [x] milk", was: "- [ ] milk", now: "- [x] milk"},
		{name: "the open one of two", content: "- [x] call Bo\n- [ ] call Bo", args: map[string]any{"check": "call Bo"}, after: "- [x] call Bo\n- [x] call Bo", was: "- [ ] call Bo", now: "- [x] call Bo"},
		{name: "check in CRLF lines", content: "- [ ] a\r\n- [ ] b\r\n", args: map[string]any{"check": "b"}, after: "- [ ] a\r\n- [x] b\r\n", was: "- [ ] b", now: "- [x] b"},
		{name: "a task in a code block is none", content: "```\n- [ ] x\n```\n- [ ] x", args: map[string]any{"check": "x"}, after: "```\n- [ ] x\n```\n- [x] x", was: "- [ ] x", now: "- [x] x"},
		{name: "a task twice", content: "- [ ] call\n- [ ] call", args: map[string]any{"check": "call"},
			fails: []string{`2 open tasks of memos/e read "call"`, "with replace"}, asked: []string{read, me}},
		{name: "a part of two tasks", content: "- [ ] oat milk\n- [ ] soy milk", args: map[string]any{"check": "milk"},
			fails: []string{`2 open tasks of memos/e contain "milk"`, "- [ ] oat milk\n- [ ] soy milk"}, asked: []string{read, me}},
		{name: "a task already checked", content: "- [x] milk", args: map[string]any{"check": "milk"}, fails: []string{`the task "milk" of memos/e is already checked`}, asked: []string{read, me}},
		{name: "a task already checked, a longer one open", content: "- [x] buy milk\n- [ ] buy milk and eggs", args: map[string]any{"check": "buy milk"},
			fails: []string{`the task "buy milk" of memos/e is already checked`, "nothing was written"}, asked: []string{read, me}},
		{name: "no such task", content: "- [ ] milk\n- [x] eggs", args: map[string]any{"check": "bread"},
			fails: []string{`no open task of memos/e reads or contains "bread". Its open tasks include:` + "\n- [ ] milk"}, asked: []string{read, me}},
		{name: "no task at all", content: "prose", args: map[string]any{"uncheck": "x"}, fails: []string{"memos/e has no checked task"}, asked: []string{read, me}},
		{name: "a task without text", content: "- [ ] a", args: map[string]any{"check": "- [ ] "}, fails: []string{"give the task's text"}, asked: []string{read, me}},
		{name: "no change", content: "a", args: map[string]any{}, fails: []string{"give exactly one change", "(0 given)"}, asked: []string{}},
		{name: "two changes", content: "a", args: map[string]any{"append": "b", "prepend": "c"}, fails: []string{"(2 given)"}, asked: []string{}},
		{name: "an empty append", content: "a", args: map[string]any{"append": " "}, fails: []string{"append must not be empty"}, asked: []string{}},
		{name: "the hash read", content: "a", args: map[string]any{"append": "b", "contentHash": memos.ContentHash("a")}, after: "a\nb", now: "b"},
		{name: "a stale hash", content: "a\nthe person's line", args: map[string]any{"append": "b", "contentHash": memos.ContentHash("a")},
			fails: []string{"conflict: memos/e has changed since it was read", memos.ContentHash("a\nthe person's line"), "current text follows:\na\nthe person's line"}, asked: []string{read}},
		{name: "a lost answer to a write made", content: "a", args: map[string]any{"append": "b"}, lost: &lostAnswer{applied: true},
			after: "a\nb", now: "b", asked: []string{read, me, write, read}},
		{name: "a lost answer to a write not made", content: "a", args: map[string]any{"append": "b"}, lost: &lostAnswer{},
			after: "a", fails: []string{"Memos did not answer in time; reading memos/e back shows the write was not applied", "trying again is safe"}, asked: []string{read, me, write, read}},
		{name: "a lost answer and no read-back", content: "a", args: map[string]any{"append": "b"}, lost: &lostAnswer{applied: true, gone: true},
			fails: []string{"Memos did not answer in time; it may have been written: read memos/e before trying again"}, asked: []string{read, me, write, read}},
		{name: "Memos refuses the write", content: "a", args: map[string]any{"append": "b"}, refuse: &memos.Error{Status: 400, Msg: "400 Bad Request: content too long"},
			after: "a", fails: []string{"400 Bad Request: content too long"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFake()
			m.answers[editPath] = `{"name":"memos/e","content":` + rawjson.Quote(tc.content) + `}`
			m.lost, m.refuse = tc.lost, tc.refuse
			args := map[string]any{"memo": "memos/e"}
			for k, v := range tc.args {
				args[k] = v
			}
			got, err, _ := call(&Finder{Locks: &lease.Memory{}}, "memo_edit", args, m)
			asked := tc.asked
			if asked == nil {
				asked = []string{read, me, write}
			}
			if strings.Join(m.asked, "\n") != strings.Join(asked, "\n") || len(m.asked) > memosRequests {
				t.Errorf("asked\n%s\nwant\n%s", strings.Join(m.asked, "\n"), strings.Join(asked, "\n"))
			}
			if held := rawjson.Parse(m.answers[editPath]).Get("content").Str; tc.after != "" && held != tc.after {
				t.Errorf("Memos holds %q, want %q", held, tc.after)
			}
			if tc.fails != nil {
				if err == nil {
					t.Fatalf("succeeded: %s", got)
				}
				for _, s := range tc.fails {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				if e, ok := memos.AsError(err); tc.refuse != nil && e != tc.refuse || tc.refuse == nil && tc.lost == nil && ok {
					t.Errorf("error %#v: Memos' own errors are kept inside, the tool's are plain", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := newObject()
			o.str("name", "memos/e")
			o.str("contentHash", memos.ContentHash(tc.after))
			for _, k := range changes {
				if _, ok := tc.args[k]; ok {
					o.str("change", k)
				}
			}
			o.str("old", tc.was)
			o.str("new", tc.now)
			undo := rawjson.ParseBytes(got).Get("structuredContent").Get("undo")
			if undo.Exists() {
				o.raw("undo", []byte(undo.Raw))
			}
			o.str("previousContent", tc.content)
			if want := string(structured(o.done(), nil)); string(got) != want {
				t.Errorf("result\n%s\nwant\n%s", got, want)
			}
			// undo reverts the change, when there is one to give.
			if !undo.Exists() {
				t.Fatal("no undo")
			}
			args = map[string]any{"memo": "e"}
			undo.ForEach(func(k, v rawjson.Value) bool {
				if v.IsObject() {
					args[k.Str] = map[string]any{"old": v.Get("old").Str, "new": v.Get("new").Str}
				} else {
					args[k.Str] = v.Str
				}
				return true
			})
			m.lost, m.refuse = nil, nil
			if _, err, _ := call(&Finder{Locks: &lease.Memory{}}, "memo_edit", args, m); err != nil {
				t.Fatalf("undo %s: %v", undo.Raw, err)
			}
			if held := rawjson.Parse(m.answers[editPath]).Get("content").Str; held != tc.content {
				t.Errorf("after undo %s, Memos holds %q, want %q", undo.Raw, held, tc.content)
			}
		})
	}
}

// syncMemos lets goroutines share a fakeMemos, and gives way between a read
// and what follows, as a request to Memos would.
type syncMemos struct {
	mu sync.Mutex
	f  *fakeMemos
}

func (s *syncMemos) Get(ctx context.Context, route, path string) ([]byte, error) {
	s.mu.Lock()
	body, err := s.f.Get(ctx, route, path)
	s.mu.Unlock()
	time.Sleep(time.Millisecond)
	return body, err
}

func (s *syncMemos) Patch(ctx context.Context, route, path string, body []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Patch(ctx, route, path, body)
}

func (s *syncMemos) File(context.Context, string, string) ([]byte, string, error) {
	return nil, "", errors.New("no files")
}

func (s *syncMemos) WebURL() string { return "" }

func (s *syncMemos) Others(ctx context.Context) (memos.Others, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Others(ctx)
}

// Concurrent edits of one memo each apply their change to what the one
// before wrote: 50 appends leave 50 lines.
func TestMemoEditConcurrent(t *testing.T) {
	m := &syncMemos{f: newFake()}
	m.f.answers[editPath] = `{"name":"memos/e","content":"start"}`
	var wg sync.WaitGroup
	f := &Finder{Locks: &lease.Memory{}}
	for i := range 50 {
		wg.Go(func() {
			if _, err, _ := call(f, "memo_edit", map[string]any{"memo": "e", "append": "line " + strconv.Itoa(i)}, m); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(rawjson.Parse(m.f.answers[editPath]).Get("content").Str, "\n")
	if len(lines) != 51 {
		t.Errorf("%d lines after 50 appends to one: %q", len(lines), lines)
	}
}

// The same edit made again, its first answer lost, is recognised by its
// digest (kept with the memo's lock) and not applied twice; made again on
// purpose, with the contentHash of the text it finds, it is.
func TestMemoEditRetried(t *testing.T) {
	m := newFake()
	m.answers[editPath] = `{"name":"memos/e","content":"list","creator":"users/alice"}`
	f := &Finder{Locks: &lease.Memory{}}
	append := map[string]any{"memo": "e", "append": "- milk"}
	if _, err, _ := call(f, "memo_edit", append, m); err != nil {
		t.Fatal(err)
	}
	got, err, _ := call(f, "memo_edit", append, m)
	content := rawjson.Parse(m.answers[editPath]).Get("content").Str
	if err != nil || content != "list\n- milk" || !strings.Contains(string(got), "nothing new was written") {
		t.Fatalf("the same call again: %q, %s, %v", content, got, err)
	}
	again := map[string]any{"memo": "e", "append": "- milk", "contentHash": memos.ContentHash(content)}
	if _, err, _ := call(f, "memo_edit", again, m); err != nil {
		t.Fatal(err)
	}
	if content := rawjson.Parse(m.answers[editPath]).Get("content").Str; content != "list\n- milk\n- milk" {
		t.Errorf("made again on purpose: %q", content)
	}
	// Another change, or the same one after the person changed the text,
	// is applied.
	m.answers[editPath] = `{"name":"memos/e","content":"list, rewritten","creator":"users/alice"}`
	if _, err, _ := call(f, "memo_edit", append, m); err != nil || rawjson.Parse(m.answers[editPath]).Get("content").Str != "list, rewritten\n- milk" {
		t.Errorf("after the person's change: %v, %q", err, rawjson.Parse(m.answers[editPath]).Get("content").Str)
	}
}

// An edit's result is bounded by the change, not by the memo: an append to
// a memo near Memos' default limit, and to a journal of 200 KB, answers
// in under 2 KB, with the undo that reverts it.
func TestMemoEditResultBounded(t *testing.T) {
	for _, size := range []int{7_900, 200_000} {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString("day " + strconv.Itoa(i) + ": the same kind of line, written again\n")
		}
		content := b.String()
		m := newFake()
		m.answers[editPath] = `{"name":"memos/e","content":` + rawjson.Quote(content) + `}`
		got, err, _ := call(&Finder{Locks: &lease.Memory{}}, "memo_edit", map[string]any{"memo": "e", "append": "one line more"}, m)
		if err != nil {
			t.Fatal(err)
		}
		undo := rawjson.ParseBytes(got).Get("structuredContent").Get("undo").Get("replace")
		if len(got) >= 2048 || undo.Get("old").Str != "one line more\n" || undo.Get("new").Str != "" {
			t.Errorf("%d bytes of memo: a result of %d bytes, undo %s", len(content), len(got), undo.Raw)
		}
	}
}
