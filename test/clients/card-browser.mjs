// The memo card in a real browser: headless Chromium shows it in a host
// page built on the host side of @modelcontextprotocol/ext-apps
// (card-host.mjs), against the real Worker and Memos, as a host of MCP
// Apps would. As a client of 2026-07-28 that declares the extension (or,
// with ERA=legacy, one of 2025-11-25 that declares it in initialize) it
// finds the card in tools/list and reads it; the host page serves it from
// another origin with the CSP its resource declares, and forwards the
// card's tools/call to the Worker. Then, for each card:
//   garden  memo_get_memo of a memo with tasks, tags, a comment and an
//           image: it renders them, the thumbnail from attachment_read's
//           bytes; a click on a box ticks the task in Memos; a link opens
//           through the host; after an edit elsewhere a second tick is
//           refused and the box goes back, and so is one the host sends to
//           a READ_ONLY deployment (READONLY_URL);
//   fetch   fetch's memo, as the same card;
//   search  memo_search's hits;
//   tags    tag_list's tags, as a cloud;
//   hostile memo_get_memo of a memo of HTML, a javascript: link and a bidi
//           override: all of it shown as text, nothing of it run.
// Screenshots go to SHOTS (memo-card*.png).
//
//   MCP_URL=… READONLY_URL=… TOKEN=… MEMOS_URL=… GARDEN=memos/… HOSTILE=memos/… TAG=… \
//   CHROMIUM=/usr/bin/chromium SHOTS=dir [ERA=legacy] node test/clients/card-browser.mjs
//
// Prints "ok <check>" per check; exit status 0 when all passed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';
import { openChromium } from './chromium.mjs';

const { MCP_URL, READONLY_URL, TOKEN, MEMOS_URL, GARDEN, HOSTILE, TAG, SHOTS, ERA } = process.env;
const legacy = ERA === 'legacy';
const ui = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

// One request of 2026-07-28 to the Worker, with the client's capabilities;
// with ERA=legacy one of 2025-11-25, whose capabilities went with
// initialize alone.
let rpcId = 0;
async function rpc(method, params, name, caps = ui, url = MCP_URL) {
  if (legacy) {
    const r = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, 'mcp-protocol-version': '2025-11-25' } });
    return r.json();
  }
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (name) headers['mcp-name'] = name;
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'card-test-host', version: '1' } };
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params: { ...params, _meta } }) });
  return r.json();
}
const callTool = (name, args, url) => rpc('tools/call', { name, arguments: args }, name, ui, url);
// forward is the deployment the host page sends the card's calls to.
let forward = MCP_URL;

// Servers on two ports of 127.0.0.1: the host page on one, the card on the
// other (another origin, as a host serves views).
function serve(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
function bodyOf(req) {
  return new Promise((resolve) => { let b = ''; req.on('data', (d) => { b += d; }); req.on('end', () => resolve(b)); });
}

let cardHTML, cardCSP, hostScript;
const cases = {}; // case name → the tool call the page shows
const calls = []; // the tools the card called through the host
const cardServer = await serve((req, res) => {
  if (req.url !== '/card') { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': cardCSP }).end(cardHTML);
});
const hostServer = await serve(async (req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  if (u.pathname === '/favicon.ico') { res.writeHead(204).end(); return; }
  if (req.method === 'POST' && u.pathname === '/call') {
    const { name, arguments: args } = JSON.parse(await bodyOf(req));
    calls.push(name);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await callTool(name, args, forward)));
    return;
  }
  const call = cases[u.searchParams.get('case')];
  if (u.pathname !== '/' || !call) { res.writeHead(404).end(); return; }
  const json = JSON.stringify(call).replace(/</g, '\\u003c');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0;padding:12px;background:#eceae6;font:14px system-ui}iframe{display:block;width:600px;height:200px;border:1px solid #d0ccc4;border-radius:10px;background:#fff}</style></head>
<body><iframe id="card" sandbox="allow-scripts" title="memo card" data-src="http://127.0.0.1:${cardServer.address().port}/card"></iframe>
<script type="application/json" id="call">${json}</script><script type="module">${hostScript}</script></body></html>`);
});
const hostURL = `http://127.0.0.1:${hostServer.address().port}/`;

const browser = await openChromium(process.env.CHROMIUM, ['--disable-features=IsolateSandboxedIframes']);
const problems = [];
browser.listeners.push((msg) => {
  if (msg.method === 'Runtime.exceptionThrown') problems.push(`exception: ${msg.params.exceptionDetails.exception?.description ?? msg.params.exceptionDetails.text}`);
  if (msg.method === 'Log.entryAdded' && msg.params.entry.level === 'error') problems.push(`log: ${msg.params.entry.text}`);
  if (msg.method === 'Runtime.consoleAPICalled' && msg.params.type === 'error') problems.push(`console.error: ${msg.params.args.map((a) => a.value ?? a.description).join(' ')}`);
});

async function until(what, check) {
  for (let i = 0; i < 150; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main() {
  // The card as tools/list names it and resources/read serves it.
  if (legacy) {
    const init = await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: ui, clientInfo: { name: 'card-test-host', version: '1' } });
    assert.ok(init.result.capabilities.extensions?.['io.modelcontextprotocol/ui'], 'initialize does not name the extension');
  }
  const listed = await rpc('tools/list', {});
  const named = listed.result.tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => t.name).sort();
  assert.deepEqual(named, ['fetch', 'memo_get_memo', 'memo_search', 'tag_list']);
  const uri = listed.result.tools.find((t) => t.name === 'memo_get_memo')._meta.ui.resourceUri;
  if (!legacy) {
    const plain = JSON.stringify(await rpc('tools/list', {}, undefined, {}));
    assert.ok(!plain.includes('ui://'), 'a client without the extension sees the card');
    console.log(`note tools/list: ${plain.length} bytes without the extension, ${JSON.stringify(listed).length} with it`);
  }
  const read = await rpc('resources/read', { uri }, uri);
  const content = read.result.contents[0];
  assert.equal(content.mimeType, 'text/html;profile=mcp-app');
  const csp = content._meta.ui.csp;
  for (const k of ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']) assert.deepEqual(csp[k], [], `csp.${k}`);
  // What a host makes of an empty csp (SEP-1865): no origin but the card's own document.
  cardCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'";
  cardHTML = content.text;
  console.log(`ok   tools/list names the card, resources/read serves it (${cardHTML.length} bytes, no outside origin)`);

  const bundle = await build({ entryPoints: [new URL('./card-host.mjs', import.meta.url).pathname], bundle: true, format: 'esm', write: false, minify: true, logLevel: 'error' });
  hostScript = bundle.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');

  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method, params) => browser.send(method, params, sessionId);
  const contexts = new Map(); // frame id → its default execution context
  browser.listeners.push((msg) => {
    if (msg.sessionId === sessionId && msg.method === 'Runtime.executionContextCreated' && msg.params.context.auxData?.isDefault) {
      contexts.set(msg.params.context.auxData.frameId, msg.params.context.id);
    }
  });
  await page('Page.enable');
  await page('Runtime.enable');
  await page('Log.enable');
  await page('Emulation.setDeviceMetricsOverride', { width: 640, height: 900, deviceScaleFactor: 1, mobile: false });

  // evaluate runs expression in the host page (frame undefined) or the card.
  const evaluate = async (expression, contextId) => {
    const r = await page('Runtime.evaluate', { expression, contextId, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  };
  // open shows a case's card and returns its context once it has rendered.
  const open = async (name) => {
    contexts.clear();
    const loaded = browser.waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', `the ${name} page`);
    await page('Page.navigate', { url: `${hostURL}?case=${name}` });
    await loaded;
    const { frameTree } = await page('Page.getFrameTree');
    const frameId = frameTree.childFrames?.[0]?.frame.id;
    assert.ok(frameId, 'the host page has no card frame');
    // The frame shows about:blank first: its context is the card's once
    // the card has rendered there.
    return until(`the ${name} card`, async () => {
      const card = contexts.get(frameId);
      const shown = card && await evaluate(`!!document.querySelector('#card article, #card .cloud')`, card).catch(() => false);
      return shown && card;
    });
  };
  // click clicks an element of the card with the mouse, as a person does.
  const click = async (card, selector) => {
    const box = await evaluate(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, card);
    const frame = await evaluate(`(() => { const r = document.getElementById('card').getBoundingClientRect(); return [r.x + 1, r.y + 1]; })()`);
    const x = frame[0] + box[0], y = frame[1] + box[1];
    for (const type of ['mousePressed', 'mouseReleased']) await page('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
  };
  const shoot = async (file) => {
    const r = await evaluate(`(() => { const r = document.getElementById('card').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`);
    const shot = await page('Page.captureScreenshot', { format: 'png', clip: { x: r[0] - 8, y: r[1] - 8, width: r[2] + 16, height: r[3] + 16, scale: 1 } });
    mkdirSync(SHOTS, { recursive: true }); // a make build meanwhile empties build/
    writeFileSync(join(SHOTS, file), Buffer.from(shot.data, 'base64'));
  };

  // The memo with tasks, tags, a comment and an image.
  const id = GARDEN.replace(/^memos\//, '');
  cases.garden = { arguments: { memo: GARDEN }, result: (await callTool('memo_get_memo', { memo: GARDEN })).result };
  let card = await open('garden');
  const seen = await evaluate(`({
    heading: document.querySelector('.text h1')?.textContent,
    tags: [...document.querySelectorAll('.tag')].map((t) => t.textContent),
    boxes: [...document.querySelectorAll('input[type=checkbox]')].map((b) => b.checked),
    foot: document.querySelector('.foot').textContent,
    badges: [...document.querySelectorAll('.badge')].map((b) => b.textContent),
    code: document.querySelector('pre code')?.textContent,
  })`, card);
  assert.equal(seen.heading, 'Garden plan');
  assert.deepEqual(seen.tags, [`#${TAG}`, '#frost']);
  assert.deepEqual(seen.boxes, [false, true, false]);
  assert.match(seen.foot, /1 comment/);
  assert.match(seen.foot, /Open in Memos/);
  assert.deepEqual(seen.badges, ['protected', 'pinned']);
  assert.equal(seen.code, 'spacing: 10 cm');
  console.log('ok   the card shows the heading, tags, tasks, code, visibility, pinned and the comment');
  const thumb = await until('the thumbnail', () => evaluate(`(() => { const i = document.querySelector('.file img'); return i && i.complete && i.naturalWidth > 0 && i.src.slice(0, 30); })()`, card));
  assert.match(thumb, /^data:image\/(png|jpeg);base64,/);
  assert.deepEqual(calls, ['attachment_read']);
  console.log('ok   the image shows from attachment_read\'s bytes, called through the host');
  await shoot('memo-card.png');

  await click(card, 'input[data-task="0"]');
  const ticked = await until('the tick', () => evaluate(`document.querySelector('.status').textContent`, card));
  assert.equal(ticked, 'Ticked in Memos.');
  assert.deepEqual(calls, ['attachment_read', 'memo_edit']);
  console.log('ok   a click on the first box ticks the task through the host (memo_edit)');

  await click(card, '.text a');
  await until('the link', () => evaluate('window.host.opened.length'));
  assert.deepEqual(await evaluate('window.host.opened'), ['https://example.com/tulips']);
  assert.equal(await evaluate('location.href', card), `http://127.0.0.1:${cardServer.address().port}/card`);
  console.log('ok   a link opens through the host (ui/open-link), not in the card');

  // Someone edits the memo elsewhere: the card's next tick is refused.
  const current = await (await fetch(`${MEMOS_URL}/api/v1/memos/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
  const patched = await fetch(`${MEMOS_URL}/api/v1/memos/${id}?updateMask=content`, {
    method: 'PATCH', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: `${current.content}\n\nEdited elsewhere.` }),
  });
  assert.equal(patched.status, 200);
  await click(card, 'input[data-task="2"]');
  const refused = await until('the refusal', () => evaluate(`(() => { const s = document.querySelector('.status'); return s.classList.contains('bad') && s.textContent; })()`, card));
  assert.match(refused, /^Not changed: /);
  assert.equal(await evaluate(`document.querySelector('input[data-task="2"]').checked`, card), false);
  console.log(`ok   after an edit elsewhere the next tick is refused and shown: ${refused.slice(0, 100)}`);

  // The same card, its calls sent to a READ_ONLY deployment: refused.
  cases.garden.result = (await callTool('memo_get_memo', { memo: GARDEN })).result;
  card = await open('garden');
  forward = READONLY_URL;
  await click(card, 'input[data-task="2"]');
  const readOnly = await until('the read-only refusal', () => evaluate(`(() => { const s = document.querySelector('.status'); return s.classList.contains('bad') && s.textContent; })()`, card));
  assert.match(readOnly, /^Not changed: .*(read-only|READ_ONLY|not served|unknown tool)/i);
  assert.equal(await evaluate(`document.querySelector('input[data-task="2"]').checked`, card), false);
  forward = MCP_URL;
  console.log(`ok   a tick sent to a READ_ONLY deployment is refused and shown: ${readOnly.slice(0, 100)}`);

  // fetch's memo: the same card, its link the answer's url.
  cases.fetch = { arguments: { id }, result: (await callTool('fetch', { id })).result };
  card = await open('fetch');
  const fetched = await evaluate(`({
    heading: document.querySelector('.text h1')?.textContent,
    boxes: [...document.querySelectorAll('input[type=checkbox]')].map((b) => b.checked && !b.disabled),
    link: document.querySelector('.foot a')?.getAttribute('href'),
    files: [...document.querySelectorAll('.file span')].map((f) => f.textContent),
  })`, card);
  assert.equal(fetched.heading, 'Garden plan');
  assert.deepEqual(fetched.boxes, [true, true, false]);
  assert.equal(fetched.link, cases.fetch.result.structuredContent?.url ?? JSON.parse(cases.fetch.result.content[0].text).url);
  assert.deepEqual(fetched.files, ['beds.png']);
  console.log('ok   fetch\'s memo shows as the same card');

  // The results list.
  calls.length = 0;
  cases.search = { arguments: { tags: [TAG] }, result: (await callTool('memo_search', { tags: [TAG] })).result };
  card = await open('search');
  const hits = await evaluate(`[...document.querySelectorAll('article.memo')].map((a) => a.querySelector('.text').textContent)`, card);
  assert.ok(hits.length >= 1 && hits.some((h) => h.includes('tulip')), `hits: ${hits}`);
  assert.equal(await evaluate(`[...document.querySelectorAll('input[type=checkbox]')].every((b) => b.disabled)`, card), true);
  await shoot('memo-card-search.png');
  console.log(`ok   memo_search's hits show as a list (${hits.length})`);

  // tag_list's tags as a cloud.
  cases.tags = { arguments: { limit: 30 }, result: (await callTool('tag_list', { limit: 30 })).result };
  card = await open('tags');
  const cloud = await evaluate(`[...document.querySelectorAll('.cloud .tag')].map((t) => t.firstChild.textContent)`, card);
  assert.ok(cloud.includes(`#${TAG}`) && cloud.includes('#frost'), `the cloud: ${cloud}`);
  await shoot('memo-card-tags.png');
  console.log(`ok   tag_list's tags show as a cloud (${cloud.length})`);

  // The hostile memo: every piece of it shown, none of it run.
  cases.hostile = { arguments: { memo: HOSTILE }, result: (await callTool('memo_get_memo', { memo: HOSTILE })).result };
  card = await open('hostile');
  const hostile = await evaluate(`({
    title: document.title,
    elements: [...document.querySelectorAll('#card script, #card img, #card iframe, #card svg, #card [onerror], #card [onclick]')].length,
    links: [...document.querySelectorAll('#card a')].map((a) => a.getAttribute('href')).filter((h) => !/^https?:/.test(h)),
    text: document.querySelector('.text').innerText,
    hidden: [...document.querySelectorAll('.ctl')].map((c) => c.textContent),
    pwned: window.pwned === true,
  })`, card);
  assert.equal(hostile.title, 'Memo');
  assert.equal(hostile.elements, 0);
  assert.deepEqual(hostile.links, []);
  assert.equal(hostile.pwned, false);
  for (const s of ['<script>', '<img src=x onerror=', '[click me](javascript:']) assert.ok(hostile.text.includes(s), `the text lacks ${s}: ${hostile.text}`);
  assert.deepEqual(hostile.hidden, ['U+202E']);
  assert.deepEqual(calls, [], 'the hostile memo made the card call a tool');
  assert.equal(await evaluate('document.title'), 'host');
  await shoot('memo-card-hostile.png');
  console.log('ok   the hostile memo renders inert and visible');
  assert.deepEqual(problems, [], 'console errors');
  console.log('ok   no console error, no exception, no CSP violation');
}

let status = 0;
try {
  await main();
} catch (err) {
  console.log(`FAIL ${err.stack ?? err}`);
  if (problems.length) console.log(`problems: ${problems.join('\n')}`);
  status = 1;
}
await browser.close();
hostServer.close();
cardServer.close();
process.exit(status);
