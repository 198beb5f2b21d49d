// The Worker's entry module. It starts the Go program once per isolate, on
// the first request, and hands every request to that same instance through
// the driver (the stock syumai/workers entry starts a new Go instance per
// request). `make build` copies this file to build/worker.mjs next to
// driver.mjs and the runtime assets of workers-assets-gen (wasm_exec.js,
// runtime.mjs), grants.mjs, the Durable Object class of package grants,
// lease.mjs, that of package lease, and routes_gen.mjs, the routes of
// Memos' API that the early requests ask (generated with package memos').
import { startGo, headersFromString, readBody } from "./driver.mjs";
import { routes } from "./routes_gen.mjs";
import { loadModule } from "./runtime.mjs";

export { GrantStore } from "./grants.mjs";
export { MemoLock } from "./lease.mjs";

// gateway resolves to the driver of the running Go program; running is
// that driver once it has.
let gateway;
let running;

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

// earlyCheck starts, for a request that reaches the isolate before the Go
// program is ready, the check of its caller that the program's first step
// will be (GET /api/v1/auth/me with the request's own bearer token: package
// caller), and the first request of its release check, so that they travel
// while the wasm instantiates. They are the requests the program would
// send, built from the same settings, and the driver hands the program an
// answer only when the program asks for exactly that request
// (Gateway.fetch); the others are aborted unused. So the program still
// decides on the answer, and nothing of the caller's but that question goes
// upstream before it has. They are made only where the settings leave no
// doubt: without OAuth (whose tokens are the gateway's own), with a valid
// MEMOS_URL or MEMOS_SERVICE, both or neither Access secrets, and a single
// bearer token. It returns the requests under way, or undefined.
function earlyCheck(request, env, send) {
  if (request.method !== "POST" || trimmed(env.OAUTH_SECRET) !== "") return undefined;
  const token = /^bearer +([^\s,]{1,4096})$/i.exec((request.headers.get("authorization") ?? "").trim())?.[1];
  if (token === undefined || new URL(request.url).pathname !== "/mcp") return undefined;
  const service = trimmed(env.MEMOS_SERVICE);
  if (service !== "" && typeof env[service]?.fetch !== "function") return undefined;
  const base = memosBase(trimmed(env.MEMOS_URL), trimmed(env.MEMOS_ALLOW_HTTP) === "true");
  const timeout = trimmed(env.UPSTREAM_TIMEOUT_MS);
  const timeoutMs = timeout === "" ? 15000 : /^[0-9]{1,9}$/.test(timeout) ? Number(timeout) : 0;
  const [id, secret] = [trimmed(env.CF_ACCESS_CLIENT_ID), trimmed(env.CF_ACCESS_CLIENT_SECRET)];
  if (base === undefined || (base === "" && service === "") || timeoutMs <= 0 || (id === "") !== (secret === "")) return undefined;
  const access = id === "" ? {} : { "cf-access-client-id": id, "cf-access-client-secret": secret };
  const get = (path, headers, timeoutMs) => {
    const early = { binding: service, url: `${base || "https://memos.invalid"}${path}`, headers, timeoutMs };
    const abort = new AbortController();
    early.response = send(env, service, early.url, {
      method: "GET",
      headers,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), abort.signal, request.signal].filter(Boolean)),
    });
    early.response.catch(() => {}); // an unused request's failure is nobody's
    early.abort = () => abort.abort();
    return early;
  };
  // With it goes the release check of a program that has not learnt the
  // instance's release (package memos, Probe): the instance's public
  // profile, without a token, within 5 seconds.
  return [
    get(routes.CurrentUser, { accept: "application/json", authorization: `Bearer ${token}`, ...access }, timeoutMs),
    get(routes.InstanceProfile, { accept: "application/json", ...access }, Math.min(timeoutMs, 5000)),
  ];
}

// memosBase returns MEMOS_URL as the program's configuration reads it
// (internal/config: an absolute http(s) URL without credentials, query or
// fragment, plain http only to a loopback host unless allowed, without a
// final slash), "" when unset, or undefined when the program would refuse
// it, or when it is one this reading cannot be sure of.
function memosBase(raw, allowHTTP) {
  if (raw === "") return "";
  if (/[?#@\s\\]/.test(raw) || !/^https?:\/\/[^/]/i.test(raw)) return undefined;
  let u;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  const loopback = u.hostname === "localhost" || u.hostname === "[::1]" || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(u.hostname);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && (allowHTTP || loopback))) return undefined;
  return u.origin + u.pathname.replace(/\/+$/, "");
}

// trimmed is a setting as the program reads it: a string, trimmed.
const trimmed = (v) => (typeof v === "string" ? v.trim() : "");

function start(env) {
  const started = loadModule().then((mod) => startGo(mod, env, (binding, url, init) => upstream(env, binding, url, init)));
  started.then(
    (g) => (running = g),
    // A program that exited is started afresh by the next request.
    () => gateway === started && (gateway = undefined),
  );
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
  async fetch(request, env, ctx) {
    // While the Go program starts, the check of the caller it will make
    // first is under way already (see earlyCheck).
    const early = running === undefined ? earlyCheck(request, env, upstream) : undefined;
    // The runtime sends them only while this request lets its event loop
    // run, and the start below runs for tens of milliseconds without
    // letting it. With each request to Memos held 20 ms (bench -cold
    // -delay), they left with the program's own requests, after the start,
    // unless the loop ran first: a timer of 0 ms was not enough, one of
    // 1 ms took 19 ms off the first answer (and 2 ms no more, but 1 ms
    // dearer on loopback).
    if (early) await new Promise((sent) => setTimeout(sent, 1));
    const mine = gateway === undefined;
    gateway ??= start(env);
    let g;
    try {
      // A start another request made may fail for that request's sake (its
      // client gone while it inflated the data image, say): then this
      // request starts the program itself, rather than take that failure.
      const starting = gateway;
      g = await starting.catch((err) => {
        if (mine) throw err;
        if (gateway === starting || gateway === undefined) gateway = start(env);
        return gateway;
      });
      // A body over the cap is passed on as its head, for the id of the
      // request it carries (web.BodyHead bytes).
      const body = await readBody(request, g.maxBodyBytes, 1024);
      // With the enable_request_signal compatibility flag, the runtime
      // aborts request.signal when the client goes away: Go then stops
      // the work it does for it, upstream requests included.
      return await g.serve(
        request.method,
        request.url,
        request.headers,
        body,
        request,
        (status, headers, out) => new Response(noBody.has(status) ? null : copied(out), { status, headers: headersFromString(headers) }),
        { early, waitUntil: ctx && ((done) => ctx.waitUntil(done)) },
      );
    } catch (err) {
      if (g?.dead) gateway = running = undefined; // the next request starts a fresh instance
      throw err;
    } finally {
      // Read whole if it was used; unused, it is not needed.
      for (const e of early ?? []) e.abort();
    }
  },
};
