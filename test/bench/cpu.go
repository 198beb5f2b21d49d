package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// wasmCPU is the outcome of wasmcpu.mjs: the Go program in wasm under Node,
// upstream answered at once.
type wasmCPU struct {
	CompileMs   float64              `json:"compileMs"`
	StartMs     float64              `json:"startMs"`
	Iterations  int                  `json:"iterations"`
	Methods     map[string]methodCPU `json:"methods"`
	Upstream    []string             `json:"upstream"`
	MemoryBytes int64                `json:"memoryBytes"`
}

type methodCPU struct {
	CPUUs      float64 `json:"cpuUs"`  // the whole process: Go, the driver and Node
	InGoUs     float64 `json:"inGoUs"` // inside the Go program's exports
	WallUs     float64 `json:"wallUs"`
	IsError    bool    `json:"isError"`
	Structured bool    `json:"structured"`
}

// cpuMethods are the request kinds of row 6, in the order they are shown.
var cpuMethods = []string{"initialize", "tools_list", "tools_call"}

// runWasmCPU runs wasmcpu.mjs with the pinned Node on the Worker files in
// workerFiles, answering upstream fetches with memoJSON.
func runWasmCPU(root, workerFiles string, memoJSON []byte, iterations int) (wasmCPU, error) {
	memoFile := filepath.Join(workerFiles, "memo.json")
	if err := os.WriteFile(memoFile, memoJSON, 0o644); err != nil {
		return wasmCPU{}, err
	}
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "node"),
		filepath.Join(root, "test", "bench", "wasmcpu.mjs"), workerFiles, memoFile, strconv.Itoa(iterations))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wasmCPU{}, fmt.Errorf("wasmcpu.mjs: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "BENCH "); ok {
			var r wasmCPU
			return r, json.Unmarshal([]byte(line), &r)
		}
	}
	return wasmCPU{}, fmt.Errorf("wasmcpu.mjs printed no result:\n%s", out)
}

// nativeBench is one line of `go test -bench` output.
type nativeBench struct {
	nsPerOp, bytesPerOp, allocsPerOp float64
}

var benchLine = regexp.MustCompile(`^BenchmarkHandler/(\w+)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op\s+([0-9.]+) B/op\s+([0-9.]+) allocs/op`)

// runNativeBench runs BenchmarkHandler (handler_test.go) natively.
func runNativeBench(root string) (map[string]nativeBench, error) {
	cmd := exec.Command(goTool(), "test", "-run", "^$", "-bench", "^BenchmarkHandler$", "-benchmem", "-benchtime", "1s", "-count", "1", "./test/bench/")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench: %v\n%s", err, out)
	}
	res := map[string]nativeBench{}
	for line := range strings.Lines(string(out)) {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		var b nativeBench
		b.nsPerOp, _ = strconv.ParseFloat(m[2], 64)
		b.bytesPerOp, _ = strconv.ParseFloat(m[3], 64)
		b.allocsPerOp, _ = strconv.ParseFloat(m[4], 64)
		res[m[1]] = b
	}
	for _, name := range cpuMethods {
		if _, ok := res[name]; !ok {
			return nil, fmt.Errorf("go test -bench: no result for %s:\n%s", name, out)
		}
	}
	return res, nil
}
