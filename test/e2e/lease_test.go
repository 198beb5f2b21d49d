//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease/leasetest"
	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// The Durable Object that holds the memo locks keeps package lease's
// contract under wrangler, with SQLite storage; two Workers (two isolates)
// that reach the same objects take turns on one key; and a holder survives
// a restart of the runtime (every isolate and object started afresh on the
// same storage) until its lease lapses.
func TestMemoLockObject(t *testing.T) {
	locks := startLockWorkers(t)
	first := lease.Remote{Doer: objectDoer{base: locks.url, maxBytes: lease.MaxAnswerBytes}}
	second := lease.Remote{Doer: objectDoer{base: locks.url + "/b", maxBytes: lease.MaxAnswerBytes}}
	ctx := context.Background()

	leasetest.Check(t, first, "check/")

	t.Run("two Workers take turns on one key", func(t *testing.T) {
		held, err := first.Lock(ctx, "across/k", lease.MaxHold)
		if err != nil {
			t.Fatal(err)
		}
		leasetest.Busy(t, second, "across/k")
		held.Release("call", "made memos/1")
		next, err := second.Lock(ctx, "across/k", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if note, _ := next.Recent("call"); note != "made memos/1" {
			t.Errorf("the second Worker's lease sees note %q, want the first's", note)
		}
		next.Release("", "")

		leasetest.Exclusive(t, []lease.Locker{first, second}, "across/many")
	})

	t.Run("a holder outlives a restart", func(t *testing.T) {
		held, err := first.Lock(ctx, "restart/k", lease.MaxHold)
		if err != nil {
			t.Fatal(err)
		}
		locks.restart(t)
		leasetest.Busy(t, second, "restart/k")
		held.Release("", "")
		next, err := second.Lock(ctx, "restart/k", time.Second)
		if err != nil {
			t.Fatalf("Lock once the holder released after the restart: %v", err)
		}
		next.Release("", "")
	})

	// What it refuses to do, it refuses with 400, which Remote reads as
	// unavailable: never a turn.
	for _, body := range []string{
		`not json`, `{"op":"acquire","hold":0,"wait":0}`, `{"op":"acquire","hold":60001,"wait":0}`,
		`{"op":"acquire","hold":1000,"wait":15001}`, `{"op":"acquire","hold":"1000","wait":0}`,
		`{"op":"release"}`, `{"op":"release","token":"x","digest":"` + strings.Repeat("d", 65) + `","note":""}`,
		`{"op":"release","token":"x","digest":"d","note":"` + strings.Repeat("é", 129) + `"}`, `{"op":"drop"}`,
		`{"op":"leave"}`, `{"op":"leave","token":"not hex"}`, `{"op":"acquire","hold":1000,"wait":0,"token":"short"}`,
	} {
		resp, err := http.Post(locks.url+"/bad", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", body, resp.StatusCode)
		}
	}
}

// The gateway with its memo locks serves as before; without them it serves
// reads, and /healthz reports the writes refused, naming the binding.
func TestGatewayWithoutMemoLocks(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{NoGrants: true, Vars: map[string]string{"MEMOS_URL": memos.URL}})
	status, h := healthOf(t, gw.URL)
	errs, _ := h["errors"].([]any)
	if status != 503 || h["status"] != "degraded" || len(errs) != 1 || !strings.Contains(str(errs, "0"), "MEMO_LOCKS") {
		t.Errorf("/healthz without the binding: %d %v", status, h)
	}
	if status, _ := mcpStatus(t, gw.URL, memos.Token); status != 200 {
		t.Errorf("/mcp without the binding: %d, want 200", status)
	}
	if resp, err := http.Get(worker.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz of the gateway with the binding: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
}

// A gateway with a twin (harness.WorkerOptions.Twin) is two isolates that
// share the Durable Objects, as two of a deployment's do: both answer, each
// is its own Go instance, and the twin has the memo locks too (its
// /healthz reports no missing binding). TestMemoLockObject shows that a
// Worker binding another's class this way reaches the same objects.
func TestGatewayTwin(t *testing.T) {
	gw := startGateway(t, harness.WorkerOptions{Twin: true, Vars: map[string]string{"MEMOS_URL": memos.URL}})
	ids := map[string]bool{}
	for _, base := range []string{gw.URL, gw.TwinURL} {
		status, h := healthOf(t, base)
		if status != 200 || h["status"] != "ok" {
			t.Errorf("%s/healthz: %d %v", base, status, h)
		}
		ids[str(h, "instance.id")] = true
		if status, _ := mcpStatus(t, base, memos.Token); status != 200 {
			t.Errorf("%s/mcp: %d, want 200", base, status)
		}
	}
	if len(ids) != 2 {
		t.Errorf("the gateway and its twin are one Go instance: %v", ids)
	}
}

// lockWorkers is wrangler dev running the two lock Workers of
// testdata/lease-worker.mjs, on a port and a state folder that stay the
// same over restarts.
type lockWorkers struct {
	url, dir string
	port     int
	proc     *harness.Process
}

func startLockWorkers(t *testing.T) *lockWorkers {
	t.Helper()
	dir := t.TempDir()
	class, err := os.ReadFile(filepath.Join(root, "build", "lease.mjs"))
	if err != nil {
		t.Fatalf("%v (run make build first)", err)
	}
	front, err := os.ReadFile("testdata/lease-worker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "lease.mjs"), class, 0o644)
	os.WriteFile(filepath.Join(dir, "worker.mjs"), front, 0o644)
	// The second binds the class of the first: the same objects.
	os.WriteFile(filepath.Join(dir, "first.toml"), lockConfig("lease-test", `
[[migrations]]
tag = "locks-v1"
new_sqlite_classes = ["MemoLock"]

[[services]]
binding = "SECOND"
service = "lease-test-b"
`), 0o644)
	os.WriteFile(filepath.Join(dir, "second.toml"), lockConfig("lease-test-b", `script_name = "lease-test"
`), 0o644)
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	w := &lockWorkers{url: "http://127.0.0.1:" + strconv.Itoa(port), dir: dir, port: port}
	w.start(t)
	t.Cleanup(func() { w.proc.Stop() })
	return w
}

func (w *lockWorkers) start(t *testing.T) {
	t.Helper()
	inspector, _ := harness.FreePort()
	node, args := harness.Wrangler(root)
	args = append(args, "dev", "--config", filepath.Join(w.dir, "first.toml"), "--config", filepath.Join(w.dir, "second.toml"),
		"--ip", "127.0.0.1", "--port", strconv.Itoa(w.port), "--inspector-port", strconv.Itoa(inspector), "--persist-to", filepath.Join(w.dir, "state"))
	proc, err := harness.StartProcess(filepath.Join(w.dir, "wrangler.log"), node, root, []string{"WRANGLER_SEND_METRICS=false", "NO_COLOR=1"}, args...)
	if err != nil {
		t.Fatal(err)
	}
	w.proc = proc
	// Both Workers answer: a release of no turn is answered "not released".
	for _, path := range []string{"/ready", "/b/ready"} {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if resp, err := http.Post(w.url+path, "application/json", strings.NewReader(`{"op":"release","token":"none"}`)); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the lock Workers did not answer at %s:\n%s", path, proc.Log())
			}
		}
	}
}

// lockConfig is the wrangler configuration of a lock Worker named name,
// its Durable Object binding ending with more.
func lockConfig(name, more string) []byte {
	return []byte(`name = "` + name + `"
main = "worker.mjs"
compatibility_date = "2026-11-01"
compatibility_flags = ["enable_request_signal"]

[[durable_objects.bindings]]
name = "MEMO_LOCKS"
class_name = "MemoLock"
` + more)
}

// restart stops wrangler and workerd and starts them again on the same
// port and state.
func (w *lockWorkers) restart(t *testing.T) {
	t.Helper()
	w.proc.Stop()
	w.start(t)
}
