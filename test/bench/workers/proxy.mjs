// Baseline for `make bench`: a trivial JavaScript Worker that does what an
// ideal edge gateway would do for memo_get_memo and memo_list_memos and
// nothing more. It reads the tool's arguments from the JSON-RPC request,
// sends GET /api/v1/memos/{id} (or GET /api/v1/memos?pageSize=n) to
// MEMOS_URL with the caller's Authorization header, and returns Memos' body.
export default {
  async fetch(request, env) {
    if (request.method !== "POST") return new Response("bench proxy\n");
    const call = await request.json();
    const args = call.params.arguments;
    const path =
      call.params.name === "memo_list_memos"
        ? `memos?pageSize=${encodeURIComponent(args.pageSize)}`
        : `memos/${encodeURIComponent(String(args.memo).replace(/^memos\//, ""))}`;
    const upstream = await fetch(`${env.MEMOS_URL}/api/v1/${path}`, {
      headers: { authorization: request.headers.get("authorization") ?? "" },
    });
    return new Response(upstream.body, {
      status: upstream.status,
      headers: { "content-type": "application/json" },
    });
  },
};
