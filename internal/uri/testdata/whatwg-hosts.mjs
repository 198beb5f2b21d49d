// Reads URLs, one JSON string a line, from stdin and writes for each, one
// JSON value a line, what Node's WHATWG URL parser makes of it: its
// hostname and origin, or null when it refuses the URL. host_test.go runs it.
import { createInterface } from 'node:readline';

const out = [];
for await (const line of createInterface({ input: process.stdin })) {
  let answer = null;
  try {
    const u = new URL(JSON.parse(line));
    answer = { hostname: u.hostname, origin: u.origin };
  } catch {}
  out.push(JSON.stringify(answer));
}
process.stdout.write(out.join('\n') + '\n');
