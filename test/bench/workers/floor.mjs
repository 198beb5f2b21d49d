// Baseline for `make bench`: a trivial JavaScript Worker that reads the
// request and answers with fixed bytes. The bench writes payload.bin next to
// it with the gateway's own tools/list answer, so this Worker sends the same
// bytes with no work at all: the runtime's floor.
import payload from "./payload.bin";

export default {
  async fetch(request) {
    await request.arrayBuffer();
    return new Response(payload, { headers: { "content-type": "application/json" } });
  },
};
