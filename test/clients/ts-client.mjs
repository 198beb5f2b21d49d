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
// transport, tools, url, lastBody } where tools is what list-tools received
// (the SDK only validates structuredContent against a tool's outputSchema
// after listTools, so list-tools comes first; a scenario run on its own lists
// the tools itself) and lastBody is the raw JSON of the client's last answer
// (to show what a result the SDK rejected held). It throws to fail. To add
// one, add an entry to `scenarios`.
//
// `resources` lists and reads the caller's memos and an attachment, reads
// the templates, gets the prompts and completes a tag argument, each result
// parsed by the SDK's schemas.
//
// `tools` mirrors the go-sdk scenario of test/e2e/tools_test.go: every one of
// the 20 generated tools is called successfully (the finder scenario calls
// the hand-written ones), each result passing the SDK's own output-schema
// check (AJV). `tool-errors` checks Memos' refusals (an unknown memo) come
// back as tool errors, and a bad token as a 401 at connect.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import process from 'node:process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const EXPECTED_TOOL_COUNT = 26;

// The hand-written tools (package finder), which the finder scenario calls;
// the tools scenario calls every other one.
const FINDER_TOOLS = ['attachment_read', 'fetch', 'memo_edit', 'memo_search', 'search', 'tag_list'];

// The tools that answer in text alone, a JSON object sent once: they
// declare no outputSchema, so their results carry no structuredContent.
const TEXT_TOOLS = ['fetch', 'memo_search', 'search', 'tag_list'];

// A tag of this run's own, so the filter and pagination checks see only the
// memos this run created, whatever else the instance holds.
const RUN_TAG = `e2ets${Date.now().toString(36)}`;

// listed makes sure listTools ran on this client, so callTool validates every
// structuredContent against the tool's outputSchema; it fails if the SDK did
// not set up a validator for each tool that has one (all but TEXT_TOOLS).
async function listed(ctx) {
  if (ctx.tools.length === 0) {
    ctx.tools = (await ctx.client.listTools()).tools;
  }
  for (const t of ctx.tools) {
    if (TEXT_TOOLS.includes(t.name)) {
      assert.equal(t.outputSchema, undefined, `${t.name} answers in text alone, without an outputSchema`);
      continue;
    }
    assert.equal(t.outputSchema?.type, 'object', `${t.name} has an object outputSchema`);
    // Not public API: checked only where the SDK has it, to prove callTool
    // will validate this tool's results.
    if (typeof ctx.client.getToolOutputValidator === 'function') {
      assert.equal(typeof ctx.client.getToolOutputValidator(t.name), 'function', `the SDK holds no output validator for ${t.name}`);
    }
  }
}

// toolCaller calls tools through the SDK's callTool and checks the shape of
// every answer, recording which tools succeeded.
function toolCaller(ctx) {
  const succeeded = new Set();

  async function call(name, args) {
    let res;
    ctx.lastBody = undefined;
    try {
      res = await ctx.client.callTool({ name, arguments: args ?? {} });
    } catch (err) {
      // The SDK's output-schema check throws McpError -32602 (InvalidParams);
      // show what it rejected.
      const raw = ctx.lastBody ? `; result was ${ctx.lastBody.slice(0, 4000)}` : '';
      throw new Error(`${name}(${JSON.stringify(args ?? {})}): ${describe(err)}${raw}`);
    }
    assert.equal(res.content?.length, 1, `${name}: ${res.content?.length} content blocks, want 1`);
    assert.equal(res.content[0].type, 'text', `${name}: content is ${res.content[0].type}, want text`);
    return res;
  }

  // ok calls a tool that must succeed and returns its structured content,
  // which the SDK has already checked against the tool's output schema.
  async function ok(name, args) {
    const res = await call(name, args);
    const text = res.content[0].text;
    assert.ok(!res.isError, `${name}: tool error: ${text}`);
    const sc = res.structuredContent;
    assert.ok(sc !== null && typeof sc === 'object' && !Array.isArray(sc), `${name}: structuredContent is not an object: ${JSON.stringify(sc)}`);
    let fromText;
    try {
      fromText = JSON.parse(text);
    } catch (err) {
      assert.fail(`${name}: text is not JSON: ${err.message}: ${text.slice(0, 200)}`);
    }
    assert.deepEqual(fromText, sc, `${name}: text and structuredContent differ`);
    const nul = nullMember(sc, '');
    assert.equal(nul, undefined, `${name}: result carries a null member ${nul}`);
    succeeded.add(name);
    return sc;
  }

  // fails calls a tool that must fail and returns the error text.
  async function fails(name, args) {
    const res = await call(name, args);
    const text = res.content[0].text;
    assert.equal(res.isError, true, `${name}: succeeded, want a tool error: ${text.slice(0, 200)}`);
    assert.equal(res.structuredContent, undefined, `${name}: tool error carries structuredContent`);
    return text;
  }

  return { ok, fails, succeeded };
}

// nullMember returns the path of the first null inside v, if any.
function nullMember(v, path) {
  if (v === null) return path || '(root)';
  if (typeof v !== 'object') return undefined;
  for (const [k, x] of Object.entries(v)) {
    const found = nullMember(x, `${path}.${k}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

async function createMemo(c, content, visibility) {
  const m = await c.ok('memo_create_memo', { body: { content, visibility } });
  assert.match(m.name ?? '', /^memos\/./, `created memo name ${m.name}`);
  assert.equal(m.content, content, 'created memo content');
  return m.name;
}

// bareID drops the collection prefix of a resource name (memos/abc → abc).
const bareID = (name) => name.slice(name.indexOf('/') + 1);

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

  // The successful calls of test/e2e/tools_test.go (TestToolsMemos and
  // TestToolsAttachments), every one of the 20 generated tools at least once.
  tools: async (ctx) => {
    await listed(ctx);
    const c = toolCaller(ctx);

    const me = await c.ok('auth_get_current_user');
    const user = me.user?.name;
    assert.match(user ?? '', /^users\/./, `current user ${JSON.stringify(me)}`);
    // The saved filters' tool and member are the served release's (VIEWS_TOOL, VIEWS_KEY).
    const viewsTool = process.env.VIEWS_TOOL ?? 'shortcut_list_shortcuts';
    const viewsKey = process.env.VIEWS_KEY ?? 'shortcuts';
    const views = await c.ok(viewsTool, { user });
    assert.ok(views[viewsKey] === undefined || Array.isArray(views[viewsKey]), `${viewsKey} is a list`);

    const first = `first memo of the TS client tests #${RUN_TAG}`;
    const a = await createMemo(c, first, 'PRIVATE');
    const b = await createMemo(c, `second memo of the TS client tests #${RUN_TAG}`, 'PROTECTED');
    assert.equal((await c.ok('memo_get_memo', { memo: a })).content, first, 'get by name');
    assert.equal((await c.ok('memo_get_memo', { memo: bareID(b) })).name, b, 'get by id');

    // update with updateMask
    const edited = `first memo, edited #${RUN_TAG}`;
    const { contentHash } = await c.ok('memo_get_memo', { memo: a });
    let m = await c.ok('memo_update_memo', { memo: a, updateMask: 'content', contentHash, body: { content: edited } });
    assert.equal(m.content, edited, 'content after the update with updateMask');
    // update without updateMask
    m = await c.ok('memo_update_memo', { memo: a, body: { pinned: true, visibility: 'PROTECTED' } });
    assert.equal(m.pinned, true, 'pinned after the update without updateMask');
    assert.equal(m.visibility, 'PROTECTED', 'visibility after the update without updateMask');
    // location update
    const loc = { placeholder: 'Berlin', latitude: 52.52, longitude: 13.405 };
    await c.ok('memo_update_memo', { memo: a, body: { location: loc } });
    m = await c.ok('memo_get_memo', { memo: a });
    assert.deepEqual(m.location, loc, 'location after the update');
    assert.equal(m.content, edited, 'the location update left the content alone');

    // comments
    const cm = await c.ok('memo_create_memo_comment', { memo: a, body: { content: 'a comment' } });
    const comments = await c.ok('memo_list_memo_comments', { memo: a });
    assert.equal(comments.memos?.length, 1, `comments: ${JSON.stringify(comments)}`);
    assert.equal(comments.memos[0].name, cm.name, 'listed comment name');
    assert.equal(comments.memos[0].content, 'a comment', 'listed comment content');
    assert.equal((await c.ok('memo_get_memo', { memo: cm.name })).parent, a, "comment's parent");

    // reactions
    // REACTION_CONTENT_ID=false: the served release's reactions have no contentId.
    const reaction = process.env.REACTION_CONTENT_ID === 'false' ? { reactionType: '👍' } : { contentId: a, reactionType: '👍' };
    const r = await c.ok('memo_upsert_memo_reaction', { memo: a, body: { reaction } });
    assert.ok(r.name?.startsWith(`${a}/reactions/`), `reaction name ${r.name}`);
    assert.equal((await c.ok('memo_list_memo_reactions', { memo: a })).reactions?.length, 1, 'reactions after the upsert');
    await c.ok('memo_delete_memo_reaction', { memo: bareID(a), reaction: r.name });
    assert.equal((await c.ok('memo_list_memo_reactions', { memo: a })).reactions?.length ?? 0, 0, 'reactions after the delete');

    // relations
    const rel = { memo: { name: a }, relatedMemo: { name: b }, type: 'REFERENCE' };
    await c.ok('memo_set_memo_relations', { memo: a, body: { relations: [rel] } });
    const relations = await c.ok('memo_list_memo_relations', { memo: a });
    assert.ok(
      (relations.relations ?? []).some((x) => x.relatedMemo?.name === b && x.type === 'REFERENCE'),
      `relation to ${b} missing: ${JSON.stringify(relations)}`,
    );

    // filter and pagination
    const filter = `"${RUN_TAG}" in tags`;
    const page1 = await c.ok('memo_list_memos', { filter, pageSize: 1 });
    assert.equal(page1.memos?.length, 1, `first page: ${JSON.stringify(page1)}`);
    assert.ok(page1.nextPageToken, 'first page has a nextPageToken');
    const page2 = await c.ok('memo_list_memos', { filter, pageSize: 1, pageToken: page1.nextPageToken });
    assert.equal(page2.memos?.length, 1, `second page: ${JSON.stringify(page2)}`);
    assert.deepEqual(new Set([page1.memos[0].name, page2.memos[0].name]), new Set([a, b]), 'the two pages hold both memos');

    // attachments, created from base64 content; Memos v0.30.0 sends
    // "motionMedia": null on each
    const text = 'hello from the tool tests';
    const att = await c.ok('attachment_create_attachment', {
      body: { filename: 'hello.txt', type: 'text/plain', content: Buffer.from(text).toString('base64') },
    });
    assert.match(att.name ?? '', /^attachments\/./, `created attachment ${JSON.stringify(att)}`);
    assert.equal(att.size, String(Buffer.byteLength(text)), 'attachment size');
    const withAtt = await createMemo(c, 'memo with an attachment', 'PRIVATE');
    await c.ok('memo_set_memo_attachments', {
      memo: withAtt, body: { attachments: [{ name: att.name }] },
    });
    const onMemo = await c.ok('memo_list_memo_attachments', { memo: withAtt });
    assert.equal(onMemo.attachments?.length, 1, `memo attachments: ${JSON.stringify(onMemo)}`);
    assert.equal(onMemo.attachments[0].name, att.name, 'memo attachment name');
    assert.equal((await c.ok('memo_get_memo', { memo: withAtt })).attachments?.[0]?.name, att.name, 'memo carries the attachment');
    const all = await c.ok('attachment_list_attachments', { pageSize: 50 });
    assert.ok((all.attachments ?? []).some((x) => x.name === att.name), `attachment ${att.name} not listed`);
    const got = await c.ok('attachment_get_attachment', { attachment: bareID(att.name) });
    assert.equal(got.filename, 'hello.txt', 'attachment filename');
    assert.equal(got.memo, withAtt, 'attachment memo');
    await c.ok('attachment_delete_attachment', { attachment: att.name });
    assert.match(await c.fails('attachment_get_attachment', { attachment: att.name }), /^404 Not Found/, 'get of a deleted attachment');

    // delete
    await c.ok('memo_delete_memo', { memo: b });
    assert.match(await c.fails('memo_get_memo', { memo: b }), /^404 Not Found/, 'get of a deleted memo');

    const missing = ctx.tools.map((t) => t.name).filter((n) => !c.succeeded.has(n) && !FINDER_TOOLS.includes(n));
    assert.deepEqual(missing, [], 'tools never called successfully');
    console.log(`  ${c.succeeded.size} tools called successfully, every result validated by the SDK`);
  },

  // The hand-written tools: those that answer in text alone with one JSON
  // text item and no structuredContent, the others validated by the SDK
  // against their outputSchema: memo_search with its passages, tag_list,
  // ChatGPT's search and fetch in OpenAI's shapes, an image attachment read
  // back as MCP image content, and memo_edit adding a task and checking it.
  finder: async (ctx) => {
    await listed(ctx);
    const call = async (name, args) => {
      const res = await ctx.client.callTool({ name, arguments: args });
      assert.ok(!res.isError, `${name}: tool error: ${res.content?.[0]?.text}`);
      assert.equal(res.content[0].type, 'text', `${name}: the first item is text`);
      res.answer = JSON.parse(res.content[0].text);
      if (TEXT_TOOLS.includes(name)) {
        assert.equal(res.content.length, 1, `${name}: the text alone`);
        assert.equal(res.structuredContent, undefined, `${name}: structuredContent beside the text`);
      } else {
        assert.deepEqual(res.answer, res.structuredContent, `${name}: text and structuredContent differ`);
      }
      return res;
    };
    const c = toolCaller(ctx);
    // Long, with the fact past its first line: the hit shows the line that
    // matched, marked cut.
    const content = `Visit notes\n${'we met and talked it through. '.repeat(60)}\nThe boiler needs 1.5 bar #${RUN_TAG}/home`;
    const memo = (await c.ok('memo_create_memo', { body: { content } })).name;

    let res = await call('memo_search', { text: 'BOILER', tags: [RUN_TAG] });
    assert.deepEqual(res.answer.memos.map((m) => m.name), [memo], 'memo_search finds the memo by a word and its parent tag');
    const hit = res.answer.memos[0];
    assert.ok(hit.cut && hit.text.includes(`The boiler needs 1.5 bar #${RUN_TAG}/home`), `memo_search shows the line that matched: ${hit.text}`);

    res = await call('tag_list', {});
    assert.ok(res.answer.tags.some((t) => t.tag === `${RUN_TAG}/home` && t.count === 1), 'tag_list counts the tag');

    res = await call('search', { query: `boiler #${RUN_TAG}` });
    const found = res.answer;
    assert.deepEqual(Object.keys(found), ['results'], 'search: {results}');
    assert.equal(found.results.length, 1, 'search finds the memo');
    assert.deepEqual(Object.keys(found.results[0]).sort(), ['id', 'title', 'url'], 'search result members');
    res = await call('fetch', { id: found.results[0].id });
    const doc = res.answer;
    assert.deepEqual(Object.keys(doc).sort(), ['id', 'metadata', 'text', 'title', 'url'], 'fetch members');
    assert.equal(doc.text, content, 'fetch text');

    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const att = await c.ok('attachment_create_attachment', { body: { filename: 'dot.png', type: 'image/png', content: png } });
    res = await call('attachment_read', { name: att.name });
    assert.equal(res.content.length, 2, 'attachment_read: a description and the image');
    const img = res.content[1];
    assert.equal(img.type, 'image', 'the attachment comes back as image content');
    assert.match(img.mimeType, /^image\//, 'with an image MIME type');
    assert.ok(Buffer.from(img.data, 'base64').length > 0, 'with base64 data');
    console.log(`  image content: ${img.mimeType}, ${Buffer.from(img.data, 'base64').length} bytes`);

    res = await call('memo_edit', { memo, append: '- [ ] check the pressure' });
    assert.deepEqual(res.structuredContent.undo, { replace: { old: '\n- [ ] check the pressure', new: '' } }, 'memo_edit returns its undo');
    res = await call('memo_edit', { memo, check: 'the pressure', contentHash: res.structuredContent.contentHash });
    assert.equal(res.structuredContent.new, '- [x] check the pressure', 'memo_edit checks the task');
    assert.equal((await c.ok('memo_get_memo', { memo })).content, `${content}\n- [x] check the pressure`, 'memo_edit wrote both changes');
    await c.ok('memo_delete_memo', { memo });
  },

  // Memos' refusals come back as tool errors: "<code> <reason>: <message>".
  'tool-errors': async (ctx) => {
    await listed(ctx);
    const c = toolCaller(ctx);
    assert.equal(await c.fails('memo_get_memo', { memo: 'memos/doesnotexist' }), '404 Not Found: memo not found', 'unknown memo');

    // A token Memos does not know is refused when the client connects, with
    // the 401 that makes clients ask for new credentials: never an
    // anonymous session that looks like an empty notebook.
    await assert.rejects(
      connect(ctx.url, 'memos_pat_not-a-real-token'),
      (err) => (err?.code === 401 || /\b401\b/.test(String(err?.message))) && /invalid_token/.test(String(err?.message)),
      'bad token',
    );
  },
};

// Resources, prompts and completions, each result checked by the SDK's own
// zod schemas.
scenarios.resources = async (ctx) => {
  const c = toolCaller(ctx);
  await listed(ctx);
  const tag = `e2ets/${RUN_TAG}`;
  const content = `# Resource from the TS client\nnotes #${tag}`;
  const memo = await createMemo(c, content, 'PRIVATE');
  const text = 'hello from the TS client';
  const att = await c.ok('attachment_create_attachment', {
    body: { filename: 'ts.txt', type: 'text/plain', content: Buffer.from(text).toString('base64') },
  });
  await c.ok('memo_set_memo_attachments', {
    memo, body: { attachments: [{ name: att.name }] },
  });

  const { resourceTemplates } = await ctx.client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['memo://memos/{id}', 'memo://attachments/{id}'], 'templates');
  const uri = `memo://memos/${bareID(memo)}`;
  const { resources } = await ctx.client.listResources();
  const listedMemo = resources.find((r) => r.uri === uri);
  assert.ok(listedMemo, `${uri} not on the first page of ${resources.length}`);
  assert.equal(listedMemo.title, 'Resource from the TS client', 'listed title');
  const read = await ctx.client.readResource({ uri });
  assert.equal(read.contents.length, 1, 'one content');
  assert.equal(read.contents[0].mimeType, 'text/markdown', 'memo mime type');
  assert.ok(read.contents[0].text.startsWith(`---\nname: ${memo}\n`), `front matter: ${read.contents[0].text.slice(0, 200)}`);
  assert.ok(read.contents[0].text.endsWith(`---\n\n${content}`), 'content after the front matter');
  const file = await ctx.client.readResource({ uri: `memo://attachments/${bareID(att.name)}` });
  assert.equal(file.contents[0].text, text, 'attachment text');
  await assert.rejects(ctx.client.readResource({ uri: 'memo://memos/doesnotexist' }), (err) => err.code === -32002, 'unknown memo');

  const { prompts } = await ctx.client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ['capture', 'daily_review', 'on_this_day', 'find'], 'prompts');
  const review = await ctx.client.getPrompt({ name: 'daily_review', arguments: { days: '7' } });
  assert.equal(review.messages[0].role, 'user', 'prompt message role');
  assert.match(review.messages[0].content.text, /the last 7 days/, 'days in the prompt');
  await assert.rejects(ctx.client.getPrompt({ name: 'find', arguments: {} }), (err) => err.code === -32602, 'find without what');

  const done = await ctx.client.complete({
    ref: { type: 'ref/prompt', name: 'capture' }, argument: { name: 'tags', value: 'e2ets/' },
  });
  assert.ok(done.completion.values.includes(tag), `tag completion: ${JSON.stringify(done.completion)}`);
  console.log(`  ${resources.length} resources listed, 2 read, ${prompts.length} prompts, ${done.completion.values.length} tags completed`);
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

  const conn = await connect(url, token);
  const { client, transport } = conn;
  const server = client.getServerVersion();
  console.log(`connected to ${server?.name} ${server?.version}`);
  console.log(`negotiated protocol version: ${transport.protocolVersion}`);

  // The context is the connection itself, so ctx.lastBody stays current.
  const ctx = Object.assign(conn, { url, tools: [] });
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

// connect opens an SDK client to url with a bearer token. The returned
// object's lastBody is the raw text of the last JSON answer.
async function connect(url, token) {
  const conn = { lastBody: undefined };
  conn.transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if ((res.headers.get('content-type') ?? '').startsWith('application/json')) {
        conn.lastBody = await res.clone().text();
      }
      return res;
    },
  });
  conn.client = new Client({ name: 'memos-mcp-edge-e2e-ts', version: '0.0.0' });
  // connect runs initialize and notifications/initialized, then opens the
  // optional GET stream (a 405 is accepted).
  await conn.client.connect(conn.transport);
  return conn;
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
