// Row 6 of `make bench`: the Go CPU cost of one request inside wasm, with no
// time spent waiting for Memos. It loads build/wasm_exec.js and build/app.wasm
// through the driver the Worker's entry module uses (internal/bridge/driver.mjs),
// and answers every upstream fetch with a canned memo on the next microtask. Then it sends each request many times
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
// As many warm-up requests as measured ones: V8 compiles wasm lazily and
// optimizes a function only after it has run for a while.
const warmup = iterations;

// The Go program's log lines (one access log line per request) are counted,
// not printed: printing is the host's work, not Go's, and Node's console is
// far slower than the Workers runtime's.
let logLines = 0;
console.log = () => logLines++;

const { startGo } = await import(pathToFileURL(resolve(buildDir, "driver.mjs")).href);
const wasm = readFileSync(resolve(buildDir, "app.wasm"));
const memo = new Uint8Array(readFileSync(memoFile));
const memoName = JSON.parse(new TextDecoder().decode(memo)).name;

// Start the Go program: compile, then instantiate and run it until it calls
// ready, which is what the entry module's startupMs covers.
const compileStart = performance.now();
const mod = new WebAssembly.Module(wasm);
const compileMs = performance.now() - compileStart;

// Every upstream request is answered with the memo, as a runtime's fetch
// would, a microtask later; the gateway's check of the caller's token (at
// most once per 5 seconds) with the memo's creator: the caller reads their
// own memo, as in row 4.
const upstreamURLs = new Set();
const user = new TextEncoder().encode(JSON.stringify({ user: { name: JSON.parse(new TextDecoder().decode(memo)).creator } }));
const fetcher = async (binding, url, init) => {
  upstreamURLs.add(`${init.method} ${url}`);
  const body = new URL(url).pathname === "/api/v1/auth/me" ? user : memo;
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
};
const goStart = performance.now();
const gateway = await startGo(mod, { MEMOS_URL: "http://127.0.0.1:5230" }, fetcher);
const startMs = performance.now() - goStart;

// Time spent inside Go: every call into the program's exports is timed (they
// return at once, so this is Go's own CPU time); the rest of the process CPU
// is the driver's JavaScript and Node's.
let inGoMs = 0;
const exports = gateway.exports;
gateway.exports = { mem: exports.mem };
for (const [name, f] of Object.entries(exports)) {
  if (typeof f !== "function") continue;
  gateway.exports[name] = (...args) => {
    const t = performance.now();
    try {
      return f(...args);
    } finally {
      inGoMs += performance.now() - t;
    }
  };
}

const url = "http://127.0.0.1:8787/mcp";
const headers = [
  ["content-type", "application/json"],
  ["accept", "application/json, text/event-stream"],
  ["mcp-protocol-version", "2025-06-18"],
  ["authorization", "Bearer memos_pat_bench"],
];
const encoder = new TextEncoder();
const send = (body) => gateway.serve("POST", url, headers, body, null);

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
  inGoMs = 0;
  for (let i = 0; i < iterations; i++) await send(body);
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  result.methods[name] = {
    cpuUs: (cpu.user + cpu.system) / iterations,
    inGoUs: (inGoMs * 1000) / iterations,
    wallUs: (wallMs * 1000) / iterations,
    isError: answer.result?.isError === true,
    structured: answer.result?.structuredContent !== undefined,
  };
}
result.upstream = [...upstreamURLs];
result.memoryBytes = exports.mem.buffer.byteLength;
result.logLines = logLines;
process.stdout.write("BENCH " + JSON.stringify(result) + "\n");
// The Go program never exits (it serves forever); neither would this.
process.exit(0);
