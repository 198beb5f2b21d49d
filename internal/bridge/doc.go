// Package bridge connects the gateway to the runtime it runs in. In the
// Worker (js/wasm) it holds every use of syscall/js: it hands the entry module
// (worker.mjs) one handler for all requests of the isolate, reads Worker
// variables, and sends upstream requests through the runtime's fetch. Its
// native twin serves the same handler with net/http.
package bridge
