// Drives testdata/prog (built to BUILD_DIR/prog.wasm) through driver.mjs under
// Node, with an upstream that answers after random delays, and checks what
// comes back. driver_test.go runs it; it prints "ok <n> requests" or throws.
//
// Usage: node driver_test.mjs BUILD_DIR
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";

const buildDir = process.argv[2];
const { startGo, headersFromString, readBody } = await import(pathToFileURL(resolve(buildDir, "driver.mjs")).href);

// Header lines become fields of a plain object, whatever their names.
const fields = headersFromString("constructor:a\n__proto__:b\nx:1\nx:2\nno colon\n");
assert.deepEqual(Object.entries(fields), [["constructor", "a"], ["__proto__", "b"], ["x", "1, 2"]]);

// A body over the cap is null, or with keep its head: from a streamed body,
// or from one that declares a length of at most four times the cap.
const big = "x".repeat(5000);
const streamed = () => ({ headers: new Headers(), body: new Blob([big]).stream() });
const declared = () => ({ headers: new Headers({ "content-length": String(big.length) }), body: new Blob([big]).stream() });
assert.equal(await readBody(declared(), 4000), null);
assert.equal((await readBody(declared(), 4000, 10)).head.length, 10);
assert.equal(await readBody(declared(), 1000, 10), null);
assert.equal(new TextDecoder().decode((await readBody(streamed(), 4000, 10)).head), "xxxxxxxxxx");
assert.equal(await readBody(streamed(), 4000), null);

const logged = [];
console.log = (line) => logged.push(String(line));

// Request contexts, as workerd keeps them: every entry into JavaScript (a
// request arriving, a timer firing, an upstream answer, a client going
// away) runs in the context of one request, and so do the microtasks that
// follow it, however a promise was resolved. current is the context of the
// last entry. Each request checks that its answer is made, and each
// upstream request that it is sent, in the context of its own request: a
// Response made in another's fails in workerd.
let current = 0;
const timeout = globalThis.setTimeout;
globalThis.setTimeout = (f, ms, ...args) => {
  const context = current;
  return timeout(() => {
    current = context;
    f(...args);
  }, ms);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let nextId = 0;
// abort aborts the signal of request id, in its context.
const abort = (controller, id) => {
  current = id;
  controller.abort();
};
// inFlight counts upstream requests under way, by the request's path.
const inFlight = new Map();
const maxInFlight = new Map();
let aborted = 0;
let declaredRead = false;

async function upstream(binding, url, init) {
  const path = new URL(url).pathname.slice(1);
  const context = current;
  assert.equal(init.headers["x-req"], String(context), `upstream request of request ${init.headers["x-req"]} sent from request ${context}'s context`);
  assert.equal(binding, "");
  assert.equal(init.headers["x-from"], "go");
  assert.equal(init.redirect, "manual");
  inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
  maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, inFlight.get(path)));
  try {
    if (path === "never") {
      if (init.signal.aborted) {
        aborted++;
        throw init.signal.reason;
      }
      await new Promise((_, reject) =>
        init.signal.addEventListener("abort", () => {
          current = context;
          aborted++;
          reject(init.signal.reason);
        }),
      );
    }
    await sleep(Math.random() * 4);
    if (path === "declared") {
      // A declared length over the cap: refused without a byte read.
      const body = new ReadableStream({ pull: () => void (declaredRead = true) }, { highWaterMark: 0 });
      return new Response(body, { status: 200, headers: { "content-length": "2048" } });
    }
    const body = path === "large" ? "x".repeat(2048) : `body ${path}`;
    return new Response(body, { status: 200, headers: { "x-upstream": path } });
  } finally {
    inFlight.set(path, inFlight.get(path) - 1);
  }
}

// The wasm is packed (driver_test.go packs it): its data is in this custom
// section, and the program starts only if the driver restores it.
const mod = new WebAssembly.Module(readFileSync(resolve(buildDir, "prog.wasm")));
assert.equal(WebAssembly.Module.customSections(mod, "memos-mcp-edge.data").length, 1);
const gateway = await startGo(mod, {}, upstream);
assert.equal(gateway.maxBodyBytes, 64);
const decoder = new TextDecoder();
let served = 0;

async function get(path, init = {}) {
  const body = init.body === undefined ? new Uint8Array(0) : init.body;
  const id = init.id ?? ++nextId;
  const headers = [...(init.headers ?? []), ["x-req", String(id)]];
  current = id;
  const answer = await gateway.serve(init.method ?? "GET", `http://gw${path}`, headers, body, { signal: init.signal }, (status, headers, body) => {
    assert.equal(current, id, `the answer to request ${id} (${path}) made in request ${current}'s context`);
    return { status, headers, body: body.slice() };
  }, { early: init.early, waitUntil: init.waitUntil });
  served++;
  return { status: answer.status, headers: answer.headers, text: decoder.decode(answer.body) };
}

// A request and its answer cross whole.
let r = await get("/echo", { method: "POST", headers: [["x-test", "té"]], body: new TextEncoder().encode("{\"a\":1}") });
assert.deepEqual([r.status, r.text], [200, 'POST té {"a":1} false']);
assert.match(r.headers, /^x-lines:0$/m);
r = await get("/echo", { method: "POST", body: null });
assert.equal(r.text, "POST   true");

// A panic is a 500, and the same instance serves on.
r = await get("/panic");
assert.equal(r.status, 500);
assert.ok(logged.some((l) => l.includes("panic serving GET request: on purpose")), logged.join("\n"));
assert.equal((await get("/echo")).status, 200);

// Upstream requests one after another, and two at once from two goroutines
// of one request: the second starts before the first is answered.
r = await get("/sequence");
assert.equal(r.text, "200 0 body 0;200 1 body 1;200 2 body 2;");
r = await get("/parallel");
assert.equal(r.text, "200 a body a;200 b body b");
assert.equal(maxInFlight.get("a") + maxInFlight.get("b"), 2);

// An upstream request made before Go asked for it (the entry module's check
// of the caller at a cold start) stands in for Go's own request when it is
// exactly that request, and is left unused when it differs in anything.
const earlyFor = (id, from) => ({
  binding: "",
  url: "http://upstream/0",
  headers: { "x-from": from, "x-req": String(id) },
  timeoutMs: 0,
  response: Promise.resolve(new Response("early", { status: 200, headers: { "x-upstream": "made early" } })),
});
for (const [from, first] of [["go", "200 made early early"], ["js", "200 0 body 0"], ["go ", "200 0 body 0"]]) {
  const id = ++nextId;
  r = await get("/sequence", { id, early: [earlyFor(id, from)] });
  assert.equal(r.text, `${first};200 1 body 1;200 2 body 2;`, `early request from ${JSON.stringify(from)}`);
}

// An upstream request still under way when its request is answered is
// handed to waitUntil, which the runtime keeps the request's context alive
// for, and Go gets its outcome.
let kept;
r = await get("/behind", { waitUntil: (p) => (kept = p) });
assert.equal(r.status, 200);
assert.ok(kept instanceof Promise, "nothing handed to waitUntil");
await kept;
assert.equal((await get("/behind-result")).text, "body behind");

// An answer over the fetcher's MaxBytes is refused: a streamed one as soon
// as it passes the cap, a declared one before any of it is read.
r = await get("/large");
assert.equal(r.text, "error: response body too large; error: response body too large");
assert.equal(declaredRead, false);

// Time zones' offsets, which the driver reckons with Intl: Berlin before
// and after it changes to summer time, half hours, its local mean time in
// the year 50, and a zone Intl does not know. Go gets a number from it:
// 100 calls allocate nothing (a string would cost an allocation and a
// finalizer each).
r = await get("/zone");
assert.equal(r.text, "3600 true; 7200 true; -12600 true; 19800 true; 3208 true; 0 false; allocs 0");

// 64 requests at once, mixed, answered in whatever order the upstream
// finishes: each gets its own answer.
const kinds = ["/sequence", "/parallel", "/echo", "/locked"];
const want = {
  "/sequence": "200 0 body 0;200 1 body 1;200 2 body 2;",
  "/parallel": "200 a body a;200 b body b",
  "/echo": "GET   false",
  "/locked": "200 locked body locked",
};
for (let round = 0; round < 20; round++) {
  const paths = Array.from({ length: 64 }, (_, i) => kinds[(i + round) % kinds.length]);
  const answers = await Promise.all(paths.map((p) => get(p)));
  answers.forEach((a, i) => assert.deepEqual([a.status, a.text], [200, want[paths[i]]], paths[i]));
}
// Answers that wait in Go's memory: 64 requests answered at once by a 65th,
// whose caller at once makes Go collect garbage and grow its memory before
// the 64 are read out. Each is still whole. (A fetch under way meanwhile
// keeps the driver from polling.)
const letters = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-";
const holdOpen = new AbortController();
const heldId = ++nextId;
const held = get("/cancel", { signal: holdOpen.signal, id: heldId });
const waiting = [...letters].map((c) => get("/wait", { headers: [["x-fill", c]] }));
await sleep(10);
const opened = get("/open");
const collected = get("/garbage");
const bigs = await Promise.all(waiting);
bigs.forEach((a, i) => assert.ok(a.text.length === 300_000 && a.text === letters[i].repeat(300_000), `answer ${i}`));
await Promise.all([opened, collected]);
abort(holdOpen, heldId);
await held;
aborted--;

// Requests that wait for a lock held across another's fetch all got it.
assert.equal(maxInFlight.get("locked"), 1);

// A client that goes away: its upstream request is aborted, and its
// context is cancelled.
const gone = new AbortController();
const goneId = ++nextId;
const pending = get("/cancel", { signal: gone.signal, id: goneId });
await sleep(20);
abort(gone, goneId);
r = await pending;
assert.equal(aborted, 1);
assert.match(r.text, /^error: fetch: AbortError: .*; true$/);

// An upstream request that outlasts its timeout is aborted and fails as a
// timeout, while its request's context stays alive. (Node's abort timers
// do not keep it running: the sleep does.)
[r] = await Promise.all([get("/timeout"), sleep(100)]);
assert.equal(r.text, "true; false");
assert.equal(aborted, 2);

// A client gone before its request goes upstream: the driver reads the
// signal only then, and still cancels the request's context.
const early = new AbortController();
early.abort();
r = await get("/cancel", { signal: early.signal });
assert.equal(aborted, 3);
assert.match(r.text, /^error: fetch: AbortError: .*; true$/);

// Nothing is left behind: every request's goroutine is done.
assert.equal(gateway.requests.size, 0);
process.stdout.write(`ok ${served} requests\n`);
process.exit(0);
