// The Worker's entry module. It starts the Go program once per isolate, on
// the first request, and hands every request to that same instance through
// the driver (the stock syumai/workers entry starts a new Go instance per
// request). `make build` copies this file to build/worker.mjs next to
// driver.mjs and the runtime assets of workers-assets-gen (wasm_exec.js,
// runtime.mjs), grants.mjs, the Durable Object class of package grants, and
// lease.mjs, that of package lease.
import { startGo, headersFromString, readBody } from "./driver.mjs";
import { loadModule } from "./runtime.mjs";

export { GrantStore } from "./grants.mjs";
export { MemoLock } from "./lease.mjs";

// gateway resolves to the driver of the running Go program.
let gateway;

// upstream sends a request of the Go program: with the global fetch, the
// fetch of a service binding, or, for a binding named "objects:NAME", the
// fetch of the Durable Object of namespace NAME that the URL's path names.
// The binding "digest:SHA-256" is answered here with the SHA-256 of the
// body, from the runtime's Web Crypto (bridge.SHA256), and "cards:card"
// with the memo card (package cards), a text module of the bundle that is
// imported the first time it is asked for, not on a cold start.
function upstream(env, binding, url, init) {
  if (binding === digest) return crypto.subtle.digest("SHA-256", init.body ?? new Uint8Array(0)).then((sum) => new Response(sum));
  if (binding === card) return import("./card.html").then((m) => new Response(m.default));
  if (binding.startsWith(objects)) {
    const ns = env[binding.slice(objects.length)];
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    return ns.get(ns.idFromName(name)).fetch(url, init);
  }
  return (binding ? env[binding] : globalThis).fetch(url, init);
}

const objects = "objects:";
const digest = "digest:SHA-256";
const card = "cards:card";

function start(env) {
  const started = loadModule().then((mod) => startGo(mod, env, (binding, url, init) => upstream(env, binding, url, init)));
  // A program that exited is started afresh by the next request.
  started.catch(() => gateway === started && (gateway = undefined));
  return started;
}

const noBody = new Set([101, 204, 205, 304]);

// copied copies an answer's body out of Go's memory, where it stays valid
// only until the answer is made. A large one is copied in pieces and
// streamed, with its length: the runtime sends a single large buffer
// through a copy of its own into a fresh allocation, which cost a 3 MB
// answer about a quarter of the Worker's CPU (measured side by side).
const pieceBytes = 64 * 1024;
function copied(out) {
  if (out.length <= pieceBytes) return out; // the Response constructor copies it
  const { readable, writable } = new FixedLengthStream(out.length);
  const w = writable.getWriter();
  // Queued at once; a client that goes away fails them, which is no error.
  for (let i = 0; i < out.length; i += pieceBytes) w.write(out.slice(i, i + pieceBytes)).catch(() => {});
  w.close().catch(() => {});
  return readable;
}

export default {
  async fetch(request, env) {
    gateway ??= start(env);
    const g = await gateway;
    // A body over the cap is passed on as its head, for the id of the
    // request it carries (web.BodyHead bytes).
    const body = await readBody(request, g.maxBodyBytes, 1024);
    try {
      // With the enable_request_signal compatibility flag, the runtime
      // aborts request.signal when the client goes away: Go then stops
      // the work it does for it, upstream requests included.
      return await g.serve(request.method, request.url, request.headers, body, request, (status, headers, out) =>
        new Response(noBody.has(status) ? null : copied(out), { status, headers: headersFromString(headers) }),
      );
    } catch (err) {
      if (g.dead) gateway = undefined; // the next request starts a fresh instance
      throw err;
    }
  },
};
