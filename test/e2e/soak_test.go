//go:build e2e

package e2e

import (
	"fmt"
	"io"
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

// soakSetting is the number the variable name sets for TestSoak, from 1 to
// most, or def when it is unset: SOAK_REQUESTS, how many requests it sends
// (a number that keeps `make test` short; `make soak` sends 20,000), and
// SOAK_CLIENTS, from how many clients at once (`make soak`: 32).
func soakSetting(t *testing.T, name string, def, most int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		t.Fatalf("%s=%q: want a number from 1 to %d", name, v, most)
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
				if err == nil && len(res.Get("tools").Array()) != len(registryNames()) {
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
	n, clients := soakSetting(t, "SOAK_REQUESTS", 2000, 1_000_000), soakSetting(t, "SOAK_CLIENTS", 4, 256)
	const warmUp = 200
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
