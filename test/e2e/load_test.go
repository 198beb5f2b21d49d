//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// rpc posts raw JSON-RPC messages to the shared Worker at one protocol
// version, so that each answer can be matched to its request by id.
type rpc struct {
	client *http.Client
	dials  *atomic.Int64 // connections opened
}

// newRPC returns a keep-alive client for up to conns parallel connections,
// counting the connections it opens.
func newRPC(conns int) *rpc {
	r := &rpc{dials: new(atomic.Int64)}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	r.client = &http.Client{Timeout: time.Minute, Transport: tokenScan(&http.Transport{
		MaxIdleConnsPerHost: conns,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			r.dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
	})}
	return r
}

// post sends body and returns the status and the whole answer.
func (r *rpc) post(body []byte) (int, []byte, error) {
	req, err := http.NewRequest("POST", worker.URL+"/mcp", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+memos.Token)
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp.StatusCode, answer, err
}

// toolCall is the JSON-RPC message of a tools/call.
func toolCall(id int, name string, args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	return b
}

// result checks that answer is the successful tools/call result of request
// id and returns its structured content.
func toolResult(id int, status int, answer []byte) (gjson.Result, error) {
	a := gjson.ParseBytes(answer)
	switch {
	case status != 200:
		return a, fmt.Errorf("status %d: %.300s", status, answer)
	case a.Get("id").Int() != int64(id) || a.Get("id").Raw != strconv.Itoa(id):
		return a, fmt.Errorf("answer has id %s, want %d", a.Get("id").Raw, id)
	case a.Get("result.isError").Bool() || !a.Get("result.structuredContent").IsObject():
		return a, fmt.Errorf("not a successful result: %.300s", answer)
	}
	return a.Get("result.structuredContent"), nil
}

// simultaneously runs f(0) … f(n-1) in n goroutines released together, and
// returns their errors.
func simultaneously(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			errs[i] = f(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return errs
}

func reportErrors(t *testing.T, phase string, errs []error) {
	t.Helper()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s, request %d: %v", phase, i, err)
		}
	}
}

// 64 simultaneous tool calls on one isolate, three times over: creating 64
// memos, reading them mixed with lists and the current user, deleting them.
// Every answer belongs to its own request.
func TestConcurrentToolCalls(t *testing.T) {
	const n = 64
	r := newRPC(n)
	h := &http.Client{}
	before := getHealth(t, h, worker.URL)
	tag := "e2econcurrent" + strconv.FormatInt(time.Now().UnixNano(), 36)
	content := func(i int) string { return fmt.Sprintf("concurrent memo %02d #%s", i, tag) }
	filter := `"` + tag + `" in tags`

	names := make([]string, n)
	reportErrors(t, "create", simultaneously(n, func(i int) error {
		id := 1000 + i
		status, answer, err := r.post(toolCall(id, "memo_create_memo", map[string]any{"body": map[string]any{"content": content(i), "visibility": "PRIVATE"}}))
		if err != nil {
			return err
		}
		m, err := toolResult(id, status, answer)
		if err != nil {
			return err
		}
		if got := m.Get("content").Str; got != content(i) {
			return fmt.Errorf("created memo has content %q, want %q", got, content(i))
		}
		names[i] = m.Get("name").Str
		return nil
	}))
	if t.Failed() {
		t.FailNow()
	}

	kinds := map[string]int{}
	var mu sync.Mutex
	reportErrors(t, "read", simultaneously(n, func(i int) error {
		id := 2000 + i
		var kind string
		var body []byte
		switch i % 8 {
		case 3:
			kind = "memo_list_memos"
			body = toolCall(id, kind, map[string]any{"filter": filter, "pageSize": 1 + i%7})
		case 7:
			kind = "auth_get_current_user"
			body = toolCall(id, kind, map[string]any{})
		default:
			kind = "memo_get_memo"
			arg := names[i]
			if i%2 == 0 {
				arg = strings.TrimPrefix(arg, "memos/")
			}
			body = toolCall(id, kind, map[string]any{"memo": arg})
		}
		mu.Lock()
		kinds[kind]++
		mu.Unlock()
		status, answer, err := r.post(body)
		if err != nil {
			return err
		}
		res, err := toolResult(id, status, answer)
		if err != nil {
			return err
		}
		switch kind {
		case "memo_list_memos":
			list := res.Get("memos").Array()
			if len(list) != 1+i%7 {
				return fmt.Errorf("list with pageSize %d gave %d memos", 1+i%7, len(list))
			}
			for _, m := range list {
				if !strings.HasSuffix(m.Get("content").Str, " #"+tag) {
					return fmt.Errorf("list gave a memo without the tag: %s", m.Get("name").Str)
				}
			}
		case "auth_get_current_user":
			if got := res.Get("user.name").Str; got != "users/"+memos.Username {
				return fmt.Errorf("current user %q", got)
			}
		default:
			if res.Get("name").Str != names[i] || res.Get("content").Str != content(i) {
				return fmt.Errorf("got memo %s %q, want %s %q", res.Get("name").Str, res.Get("content").Str, names[i], content(i))
			}
		}
		return nil
	}))

	reportErrors(t, "delete", simultaneously(n, func(i int) error {
		id := 3000 + i
		status, answer, err := r.post(toolCall(id, "memo_delete_memo", map[string]any{"memo": names[i]}))
		if err != nil {
			return err
		}
		_, err = toolResult(id, status, answer)
		return err
	}))
	status, answer, err := r.post(toolCall(4000, "memo_list_memos", map[string]any{"filter": filter}))
	if res, lerr := toolResult(4000, status, answer); err != nil || lerr != nil || len(res.Get("memos").Array()) != 0 {
		t.Errorf("memos of this run left after the deletes: %v %v %.300s", err, lerr, answer)
	}

	after := getHealth(t, h, worker.URL)
	if after.Instance.ID != before.Instance.ID {
		t.Errorf("the Go instance changed from %s to %s", before.Instance.ID, after.Instance.ID)
	}
	if got, want := after.Instance.Requests-before.Instance.Requests, int64(3*n+2); got != want {
		t.Errorf("the instance counted %d requests between the health checks, want %d", got, want)
	}
	t.Logf("3 rounds of %d simultaneous tool calls (reads: %v) over %d connections, one Go instance (%s)", n, kinds, r.dials.Load(), after.Instance.ID)
}
