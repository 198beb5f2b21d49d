// The driver of the Go program: it starts one Go instance and passes it
// requests through the program's exported functions (exports_js.go), runs the
// upstream requests the program asks for, and hands back its answers. The
// Worker's entry module (worker.mjs) uses it, and so do the tools that run the
// same wasm under Node. `make build` copies it to build/driver.mjs next to
// wasm_exec.js.
//
// Every call into Go returns at once with a table of effects: answers to
// send and upstream requests to make, each for one request. A request's own
// async function (serve) starts its upstream requests and returns its answer,
// so that everything done for a request is done in that request's context.
import "./wasm_exec.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Effect kinds and fetch outcomes, as exports_js.go numbers them.
const effectRespond = 1;
const effectFetch = 2;
const fetchOK = 0;
const fetchFailed = 1;
const fetchTooLarge = 2;

// A request whose goroutine waits inside Go is polled after 1, 2, 4, …
// maxPollMs ms; after maxStuckPolls polls in a row while no request has an
// upstream request under way it is answered with a 500 (see Gateway.stalled).
const maxPollMs = 32;
const maxStuckPolls = 10;

// startGo instantiates the compiled module mod and runs its main until the
// Go program calls ready. fetcher(binding, url, init) runs an upstream
// request: binding is the name of a service binding, or "" for the global
// fetch. It resolves to the Gateway.
export function startGo(mod, env, fetcher) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const go = new Go();
    const instance = new WebAssembly.Instance(mod, go.importObject);
    let gateway;
    const context = {
      env,
      startupMs: 0,
      ready(maxBodyBytes) {
        context.startupMs = performance.now() - started;
        gateway = new Gateway(instance.exports, maxBodyBytes, fetcher);
        resolve(gateway);
      },
      // The linear memory only grows; its size is the isolate's share of
      // memory taken by Go, reported in /healthz.
      memoryBytes: () => instance.exports.mem.buffer.byteLength,
    };
    go.run(instance, context).finally(() => {
      // The Go program ended (it never should): fail what it owed.
      const err = new Error("the Go program exited");
      gateway?.die(err);
      reject(err);
    });
  });
}

export class Gateway {
  constructor(exports, maxBodyBytes, fetcher) {
    this.exports = exports;
    this.maxBodyBytes = maxBodyBytes;
    this.fetcher = fetcher;
    this.requests = new Map(); // by id: the requests not yet answered
    this.nextId = 0;
    this.dead = null; // the error that ended the Go program
  }

  // serve passes one request to Go and resolves to what answer(status,
  // headers, body) returns for its answer: headers is a "name:value\n"
  // string, body a view of Go's memory, valid only during the call (the
  // runtime's Response constructor copies it; the default answer copies it
  // too). The request body is a Uint8Array or a list of them (the chunks of
  // a stream), or null when it was over maxBodyBytes and left unread. When
  // signal aborts, Go stops the work and the upstream requests it does for
  // the request.
  async serve(method, url, headers, body, signal, answer = copyAnswer) {
    if (this.dead) throw this.dead;
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    const r = { queue: [], wake: null, fetches: 0, answer: null, polls: 0, stuck: 0, signal };
    this.requests.set(id, r);
    try {
      this.call(() => {
        const chunks = body === null ? [] : [body].flat();
        const [m, u, h] = this.write([encoder.encode(method), encoder.encode(url), encoder.encode(headersToString(headers)), ...chunks]);
        return this.exports.mme_handle(id, m, u, h, body === null);
      });
      signal?.addEventListener("abort", () => this.requests.has(id) && this.call(() => this.exports.mme_cancel(id)), { once: true });
      for (;;) {
        while (r.queue.length > 0) this.fetch(r, r.queue.shift());
        if (r.answer) return answer(r.answer.status, r.answer.headers, r.answer.body());
        if (this.dead) throw this.dead;
        const woken = new Promise((wake) => (r.wake = wake));
        if (r.fetches > 0) {
          await woken;
          continue;
        }
        // Nothing is under way for this request, so its goroutine waits for
        // something inside Go: a lock another request holds across an
        // upstream request, or the garbage collector. Go is polled, from
        // this request's own context (the runtime cancels a request that
        // waits on nothing of its own), less often the longer it waits.
        let timer;
        const polled = new Promise((poll) => (timer = setTimeout(poll, Math.min(2 ** r.polls, maxPollMs), "poll")));
        const why = await Promise.race([woken, polled]);
        clearTimeout(timer);
        if (why !== "poll") continue;
        r.polls++;
        if (this.stalled(r)) {
          const body = encoder.encode("the request stalled in the gateway\n");
          r.answer = { status: 500, headers: "content-type:text/plain; charset=utf-8\n", body: () => body };
        } else {
          this.call(() => this.exports.mme_poll());
        }
      }
    } finally {
      this.requests.delete(id);
      // Go keeps an answer's body until it is released.
      if (r.answer?.pinned && !this.dead) this.exports.mme_release(id);
    }
  }

  // fetch runs one upstream request of r and reports its outcome to Go.
  async fetch(r, f) {
    r.fetches++;
    let outcome = fetchOK;
    let parts;
    let status = 0;
    try {
      const signals = f.timeoutMs > 0 ? [AbortSignal.timeout(f.timeoutMs)] : [];
      if (r.signal) signals.push(r.signal);
      const resp = await this.fetcher(f.binding, f.url, {
        method: f.method,
        headers: headersFromString(f.headers),
        body: f.body.byteLength > 0 ? f.body : undefined,
        redirect: "manual",
        signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
      });
      const chunks = await readBody(resp, f.maxBytes);
      if (chunks === null) {
        outcome = fetchTooLarge;
        parts = [];
      } else {
        status = resp.status;
        parts = [encoder.encode(headersToString(resp.headers)), ...chunks];
      }
    } catch (err) {
      outcome = fetchFailed;
      parts = [encoder.encode(`${err.name}: ${err.message}`)];
    }
    r.fetches--;
    this.call(() => {
      const [headerLen] = this.write(parts);
      return this.exports.mme_fetched(f.id, outcome, status, headerLen ?? 0);
    });
  }

  // write copies parts (Uint8Arrays) one after another into a buffer of the
  // Go program's, for the next call, and returns their lengths.
  write(parts) {
    const lengths = parts.map((p) => p.byteLength);
    const total = lengths.reduce((a, b) => a + b, 0);
    const ptr = this.exports.mme_buffer(total);
    const mem = new Uint8Array(this.exports.mem.buffer, ptr, total);
    let at = 0;
    for (const p of parts) {
      mem.set(p, at);
      at += p.byteLength;
    }
    return lengths;
  }

  // call runs one call into Go and carries out the effects it returns.
  call(enter) {
    if (this.dead) return;
    let table;
    try {
      table = enter();
    } catch (err) {
      this.die(err);
      return;
    }
    // The memory may have grown during the call: views are made afresh.
    const buffer = this.exports.mem.buffer;
    const words = new Uint32Array(buffer, table, new Uint32Array(buffer, table, 1)[0] + 1);
    const bytes = (at) => new Uint8Array(buffer, words[at], words[at + 1]);
    const text = (at) => decoder.decode(bytes(at));
    for (let at = 1; at < words.length; ) {
      const r = this.requests.get(words[at + 1]);
      if (words[at] === effectRespond) {
        // The body is read where it is, when serve hands it on: Go keeps
        // it until mme_release, but the memory may grow meanwhile, which
        // detaches the views made before.
        const [ptr, len] = [words[at + 5], words[at + 6]];
        const body = () => new Uint8Array(this.exports.mem.buffer, ptr, len);
        if (r) r.answer = { status: words[at + 2], headers: text(at + 3), body, pinned: true };
        else this.exports.mme_release(words[at + 1]); // nobody waits for it
        at += 7;
      } else if (words[at] === effectFetch) {
        const f = {
          id: words[at + 2],
          timeoutMs: words[at + 3],
          maxBytes: words[at + 4],
          binding: text(at + 5),
          method: text(at + 7),
          url: text(at + 9),
          headers: text(at + 11),
          body: bytes(at + 13).slice(),
        };
        if (r) r.queue.push(f);
        else queueMicrotask(() => this.fetch({ fetches: 0, signal: AbortSignal.abort() }, f)); // its request is over
        at += 15;
      } else {
        this.die(new Error(`unknown effect ${words[at]} from the Go program`));
        return;
      }
      if (r) r.polls = r.stuck = 0;
      r?.wake?.();
    }
  }

  // stalled reports whether r has waited too long for something nothing can
  // bring any more: no request has an upstream request under way, which is
  // the only way a wait inside Go can end that polling does not see through.
  stalled(r) {
    for (const other of this.requests.values()) if (other.fetches > 0 || other.queue.length > 0) r.stuck = 0;
    return ++r.stuck > maxStuckPolls;
  }

  // die fails every request still owed an answer; the Go program is gone.
  die(err) {
    this.dead ??= err;
    for (const r of this.requests.values()) r.wake?.();
  }
}

// copyAnswer is serve's default answer: { status, headers, body }, the body
// copied out of Go's memory.
const copyAnswer = (status, headers, body) => ({ status, headers, body: body.slice() });

export function headersToString(headers) {
  let s = "";
  for (const [name, value] of headers) s += `${name}:${value}\n`;
  return s;
}

export function headersFromString(s) {
  const headers = new Headers();
  for (const line of s.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i), line.slice(i + 1));
  }
  return headers;
}

// readBody reads the body of a Request or Response, up to max bytes (0: no
// cap), as a list of chunks, or returns null without reading further when
// it is longer: a body is never read whole before its size is known to be
// within the cap. The chunks are copied into Go's memory as they are.
export async function readBody(message, max) {
  if (message.body === null) return [];
  const declared = message.headers.get("content-length");
  const encoded = (message.headers.get("content-encoding") ?? "identity") !== "identity";
  if (declared !== null && !encoded) {
    // The runtime holds a body to its declared length (an encoded one's is
    // not what decoding yields), so a declared one within the cap is read
    // whole, the fastest way, and one over it is left unread: cancelling an
    // incoming request's body would cut off the 413 that says so.
    if (max > 0 && Number(declared) > max) return null;
    return [new Uint8Array(await message.arrayBuffer())];
  }
  const chunks = [];
  let size = 0;
  const reader = message.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    size += value.byteLength;
    if (max > 0 && size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
}
