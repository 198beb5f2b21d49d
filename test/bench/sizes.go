package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// wasmSize is a wasm file's size as built and as gzip -9 compresses it.
type wasmSize struct{ raw, gzip int64 }

func sizeOf(path string) (wasmSize, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return wasmSize{}, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return wasmSize{raw: int64(len(b)), gzip: int64(buf.Len())}, nil
}

// emptyGoWorker builds test/bench/emptygo the way `make build` builds the
// gateway and makes it a Worker with the gateway's entry module and runtime
// files, in dir/emptygo.
func emptyGoWorker(root, dir, compat string) (workerDir, wasmSize, error) {
	out := filepath.Join(dir, "empty.wasm")
	cmd := exec.Command(goTool(), "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./test/bench/emptygo")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return workerDir{}, wasmSize{}, fmt.Errorf("build the empty Go program: %v\n%s", err, b)
	}
	cmd = exec.Command(goTool(), "run", "./internal/bridge/pack", out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return workerDir{}, wasmSize{}, fmt.Errorf("pack the empty Go program: %v\n%s", err, b)
	}
	size, err := sizeOf(out)
	if err != nil {
		return workerDir{}, size, err
	}
	files, err := workerFiles(filepath.Join(root, "build"))
	if err != nil {
		return workerDir{}, size, err
	}
	if files["app.wasm"], err = os.ReadFile(out); err != nil {
		return workerDir{}, size, err
	}
	w, err := writeWorker(dir, "emptygo", "worker.mjs", compat, files, "")
	return w, size, err
}

// startForwarder starts under workerd alone the Go forwarder: the empty
// Go program forwarding memo_get_memo to memosURL (FORWARD_URL), what any
// Go program pays through the bridge for a call. *empty is the empty Go
// program's Worker, built and bundled first when it is not yet.
func startForwarder(root, dir, compat string, empty *workerDir, memosURL string) (*worker, error) {
	if empty.main == "" {
		var err error
		if *empty, _, err = emptyGoWorker(root, dir, compat); err != nil {
			return nil, err
		}
		if _, _, err := dryRun(root, *empty); err != nil {
			return nil, err
		}
	}
	return empty.workerd(root, compat, map[string]string{"FORWARD_URL": memosURL})
}

// goTool is the go command the Makefile uses.
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

var uploadSize = regexp.MustCompile(`Total Upload: ([0-9.]+) ([KM]iB) / gzip: ([0-9.]+) ([KM]iB)`)

// dryRun runs `wrangler deploy --dry-run` for w and returns the upload size
// it reports, total and gzip, in bytes.
func dryRun(root string, w workerDir) (total, gz int64, err error) {
	node, args := harness.Wrangler(root)
	out := filepath.Join(filepath.Dir(w.config), "dry-run")
	cmd := exec.Command(node, append(args, "deploy", "--dry-run", "--config", w.config, "--outdir", out)...)
	cmd.Dir = filepath.Dir(w.config)
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "NO_COLOR=1")
	b, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("wrangler deploy --dry-run (%s): %v\n%s", w.name, err, b)
	}
	m := uploadSize.FindSubmatch(b)
	if m == nil {
		return 0, 0, fmt.Errorf("no upload size in the output of wrangler deploy --dry-run (%s):\n%s", w.name, b)
	}
	return bytesOf(m[1], m[2]), bytesOf(m[3], m[4]), nil
}

func bytesOf(num, unit []byte) int64 {
	v, _ := strconv.ParseFloat(string(num), 64)
	if string(unit) == "MiB" {
		return int64(v * (1 << 20))
	}
	return int64(v * (1 << 10))
}
