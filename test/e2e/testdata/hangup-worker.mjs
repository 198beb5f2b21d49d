// A stand-in for a client that hangs up, served in front of the gateway: it
// passes each request to the gateway through a service binding and, when the
// request carries X-Hang-Up-After-Ms, gives up on it after that long. The
// runtime then cancels the gateway's request and aborts its request.signal,
// as it does in production when a client closes its connection (wrangler dev
// does not notice a client that closes its socket while it waits).
export default {
  async fetch(request, env) {
    const ms = Number(request.headers.get("x-hang-up-after-ms"));
    try {
      return await env.GATEWAY.fetch(request, ms > 0 ? { signal: AbortSignal.timeout(ms) } : {});
    } catch (err) {
      return new Response(`the client hung up: ${err.name}`, { status: 499 });
    }
  },
};
