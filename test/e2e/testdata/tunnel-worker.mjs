// A stand-in for a Cloudflare Tunnel or Workers VPC service: a Worker that
// the gateway reaches through a service binding, and that forwards every
// request to the Memos instance in its TARGET variable.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const target = new URL(url.pathname + url.search, env.TARGET);
    return fetch(new Request(target, request));
  },
};
