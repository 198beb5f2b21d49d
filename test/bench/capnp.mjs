// Writes a workerd configuration as a binary Cap'n Proto message, the form
// in which wrangler dev (miniflare) hands workerd its configuration, with
// miniflare's own encoder:
//
//	node capnp.mjs config.json config.bin
//
// config.json describes one Worker on one socket, allowed to fetch from
// loopback: {"address", "compatibilityDate", "bindings": [{"name", "text"}],
// "modules": [{"name", "type": "esModule" | "wasm" | "data", "path"}],
// "v8Flags": [flag…] (optional)}.
import { readFileSync, writeFileSync } from "node:fs";
import { serializeConfig } from "miniflare";

const [input, output] = process.argv.slice(2);
const c = JSON.parse(readFileSync(input, "utf8"));
const modules = c.modules.map((m) => ({
  name: m.name,
  [m.type]: m.type === "esModule" ? readFileSync(m.path, "utf8") : readFileSync(m.path),
}));
writeFileSync(output, serializeConfig({
  v8Flags: c.v8Flags ?? [],
  services: [
    { name: "main", worker: { modules, compatibilityDate: c.compatibilityDate, bindings: c.bindings } },
    { name: "internet", network: { allow: ["public", "private", "local"] } },
  ],
  sockets: [{ name: "http", address: c.address, http: {}, service: { name: "main" } }],
}));
