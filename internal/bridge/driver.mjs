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
// A call made for one request often carries effects of others (Go runs every
// goroutine it can). Those are only noted: a request is resumed only from
// its own context, by its own upstream requests and timers, never by a
// promise another request resolves. workerd is meant to move the
// continuation of such a promise back to the request it belongs to, but
// under load it ran it in the resolving request's context, where the
// answer made its Response in the wrong request and failed with "Cannot
// perform I/O on behalf of a different request" (20,000 requests from 32
// clients through one isolate under wrangler dev, 6 to 10 times a run).
import "./wasm_exec.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Effect kinds and fetch outcomes, as exports_js.go numbers them.
const effectRespond = 1;
const effectFetch = 2;
const effectLog = 3;
const fetchOK = 0;
const fetchFailed = 1;
const fetchTooLarge = 2;
const fetchTimedOut = 3;

// A request whose goroutine waits inside Go is polled after 1, 2, 4, …
// maxPollMs ms; after maxStuckPolls polls in a row while no request has an
// upstream request under way it is answered with a 500 (see Gateway.stalled).
const maxPollMs = 32;
const maxStuckPolls = 10;

// startGo instantiates the compiled module mod, restores its data and runs
// its main until the Go program calls ready. fetcher(binding, url, init)
// runs an upstream request: binding is the name of a service binding, or ""
// for the global fetch. It resolves to the Gateway.
export async function startGo(mod, env, fetcher) {
  const started = performance.now();
  const go = new Go();
  const instance = new WebAssembly.Instance(mod, go.importObject);
  await restoreData(mod, instance.exports.mem);
  return new Promise((resolve, reject) => {
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
      // Log lines written before the program serves; later ones are
      // effects of the calls into Go (see Gateway.call).
      log: (line) => console.log(line),
      zone,
      zoneOffset,
    };
    go.run(instance, context).finally(() => {
      // The Go program ended (it never should): fail what it owed.
      const err = new Error("the Go program exited");
      gateway?.die(err);
      reject(err);
    });
  });
}

// Time zones, for bridge.ZoneOffset: the runtime's Intl knows them, and Go
// gets each offset as a number (a string or an object would cost it a
// finalizer per call). zoneFormats holds the formats of the zones Go gave a
// slot, which Go reuses once it has given out as many as it keeps.
const zoneFormats = [];

// zone makes slot the format of the IANA time zone name, and reports
// whether Intl knows the zone.
function zone(slot, name) {
  try {
    zoneFormats[slot] = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    return true;
  } catch {
    return false; // a RangeError: a zone Intl does not know
  }
}

// zoneOffset returns the offset east of UTC, in seconds, of the zone in
// slot at ms (milliseconds since 1970, whole seconds), or NaN.
function zoneOffset(slot, ms) {
  // en-US, numeric, 23-hour clock: "3/10/2024, 13:05:09".
  const n = zoneFormats[slot]?.format(ms).match(/[0-9]+/g);
  if (!n || n.length < 6) return NaN;
  let local = Date.UTC(+n[2], n[0] - 1, +n[1], +n[3], +n[4], +n[5]);
  if (+n[2] < 100) local = new Date(local).setUTCFullYear(+n[2]); // Date.UTC takes 0–99 for 1900–1999
  return (local - ms) / 1000;
}

// The program's data, which `make build` moves out of the data segments
// into this custom section (internal/bridge/pack): the memory offset of the
// image as a 32-bit little-endian number, then the image, zlib-compressed.
const dataSection = "memos-mcp-edge.data";

// restoreData writes the data of a packed module into the memory of its
// instance, where instantiation puts a module's data segments; a module that
// was not packed has its data there already.
async function restoreData(mod, memory) {
  const [packed] = WebAssembly.Module.customSections(mod, dataSection);
  if (packed === undefined) return;
  const offset = new DataView(packed).getUint32(0, true);
  const inflated = new Response(new Uint8Array(packed, 4)).body.pipeThrough(new DecompressionStream("deflate"));
  const image = await new Response(inflated).arrayBuffer();
  new Uint8Array(memory.buffer).set(new Uint8Array(image), offset);
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
  // headers, body) returns for its answer. The request's headers are a
  // Headers object or [name, value] pairs, names in lower case (as Headers
  // gives them). In the answer, headers is a "name:value\n"
  // string, body a view of Go's memory, valid only during the call (the
  // runtime's Response constructor copies it; the default answer copies it
  // too). The request body is a Uint8Array or a list of them (the chunks of
  // a stream), or null when it was over maxBodyBytes and left unread.
  // client.signal (a Request's, say) aborts when the client goes away: Go
  // then stops the work and the upstream requests it does for the request.
  // It is read only when the request goes upstream; a request answered at
  // once never needs it, and the runtime makes it on first use.
  //
  // early, when given, lists upstream requests already under way for this
  // request, made before Go could ask for them (the entry module's check of
  // the caller at a cold start): each { binding, url, headers (an object),
  // timeoutMs, response (the fetch's promise) } of a GET without a body.
  // When Go asks for exactly one of them, it gets that answer instead of a
  // second fetch; the caller aborts them when serve returns.
  //
  // waitUntil(promise), when given, keeps the request's context alive for
  // the upstream requests still under way once it is answered (the
  // runtime's ctx.waitUntil): a check of the caller made beside the
  // request, say, which Go goes on to note.
  async serve(method, url, headers, body, client, answer = copyAnswer, { early, waitUntil } = {}) {
    if (this.dead) throw this.dead;
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    const r = { queue: [], wake: null, fetches: 0, answer: null, polls: 0, stuck: 0, signal: undefined, early, drained: null, logged: false };
    this.requests.set(id, r);
    try {
      this.call(() => {
        // body is chunks, or null or { head } for one over the cap.
        const tooLarge = body === null || body.head !== undefined;
        const chunks = body === null ? [] : tooLarge ? [body.head] : [body].flat();
        const [m, u, h] = this.write([method, url, headersToString(headers)], chunks);
        return this.exports.mme_handle(id, m, u, h, tooLarge);
      });
      for (;;) {
        if (r.queue.length > 0 && r.signal === undefined) {
          r.signal = client?.signal ?? null;
          const cancel = () => {
            if (!this.requests.has(id)) return;
            this.call(() => this.exports.mme_cancel(id));
            r.wake?.();
          };
          if (r.signal?.aborted) cancel();
          else r.signal?.addEventListener("abort", cancel, { once: true });
        }
        while (r.queue.length > 0) this.fetch(r, r.queue.shift());
        if (r.answer) return answer(r.answer.status, r.answer.headers, r.answer.body());
        if (this.dead) throw this.dead;
        // woken is resolved only from this request's context: by the
        // outcome of one of its upstream requests, or its client going away.
        const woken = new Promise((wake) => (r.wake = wake));
        if (r.fetches > 0) {
          await woken;
          continue;
        }
        // Nothing is under way for this request, so its goroutine waits for
        // something inside Go that another request's call would bring, or
        // for the garbage collector's workers. The gateway has no such
        // wait: no request waits for another's upstream request (the check
        // of a caller, the health probe) or holds a lock across its own.
        // Should one come back, it is seen here: Go is polled, from this
        // request's own context (the runtime cancels a request that waits
        // on nothing of its own), less often the longer it waits, and the
        // wait is logged once, for tests to find.
        if (!r.logged) {
          r.logged = true;
          console.log(waitedLine);
        }
        let timer;
        const polled = new Promise((poll) => (timer = setTimeout(poll, Math.min(2 ** r.polls, maxPollMs), "poll")));
        const why = await Promise.race([woken, polled]);
        clearTimeout(timer);
        // Another request's call may have brought what it waited for.
        if (why !== "poll" || r.answer || r.queue.length > 0) continue;
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
      if (r.fetches > 0 && waitUntil) waitUntil(new Promise((done) => (r.drained = done)));
      // Go keeps an answer's body until it is released.
      if (r.answer?.pinned && !this.dead) this.exports.mme_release(id);
    }
  }

  // fetch runs one upstream request of r and reports its outcome to Go.
  async fetch(r, f) {
    r.fetches++;
    let outcome = fetchOK;
    let texts = [""];
    let chunks = [];
    let status = 0;
    const i = r.early?.findIndex((e) => sameRequest(e, f)) ?? -1;
    const early = i >= 0 ? r.early.splice(i, 1)[0] : undefined; // taken once
    try {
      const signals = f.timeoutMs > 0 ? [AbortSignal.timeout(f.timeoutMs)] : [];
      if (r.signal) signals.push(r.signal);
      const resp = early ? await early.response : await this.fetcher(f.binding, f.url, {
        method: f.method,
        headers: headersFromString(f.headers),
        body: f.body.byteLength > 0 ? f.body : undefined,
        redirect: "manual",
        signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
      });
      const body = await readBody(resp, f.maxBytes);
      if (body === null) {
        outcome = fetchTooLarge;
      } else {
        status = resp.status;
        texts = [headersToString(resp.headers)];
        chunks = body;
      }
    } catch (err) {
      outcome = err.name === "TimeoutError" ? fetchTimedOut : fetchFailed;
      texts = [`${err.name}: ${err.message}`];
    }
    r.fetches--;
    this.fetched(f.id, outcome, status, texts, chunks);
    r.wake?.();
    if (r.fetches === 0) r.drained?.();
  }

  // fetched reports the outcome of upstream request id to Go: texts are the
  // answer's headers (or the error's message), chunks its body.
  fetched(id, outcome, status, texts, chunks) {
    this.call(() => {
      const [headerLen] = this.write(texts, chunks);
      return this.exports.mme_fetched(id, outcome, status, headerLen);
    });
  }

  // write copies texts (strings, as UTF-8) and then chunks (Uint8Arrays) one
  // after another into a buffer of the Go program's, for the next call, and
  // returns the lengths of the texts in bytes.
  write(texts, chunks) {
    const lengths = texts.map(utf8Length);
    const total = lengths.reduce((a, b) => a + b, chunks.reduce((a, c) => a + c.byteLength, 0));
    const ptr = this.exports.mme_buffer(total);
    const mem = new Uint8Array(this.exports.mem.buffer, ptr, total);
    let at = 0;
    texts.forEach((t, i) => (at += putText(mem, at, t, lengths[i])));
    for (const c of chunks) {
      mem.set(c, at);
      at += c.byteLength;
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
    const text = (at) => textOf(bytes(at));
    for (let at = 1; at < words.length; ) {
      // A log line reaches the console once the call into Go that wrote it
      // has returned: under workerd alone, console.log during the call cost
      // tools/call about 0.4 ms more (measured side by side).
      if (words[at] === effectLog) {
        console.log(text(at + 1));
        at += 3;
        continue;
      }
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
        // Its request is over: it fails unsent, once this call's table is read.
        else queueMicrotask(() => this.fetched(f.id, fetchFailed, 0, [overMessage], []));
        at += 15;
      } else {
        this.die(new Error(`unknown effect ${words[at]} from the Go program`));
        return;
      }
      // Seen by r in its own context (see serve): no wake from here.
      if (r) r.polls = r.stuck = 0;
    }
  }

  // stalled reports whether r has waited too long for something nothing can
  // bring any more: no request has an upstream request under way, which is
  // the only way a wait inside Go can end that polling does not see through.
  stalled(r) {
    for (const other of this.requests.values()) if (other.fetches > 0 || other.queue.length > 0) r.stuck = 0;
    return ++r.stuck > maxStuckPolls;
  }

  // die fails every request still owed an answer, each as it next looks:
  // the Go program is gone.
  die(err) {
    this.dead ??= err;
  }
}

// sameRequest reports whether the upstream request f of Go is the request
// early, made before Go asked for it: the same binding, URL, header fields
// and timeout, a GET without a body.
function sameRequest(early, f) {
  if (f.method !== "GET" || f.body.byteLength > 0 || f.binding !== early.binding || f.url !== early.url || f.timeoutMs !== early.timeoutMs) return false;
  const asked = headersFromString(f.headers);
  const names = Object.keys(asked);
  return names.length === Object.keys(early.headers).length && names.every((n) => asked[n] === early.headers[n]);
}

// waitedLine is logged by a request that waits inside Go with nothing of its
// own under way (see serve).
const waitedLine = '{"msg":"a request waited inside the gateway with nothing of its own under way"}';

// overMessage is the failure of an upstream request whose request is over.
const overMessage = "AbortError: the request it was for is over";

// copyAnswer is serve's default answer: { status, headers, body }, the body
// copied out of Go's memory.
const copyAnswer = (status, headers, body) => ({ status, headers, body: body.slice() });

export function headersToString(headers) {
  let s = "";
  for (const [name, value] of headers) s += `${name}:${value}\n`;
  return s;
}

// headersFromString turns "name:value\n" lines into an object of header
// fields, which the runtime's Response and fetch take as they take Headers.
// It has no prototype, so that no field name is taken for one of its
// properties.
export function headersFromString(s) {
  const headers = Object.create(null);
  for (const line of s.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) {
      const name = line.slice(0, i);
      const value = line.slice(i + 1);
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
  }
  return headers;
}

// Text crosses the boundary as UTF-8. It is almost always ASCII (methods,
// URLs, header fields), which plain JavaScript copies faster than a call to
// the runtime's encoder or decoder would.

// utf8Length returns the length of s in UTF-8.
function utf8Length(s) {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return i + encoder.encode(s.slice(i)).byteLength;
  return s.length;
}

// putText writes s, n bytes in UTF-8, into mem at at, and returns n.
function putText(mem, at, s, n) {
  if (n !== s.length) return encoder.encodeInto(s, mem.subarray(at, at + n)).written;
  for (let i = 0; i < n; i++) mem[at + i] = s.charCodeAt(i);
  return n;
}

// textOf decodes UTF-8 bytes.
function textOf(b) {
  if (b.length > 4096) return decoder.decode(b);
  for (let i = 0; i < b.length; i++) if (b[i] >= 0x80) return decoder.decode(b);
  return String.fromCharCode.apply(null, b);
}

// readBody reads the body of a Request or Response, up to max bytes (0: no
// cap), as a list of chunks, or returns null without reading further when
// it is longer: a body is never read whole before its size is known to be
// within the cap. With keep, a longer body is { head }, its first keep bytes
// at most, instead of null. The chunks are copied into Go's memory as they
// are.
export async function readBody(message, max, keep = 0) {
  const headers = message.headers;
  const declared = headers.get("content-length");
  const encoded = (headers.get("content-encoding") ?? "identity") !== "identity";
  if (declared !== null && !encoded) {
    // The runtime holds a body to its declared length (an encoded one's is
    // not what decoding yields), so a declared one within the cap is read
    // whole, the fastest way, and one over it is left unread: cancelling an
    // incoming request's body would cut off the 413 that says so.
    if (max > 0 && Number(declared) > max) {
      // Its head is read only from a body of a few times the cap, the
      // rest dropped: the runtime drops the connection of an answer whose
      // request is still arriving once its body was begun (measured with
      // 60 MB), or answers it with no body.
      if (keep === 0 || Number(declared) > headWithin * max) return null;
      const reader = piecesOf(message.body);
      const { value } = await reader.read(keep);
      // The rest is read and dropped, so that the answer comes after the
      // whole request, as the runtime needs.
      for (let done = false; !done; ) ({ done } = await reader.read(lastPiece));
      return { head: value ? value.subarray(0, keep) : new Uint8Array(0) };
    }
    return [new Uint8Array(await message.arrayBuffer())];
  }
  // Asked only now: the runtime makes a stream object for it.
  if (message.body === null) return [];
  const reader = piecesOf(message.body);
  const chunks = [];
  let size = 0;
  for (let piece = firstPiece; ; ) {
    const want = max > 0 ? Math.min(piece, max + 1 - size) : piece;
    const { done, value } = await reader.read(want);
    const got = value?.byteLength ?? 0;
    if (got > 0) {
      size += got;
      if (max > 0 && size > max) {
        await reader.cancel();
        return keep === 0 ? null : { head: firstBytes([...chunks, value], keep) };
      }
      chunks.push(value);
    }
    if (done) return chunks;
    // A short piece ends the body: the next read only has to see the end.
    piece = got < want ? 1 : Math.min(2 * piece, lastPiece);
  }
}

// headWithin is how many times the cap a declared body may be for readBody
// to read its head.
const headWithin = 4;

// firstBytes returns the first n bytes of chunks.
function firstBytes(chunks, n) {
  const head = new Uint8Array(Math.min(n, chunks.reduce((sum, c) => sum + c.byteLength, 0)));
  let at = 0;
  for (const c of chunks) {
    if (at === head.length) break;
    const part = c.subarray(0, head.length - at);
    head.set(part, at);
    at += part.byteLength;
  }
  return head;
}

// A body of unknown length is read in pieces that grow from firstPiece to
// lastPiece bytes: what reading one allocates is under three times its size
// (and firstPiece at least), and a megabyte takes a handful of reads. The
// runtime's own chunks are a few KB each: a 1.4 MB answer read chunk by
// chunk took 352 reads, and about a quarter of the Worker's CPU (measured
// side by side under workerd alone).
const firstPiece = 16 * 1024;
const lastPiece = 1024 * 1024;

// piecesOf returns a reader of body whose read(n) resolves to its next
// piece: workerd's readAtLeast fills a buffer of n bytes, short only at the
// end of the body. Node, which runs the driver in tests and tools, has no
// readAtLeast, and its reader gives the body's chunks as they come.
function piecesOf(body) {
  if (typeof globalThis.ReadableStreamBYOBReader?.prototype.readAtLeast !== "function") {
    const reader = body.getReader();
    return { read: () => reader.read(), cancel: () => reader.cancel() };
  }
  const reader = body.getReader({ mode: "byob" });
  return { read: (n) => reader.readAtLeast(n, new Uint8Array(n)), cancel: () => reader.cancel() };
}
