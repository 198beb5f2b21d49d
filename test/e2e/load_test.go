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
	"os"
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

// soakRequests is how many requests TestSoak sends: SOAK_REQUESTS, or a
// number that keeps `make test` short (`make soak` sends 20,000).
func soakRequests(t *testing.T) int {
	t.Helper()
	v := os.Getenv("SOAK_REQUESTS")
	if v == "" {
		return 2000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		t.Fatalf("SOAK_REQUESTS=%q: want a number from 1 to 1000000", v)
	}
	return n
}

// soakCase is one kind of request of the soak and the check of its answer.
type soakCase struct {
	kind  string
	body  func(id int) []byte
	check func(id, status int, answer []byte) error
}

func soakCases(memoA, memoB, contentA, contentB, tag string) []soakCase {
	message := func(id int, method, params string) []byte {
		if params == "" {
			return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"}`)
		}
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`)
	}
	rpcResult := func(id, status int, answer []byte) (gjson.Result, error) {
		a := gjson.ParseBytes(answer)
		if status != 200 || a.Get("id").Raw != strconv.Itoa(id) || !a.Get("result").Exists() {
			return a, fmt.Errorf("status %d, want a result for id %d: %.300s", status, id, answer)
		}
		return a.Get("result"), nil
	}
	getMemo := func(name, content string) soakCase {
		return soakCase{"memo_get_memo",
			func(id int) []byte { return toolCall(id, "memo_get_memo", map[string]any{"memo": name}) },
			func(id, status int, answer []byte) error {
				m, err := toolResult(id, status, answer)
				if err == nil && (m.Get("name").Str != name || m.Get("content").Str != content) {
					err = fmt.Errorf("got memo %s %q", m.Get("name").Str, m.Get("content").Str)
				}
				return err
			}}
	}
	toolError := func(kind, tool string, args map[string]any, want string) soakCase {
		return soakCase{kind,
			func(id int) []byte { return toolCall(id, tool, args) },
			func(id, status int, answer []byte) error {
				res, err := rpcResult(id, status, answer)
				if err == nil && (!res.Get("isError").Bool() || res.Get("content.0.text").Str != want) {
					err = fmt.Errorf("want the tool error %q: %.300s", want, answer)
				}
				return err
			}}
	}
	rpcError := func(kind string, body []byte, wantStatus, wantCode int) soakCase {
		return soakCase{kind,
			func(int) []byte { return body },
			func(_, status int, answer []byte) error {
				if status != wantStatus || gjson.GetBytes(answer, "error.code").Int() != int64(wantCode) {
					return fmt.Errorf("status %d, want %d with error %d: %.300s", status, wantStatus, wantCode, answer)
				}
				return nil
			}}
	}
	return []soakCase{
		{"tools/list",
			func(id int) []byte { return message(id, "tools/list", "") },
			func(id, status int, answer []byte) error {
				res, err := rpcResult(id, status, answer)
				if err == nil && len(res.Get("tools").Array()) != 20 {
					err = fmt.Errorf("tools/list with %d tools", len(res.Get("tools").Array()))
				}
				return err
			}},
		getMemo(memoA, contentA),
		{"memo_list_memos",
			func(id int) []byte {
				return toolCall(id, "memo_list_memos", map[string]any{"filter": `"` + tag + `" in tags`, "pageSize": 2})
			},
			func(id, status int, answer []byte) error {
				res, err := toolResult(id, status, answer)
				if err == nil && len(res.Get("memos").Array()) != 2 {
					err = fmt.Errorf("list gave %d memos, want 2", len(res.Get("memos").Array()))
				}
				return err
			}},
		{"auth_get_current_user",
			func(id int) []byte { return toolCall(id, "auth_get_current_user", map[string]any{}) },
			func(id, status int, answer []byte) error {
				res, err := toolResult(id, status, answer)
				if err == nil && res.Get("user.name").Str != "users/"+memos.Username {
					err = fmt.Errorf("current user %q", res.Get("user.name").Str)
				}
				return err
			}},
		{"initialize",
			func(id int) []byte {
				return message(id, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}`)
			},
			func(id, status int, answer []byte) error {
				res, err := rpcResult(id, status, answer)
				if err == nil && (res.Get("protocolVersion").Str != "2025-11-25" || res.Get("serverInfo.name").Str != "memos-mcp-edge") {
					err = fmt.Errorf("initialize: %.300s", answer)
				}
				return err
			}},
		{"ping",
			func(id int) []byte { return message(id, "ping", "") },
			func(id, status int, answer []byte) error {
				res, err := rpcResult(id, status, answer)
				if err == nil && res.Raw != "{}" {
					err = fmt.Errorf("ping: %.300s", answer)
				}
				return err
			}},
		getMemo(memoB, contentB),
		toolError("invalid argument", "memo_list_memos", map[string]any{"pageSize": "ten"}, `argument "pageSize" must be integer`),
		toolError("unknown memo", "memo_get_memo", map[string]any{"memo": "memos/doesnotexist"}, "404 Not Found: memo not found"),
		rpcError("unknown method", []byte(`{"jsonrpc":"2.0","id":1,"method":"foo/bar"}`), 200, -32601),
		rpcError("malformed JSON", []byte(`{"jsonrpc":"2.0","id":1,"method":`), 400, -32700),
	}
}

// memoryOf reads the memory figures of /healthz, when it reports them.
func memoryOf(t *testing.T, client *http.Client) (mem gjson.Result, requests int64, id string) {
	t.Helper()
	resp, err := client.Get(worker.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	h := gjson.ParseBytes(body)
	return h.Get("instance.memory"), h.Get("instance.requests").Int(), h.Get("instance.id").Str
}

// A long run of mixed requests, good and bad, through a few keep-alive
// clients: every answer is right, one Go instance serves them all, and its
// memory stays bounded.
func TestSoak(t *testing.T) {
	n := soakRequests(t)
	const clients, warmUp = 4, 200
	seed := newTools(t, memos.Token)
	tag := "e2esoak" + strconv.FormatInt(time.Now().UnixNano(), 36)
	contentA, contentB := "soak memo A #"+tag, "soak memo B #"+tag
	memoA, memoB := seed.createMemo(contentA, "PRIVATE"), seed.createMemo(contentB, "PROTECTED")
	cases := soakCases(memoA, memoB, contentA, contentB, tag)

	// run sends count requests, case i%len(cases) as request i, from the
	// given number of clients, and returns the failures by kind.
	run := func(count int, deadline time.Time) (map[string]int, []string, *rpc) {
		r := newRPC(clients)
		var next atomic.Int64
		var mu sync.Mutex
		failures := map[string]int{}
		var samples []string
		simultaneously(clients, func(int) error {
			for {
				i := int(next.Add(1)) - 1
				if i >= count || time.Now().After(deadline) {
					return nil
				}
				c := cases[i%len(cases)]
				id := 10_000 + i
				status, answer, err := r.post(c.body(id))
				if err == nil {
					err = c.check(id, status, answer)
				}
				if err != nil {
					mu.Lock()
					failures[c.kind]++
					if len(samples) < 10 {
						samples = append(samples, fmt.Sprintf("request %d (%s): %v", i, c.kind, err))
					}
					mu.Unlock()
				}
			}
		})
		if sent := int(min(next.Load(), int64(count))); sent < count {
			failures["not sent before the deadline"] = count - sent
		}
		return failures, samples, r
	}

	h := &http.Client{}
	started := time.Now()
	if failures, samples, _ := run(warmUp, started.Add(2*time.Minute)); len(failures) > 0 {
		t.Fatalf("warm-up failures %v:\n%s", failures, strings.Join(samples, "\n"))
	}
	warmMem, warmRequests, id := memoryOf(t, h)
	soakStart := time.Now()
	failures, samples, r := run(n, soakStart.Add(10*time.Minute))
	elapsed := time.Since(soakStart)
	endMem, endRequests, endID := memoryOf(t, h)

	if len(failures) > 0 {
		t.Errorf("%d kinds of request failed %v; the first failures:\n%s", len(failures), failures, strings.Join(samples, "\n"))
	}
	if endID != id {
		t.Errorf("the Go instance changed from %s to %s", id, endID)
	}
	if got := endRequests - warmRequests; got != int64(n)+1 {
		t.Errorf("the instance counted %d requests between the health checks, want %d", got, n+1)
	}
	t.Logf("%d requests (%d kinds) from %d clients over %d connections in %s (%.0f/s), one Go instance (%s, %d requests in all)",
		n, len(cases), clients, r.dials.Load(), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), endID, endRequests)

	if !warmMem.Exists() {
		t.Logf("/healthz reports no memory figures yet: memory not checked")
		return
	}
	t.Logf("memory after the warm-up: %s", warmMem.Raw)
	t.Logf("memory after the soak:    %s", endMem.Raw)
	// Generous bounds, as GC timing moves the figures: half as much again
	// plus 8 MiB. The linear memory only grows; leaking a kilobyte a request
	// would pass the bound within the 20,000 requests of `make soak`.
	for _, field := range []string{"wasmBytes", "heapSys"} {
		before, after := warmMem.Get(field), endMem.Get(field)
		if !before.Exists() {
			t.Logf("no %s figure: not checked", field)
			continue
		}
		if limit := before.Int()*3/2 + 8<<20; after.Int() > limit {
			t.Errorf("%s grew from %d to %d bytes over %d requests (bound %d)", field, before.Int(), after.Int(), n, limit)
		}
	}
}
