// Writes a workerd configuration as a binary Cap'n Proto message, the form
// in which wrangler dev (miniflare) hands workerd its configuration, with
// miniflare's own encoder:
//
//	node capnp.mjs config.json config.bin
//
// config.json describes one Worker on one socket, allowed to fetch from
// loopback: {"address", "compatibilityDate", "bindings": [{"name", "text"}],
// "modules": [{"name", "type": "esModule" | "wasm" | "data", "path"}],
// "v8Flags": [flag…] (optional), "objects": [{"binding", "className"}]
// (optional: Durable Object namespaces of classes the main module exports,
// SQLite-backed) and "storage" (the folder that keeps them; without it,
// memory)}.
import { readFileSync, writeFileSync } from "node:fs";
import { kVoid, serializeConfig } from "miniflare";

const [input, output] = process.argv.slice(2);
const c = JSON.parse(readFileSync(input, "utf8"));
const modules = c.modules.map((m) => ({
  name: m.name,
  [m.type]: m.type === "esModule" ? readFileSync(m.path, "utf8") : readFileSync(m.path),
}));
const objects = c.objects ?? [];
const worker = {
  modules,
  compatibilityDate: c.compatibilityDate,
  bindings: [...c.bindings, ...objects.map((o) => ({ name: o.binding, durableObjectNamespace: { className: o.className } }))],
};
const services = [
  { name: "main", worker },
  { name: "internet", network: { allow: ["public", "private", "local"] } },
];
if (objects.length > 0) {
  worker.durableObjectNamespaces = objects.map((o) => ({ className: o.className, uniqueKey: o.className, enableSql: true }));
  worker.durableObjectStorage = c.storage ? { localDisk: "objects" } : { inMemory: kVoid };
  if (c.storage) services.push({ name: "objects", disk: { path: c.storage, writable: true } });
}
writeFileSync(output, serializeConfig({
  v8Flags: c.v8Flags ?? [],
  services,
  sockets: [{ name: "http", address: c.address, http: {}, service: { name: "main" } }],
}));
