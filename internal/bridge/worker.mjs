// The Worker's entry module. It starts the Go program once per isolate, on
// the first request, and hands every request to that same instance through
// the driver (the stock syumai/workers entry starts a new Go instance per
// request). `make build` copies this file to build/worker.mjs next to
// driver.mjs and the runtime assets of workers-assets-gen (wasm_exec.js,
// runtime.mjs).
import { startGo, headersFromString, readBody } from "./driver.mjs";
import { loadModule } from "./runtime.mjs";

// gateway resolves to the driver of the running Go program.
let gateway;

function start(env) {
  const started = loadModule().then((mod) =>
    startGo(mod, env, (binding, url, init) => (binding ? env[binding] : globalThis).fetch(url, init)),
  );
  // A program that exited is started afresh by the next request.
  started.catch(() => gateway === started && (gateway = undefined));
  return started;
}

const noBody = new Set([101, 204, 205, 304]);

export default {
  async fetch(request, env) {
    gateway ??= start(env);
    const g = await gateway;
    const body = await readBody(request, g.maxBodyBytes);
    try {
      // With the enable_request_signal compatibility flag, the runtime
      // aborts request.signal when the client goes away: Go then stops
      // the work it does for it, upstream requests included. The Response
      // constructor copies the body out of Go's memory.
      return await g.serve(request.method, request.url, request.headers, body, request, (status, headers, out) =>
        new Response(noBody.has(status) ? null : out, { status, headers: headersFromString(headers) }),
      );
    } catch (err) {
      if (g.dead) gateway = undefined; // the next request starts a fresh instance
      throw err;
    }
  },
};
