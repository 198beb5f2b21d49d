// Baseline for `make bench`: a trivial JavaScript Worker that does what an
// ideal edge gateway would do for memo_get_memo and nothing more. It reads
// the memo name from the JSON-RPC request, sends GET /api/v1/memos/{id} to
// MEMOS_URL with the caller's Authorization header, and returns Memos' body.
export default {
  async fetch(request, env) {
    if (request.method !== "POST") return new Response("bench proxy\n");
    const call = await request.json();
    const id = String(call.params.arguments.memo).replace(/^memos\//, "");
    const upstream = await fetch(`${env.MEMOS_URL}/api/v1/memos/${encodeURIComponent(id)}`, {
      headers: { authorization: request.headers.get("authorization") ?? "" },
    });
    return new Response(upstream.body, {
      status: upstream.status,
      headers: { "content-type": "application/json" },
    });
  },
};
