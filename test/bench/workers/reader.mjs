// Baseline for row 11 of `make bench`: a JavaScript Worker that does the
// upstream work of one of the gateway's heavier request kinds and nothing
// more. Its request lists the paths the gateway asked Memos for, on one
// call of that kind (the bench records them); it sends each to MEMOS_URL
// in turn with the caller's Authorization header, parses every answer
// with JSON.parse, and answers with how many it read: the least a
// JavaScript gateway reading the same answers would spend.
export default {
  async fetch(request, env) {
    if (request.method !== "POST") return new Response("bench reader\n");
    const { paths } = await request.json();
    const authorization = request.headers.get("authorization") ?? "";
    let members = 0;
    for (const path of paths) {
      const upstream = await fetch(`${env.MEMOS_URL}${path}`, { headers: { authorization } });
      const text = await upstream.text();
      if (!upstream.ok) return new Response(`${path}: ${upstream.status} ${text.slice(0, 200)}`, { status: 502 });
      members += Object.keys(JSON.parse(text)).length;
    }
    return Response.json({ read: paths.length, members });
  },
};
