//go:build js && wasm

package bridge

import (
	"io"
	"strings"
	"syscall/js"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// runtimeContext is the object the entry module passes to the Go program:
// env, ready, startupMs, memoryBytes, log, and zone and zoneOffset
// (zone_js.go). syumai/workers' wasm_exec.js exposes it as the global
// "context". Requests never go through it: they cross
// through the exported functions of exports_js.go.
var runtimeContext = js.Global().Get("context")

// Getenv returns the Worker variable or secret called name, or "" when it is
// unset or not a string.
func Getenv(name string) string {
	v := runtimeContext.Get("env").Get(name)
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

// HasBinding reports whether the Worker has a binding called name with a
// fetch method (a service binding or a Workers VPC service).
func HasBinding(name string) bool {
	if name == "" {
		return false
	}
	b := runtimeContext.Get("env").Get(name)
	return b.Type() == js.TypeObject && b.Get("fetch").Type() == js.TypeFunction
}

// HasObjects reports whether the Worker has a Durable Object namespace
// bound as name. A service binding answers any method name (it is an RPC
// stub), so it is told apart by its fetch, which a namespace lacks.
func HasObjects(name string) bool {
	b := runtimeContext.Get("env").Get(name)
	return b.Type() == js.TypeObject && b.Get("idFromName").Type() == js.TypeFunction && b.Get("fetch").Type() != js.TypeFunction
}

// Native is false: the gateway runs in a Worker.
const Native = false

// DefaultHosts returns nil: a deployed Worker serves whatever routes and
// domains it is bound to unless ALLOWED_HOSTS says otherwise.
func DefaultHosts() []string { return nil }

// StartupMillis returns how long the entry module took to instantiate this
// Go program and see it ready, as it measured.
func StartupMillis() float64 {
	v := runtimeContext.Get("startupMs")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Float()
}

// WasmMemoryBytes returns the size of the linear memory this Go program runs
// in, as the entry module reads it from the instance.
func WasmMemoryBytes() int64 {
	v := runtimeContext.Call("memoryBytes")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return int64(v.Float())
}

// consoleWriter writes each line it gets as one line of the runtime's
// console, which Workers Logs collect. Once the program serves, a line is an
// effect of the call into Go that wrote it (see exports_js.go); before, it
// goes through the entry module's log. Nothing may write to os.Stdout or
// os.Stderr: the js/wasm file-system shim answers a write through a
// callback, which Go must not wait for inside an exported function.
type consoleWriter struct{}

func (consoleWriter) Write(p []byte) (int, error) {
	line := strings.TrimSuffix(string(p), "\n")
	if handler != nil {
		events.log(line)
	} else {
		runtimeContext.Call("log", line)
	}
	return len(p), nil
}

// LogWriter returns where log lines go: the runtime's console.
func LogWriter() io.Writer { return consoleWriter{} }

// Serve makes h the handler of every request the entry module passes in,
// tells the entry module that the Go program is ready, and never returns:
// the program lives as long as the isolate and is entered only through its
// exported functions. The entry module reads at most maxBody bytes of a
// request body.
func Serve(h web.Handler, maxBody int) error {
	handler = h
	runtimeContext.Call("ready", maxBody)
	select {}
}
