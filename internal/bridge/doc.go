// Package bridge connects the gateway to the runtime it runs in. In the
// Worker (js/wasm) it holds every use of syscall/js and the exported functions
// the entry module calls: driver.mjs hands the Go program each request of the
// isolate, runs the upstream requests it asks for and returns its answers
// (exports_js.go tells how). It also reads Worker variables. Its native twin
// serves the same handler with net/http.
package bridge
