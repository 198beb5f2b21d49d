// The gateway's memo lock (its Durable Object class, copied beside this file
// as lease.mjs) behind a Worker that sends each request to the object its
// path names, as the gateway's entry module does. Under /self/ the Worker
// answers itself, after reading the request as the object does, with what
// the object answers a release of no turn: the same round trip without the
// object, the baseline of `make bench`'s row 10.
export { MemoLock } from "./lease.mjs";

const notHeld = JSON.stringify({ released: false });

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/self/")) {
      await request.json();
      return new Response(notHeld, { headers: { "content-type": "application/json" } });
    }
    return env.MEMO_LOCKS.get(env.MEMO_LOCKS.idFromName(decodeURIComponent(path.slice(1)))).fetch(request);
  },
};
