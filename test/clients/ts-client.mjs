// Drives the gateway with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json), as an MCP host built on
// it would: Streamable HTTP, a bearer token on every request, and the SDK's
// own validation of every result.
//
//   MCP_URL=http://127.0.0.1:8787/mcp TOKEN=... node test/clients/ts-client.mjs [scenario ...]
//
// Without arguments every scenario runs, in the order of the table below.
// EXPECT_TOOLS (comma-separated, optional) is the exact tools/list order to
// expect. Exit status: 0 if every scenario passed, 1 if one failed, 2 on bad
// usage. The end-to-end test test/e2e/tsclient_test.go runs it.
//
// A scenario is an async function of the shared context: { client,
// transport, tools } where tools is what list-tools received (the SDK only
// validates structuredContent against a tool's outputSchema after listTools,
// so list-tools comes first). It throws to fail. To add one, add an entry to
// `scenarios`.

import assert from 'node:assert/strict';
import process from 'node:process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const EXPECTED_TOOL_COUNT = 20;

const scenarios = {
  // listTools parses the whole result with the SDK's zod schemas: one tool
  // whose inputSchema or outputSchema it rejects makes the call throw.
  'list-tools': async (ctx) => {
    const { tools, nextCursor } = await ctx.client.listTools();
    assert.equal(nextCursor, undefined, 'tools/list is one page');
    const names = tools.map((t) => t.name);
    console.log(`  ${tools.length} tools: ${names.join(', ')}`);
    assert.equal(tools.length, EXPECTED_TOOL_COUNT, `tools/list returned ${tools.length} tools`);
    const want = process.env.EXPECT_TOOLS;
    if (want) {
      assert.deepEqual(names, want.split(','), 'tools/list names and order');
    }
    for (const t of tools) {
      assert.ok(t.description, `${t.name} has a description`);
      assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema type`);
    }
    ctx.tools = tools;
  },
};

function usage(message) {
  console.error(`ts-client: ${message}`);
  console.error(`usage: MCP_URL=... TOKEN=... node ts-client.mjs [${Object.keys(scenarios).join('|')} ...]`);
  process.exit(2);
}

async function main() {
  const { MCP_URL: url, TOKEN: token } = process.env;
  if (!url || !token) usage('MCP_URL and TOKEN must be set');
  const names = process.argv.slice(2);
  for (const name of names) {
    if (!(name in scenarios)) usage(`unknown scenario ${name}`);
  }
  const selected = names.length > 0 ? names : Object.keys(scenarios);

  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'memos-mcp-edge-e2e-ts', version: '0.0.0' });
  // connect runs initialize and notifications/initialized, then opens the
  // optional GET stream (a 405 is accepted).
  await client.connect(transport);
  const server = client.getServerVersion();
  console.log(`connected to ${server?.name} ${server?.version}`);
  console.log(`negotiated protocol version: ${transport.protocolVersion}`);

  const ctx = { client, transport, tools: [] };
  let failed = 0;
  try {
    for (const name of selected) {
      try {
        await scenarios[name](ctx);
        console.log(`ok   ${name}`);
      } catch (err) {
        failed++;
        console.log(`FAIL ${name}: ${describe(err)}`);
      }
    }
  } finally {
    await client.close();
  }
  console.log(`${selected.length - failed} of ${selected.length} scenarios passed`);
  return failed === 0 ? 0 : 1;
}

// describe keeps what helps find the cause: zod's issue list, an McpError's
// code and data, a transport error's HTTP status.
function describe(err) {
  if (!(err instanceof Error)) return String(err);
  const parts = [err.message];
  if (err.code !== undefined) parts.push(`code ${err.code}`);
  if (err.data !== undefined) parts.push(`data ${JSON.stringify(err.data)}`);
  if (err.cause) parts.push(`cause ${describe(err.cause)}`);
  return parts.join('; ');
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.log(`FAIL connect: ${describe(err)}`);
    process.exit(1);
  },
);
