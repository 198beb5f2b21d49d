// A Worker that serves the gateway's MemoLock Durable Object class (copied
// beside it as lease.mjs) directly: each request goes to the object its path
// names, as the gateway's entry module routes them. The end-to-end tests run
// two of these in one wrangler dev: the first defines the class, the second
// (bound as SECOND, reached under /b/) binds the first's objects, as a
// second isolate of a deployed Worker reaches the same objects.
export { MemoLock } from "./lease.mjs";

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    if (env.SECOND && url.pathname.startsWith("/b/")) {
      url.pathname = url.pathname.slice("/b".length);
      return env.SECOND.fetch(new Request(url, request));
    }
    const name = decodeURIComponent(url.pathname.slice(1));
    return env.MEMO_LOCKS.get(env.MEMO_LOCKS.idFromName(name)).fetch(request);
  },
};
