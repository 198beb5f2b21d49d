// Row 6 of `make bench`: the Go CPU cost of one request inside wasm, with no
// time spent waiting for Memos. It loads build/wasm_exec.js and build/app.wasm
// as the Worker's entry module (internal/bridge/worker.mjs) does, hands the
// Go program the same kind of context, and answers every upstream fetch with
// a canned memo on the next microtask. Then it sends each request many times
// in a row and divides the process CPU time by the count.
//
// Usage: node wasmcpu.mjs BUILD_DIR MEMO_JSON_FILE ITERATIONS
// The result is one line on stdout, "BENCH " followed by JSON. The Go
// program's own log lines also go to stdout (wasm_exec.js prints them with
// console.log), hence the prefix.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [buildDir, memoFile, iterationsArg] = process.argv.slice(2);
const iterations = Number(iterationsArg);
const warmup = Math.max(200, iterations / 5);

await import(pathToFileURL(resolve(buildDir, "wasm_exec.js")).href);
const wasm = readFileSync(resolve(buildDir, "app.wasm"));
const memo = new Uint8Array(readFileSync(memoFile));
const memoName = JSON.parse(new TextDecoder().decode(memo)).name;

// Start the Go program: compile, then instantiate and run it until it calls
// ready, which is what the entry module's startupMs covers.
const compileStart = performance.now();
const mod = new WebAssembly.Module(wasm);
const compileMs = performance.now() - compileStart;

const upstreamURLs = new Set();
const goStart = performance.now();
const go = new Go();
const instance = new WebAssembly.Instance(mod, go.importObject);
const exports = await new Promise((ready) => {
  const context = {
    env: { MEMOS_URL: "http://127.0.0.1:5230" },
    startupMs: 0,
    ready,
    fetch(id, binding, method, url) {
      upstreamURLs.add(`${method} ${url}`);
      queueMicrotask(() => exports.fetched(id, 200, "content-type:application/json\n", memo, "", false));
    },
    memoryBytes: () => instance.exports.mem.buffer.byteLength,
  };
  go.run(instance, context);
});
const startMs = performance.now() - goStart;

// One respond callback for every request, as in the entry module.
let answered;
const respond = (status, headers, body) => answered({ status, body });
const url = "http://127.0.0.1:8787/mcp";
const headers =
  "content-type:application/json\naccept:application/json, text/event-stream\n" +
  "mcp-protocol-version:2025-06-18\nauthorization:Bearer memos_pat_bench\n";
const encoder = new TextEncoder();

function send(body) {
  return new Promise((resolve) => {
    answered = resolve;
    exports.handle("POST", url, headers, body, false, respond);
  });
}

// The same requests as BenchmarkHandler in handler_test.go.
const requests = {
  initialize: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
  tools_list: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
  tools_call: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memo_get_memo","arguments":{"memo":${JSON.stringify(memoName)}}}}`,
};

const result = { compileMs, startMs, iterations, methods: {} };
for (const [name, text] of Object.entries(requests)) {
  const body = encoder.encode(text);
  const first = await send(body);
  const answer = JSON.parse(new TextDecoder().decode(first.body));
  if (first.status !== 200 || answer.error) {
    throw new Error(`${name}: ${first.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
  for (let i = 0; i < warmup; i++) await send(body);
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < iterations; i++) await send(body);
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  result.methods[name] = {
    cpuUs: (cpu.user + cpu.system) / iterations,
    wallUs: (wallMs * 1000) / iterations,
    isError: answer.result?.isError === true,
    structured: answer.result?.structuredContent !== undefined,
  };
}
result.upstream = [...upstreamURLs];
result.memoryBytes = instance.exports.mem.buffer.byteLength;
console.log("BENCH " + JSON.stringify(result));
// The Go program never exits (it serves forever); neither would this.
process.exit(0);
