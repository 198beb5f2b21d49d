// The Worker's entry module. It starts the Go program once per isolate, on
// the first request, and hands every request to that same instance (the stock
// syumai/workers entry starts a new Go instance per request). Requests and
// responses cross the boundary as a few plain values: method, URL, headers as
// one string, body bytes. `make build` copies this file to build/worker.mjs next
// to the runtime assets of workers-assets-gen (wasm_exec.js, runtime.mjs).
import "./wasm_exec.js";
import { loadModule } from "./runtime.mjs";

// goExports resolves to the Go side's { handle, fetched } once it is ready.
let goExports;
// settleOnExit holds the reject functions of requests the Go side owes an answer.
const settleOnExit = new Set();

function startGo(env) {
  const started = performance.now();
  return loadModule().then(
    (mod) =>
      new Promise((resolve, reject) => {
        const go = new Go();
        const instance = new WebAssembly.Instance(mod, go.importObject);
        const context = {
          env,
          startupMs: 0,
          ready(exports) {
            context.startupMs = performance.now() - started;
            resolve(exports);
          },
          fetch: (...args) => upstreamFetch(env, ...args),
          abortFetch: (id) => fetchAborts.get(id)?.abort(),
          // The linear memory only grows; its size is the isolate's share
          // of memory taken by Go, reported in /healthz.
          memoryBytes: () => instance.exports.mem.buffer.byteLength,
        };
        go.run(instance, context).finally(() => {
          // The Go program ended (it never should): fail what it owed and let
          // the next request start a fresh instance.
          goExports = undefined;
          reject(new Error("Go program exited before it was ready"));
          for (const fail of settleOnExit) fail(new Error("Go program exited"));
          settleOnExit.clear();
        });
      }),
  );
}

function headersToString(headers) {
  let s = "";
  for (const [name, value] of headers) s += `${name}:${value}\n`;
  return s;
}

function headersFromString(s) {
  const headers = new Headers();
  for (const line of s.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i), line.slice(i + 1));
  }
  return headers;
}

// readCapped reads a body stream into one Uint8Array, or returns null as soon
// as it grows past max bytes (max 0 means no cap).
async function readCapped(stream, max) {
  if (stream === null) return new Uint8Array(0);
  const chunks = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (max > 0 && size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

// fetchAborts holds an AbortController per upstream request under way, by
// the Go side's id, so that Go can stop one it no longer waits for.
const fetchAborts = new Map();

// upstreamFetch runs one upstream request for the Go side and reports the
// outcome through its fetched callback: (id, status, headers, body, failure, tooLarge).
async function upstreamFetch(env, id, binding, method, url, headers, body, timeoutMs, maxBytes) {
  const exports = await goExports;
  const abort = new AbortController();
  fetchAborts.set(id, abort);
  try {
    const target = binding ? env[binding] : globalThis;
    const resp = await target.fetch(url, {
      method,
      headers: headersFromString(headers),
      body: body.byteLength > 0 ? body : undefined,
      redirect: "manual",
      signal: timeoutMs > 0 ? AbortSignal.any([abort.signal, AbortSignal.timeout(timeoutMs)]) : abort.signal,
    });
    const bytes = await readCapped(resp.body, maxBytes);
    if (bytes === null) {
      exports.fetched(id, 0, "", null, "", true);
    } else {
      exports.fetched(id, resp.status, headersToString(resp.headers), bytes, "", false);
    }
  } catch (err) {
    exports.fetched(id, 0, "", null, `${err.name}: ${err.message}`, false);
  } finally {
    fetchAborts.delete(id);
  }
}

// readBody reads a request body up to max bytes, or returns null without
// reading further when it is longer: a body is never read whole before the
// Go side has checked anything.
async function readBody(request, max) {
  if (request.body === null) return new Uint8Array(0);
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    // The runtime holds a body to its declared length, so a declared one
    // within the cap is read whole, the fastest way.
    return Number(declared) > max ? null : new Uint8Array(await request.arrayBuffer());
  }
  return readCapped(request.body, max);
}

const noBody = new Set([101, 204, 205, 304]);

export default {
  async fetch(request, env) {
    goExports ??= startGo(env);
    const exports = await goExports;
    const body = await readBody(request, exports.maxBodyBytes);
    return new Promise((resolve, reject) => {
      settleOnExit.add(reject);
      const respond = (status, headers, out) => {
        settleOnExit.delete(reject);
        if (request.signal?.aborted) return; // nobody waits for it
        resolve(new Response(noBody.has(status) ? null : out, { status, headers: headersFromString(headers) }));
      };
      const id = exports.handle(request.method, request.url, headersToString(request.headers), body, body === null, respond);
      // With the enable_request_signal compatibility flag, the runtime
      // aborts the signal when the client goes away: the Go side then
      // stops the work it does for it, upstream requests included.
      request.signal?.addEventListener("abort", () => exports.cancel(id), { once: true });
    });
  },
};
