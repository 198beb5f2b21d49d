// Opens the gateway's consent page in headless Chromium, as a person on a
// phone would, with JavaScript off, and drives it over the DevTools protocol:
// every form control must have an accessible name, Tab must reach each of
// them, the page must log no console error (a CSP violation included), and
// filling it in by keyboard and pressing Enter must send the browser to the
// client's redirect URI with a code. A screenshot is written to SCREENSHOT.
// Then, on a second request, the person picks Read only and 30 days and
// types a wrong password: the page that comes back must still show those
// choices and the username, and the right password then gives a read-only
// grant. With Read only chosen, no sentence on the page may say that the
// app will write.
//
//   BASE_URL=http://localhost:8787 MEMOS_USERNAME=… MEMOS_PASSWORD=… \
//   CHROMIUM=/usr/bin/chromium SCREENSHOT=consent.png node test/clients/consent-browser.mjs
//
// Prints "ok <check>" per check; exit status 0 when all passed.

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import process from 'node:process';
import { openChromium } from './chromium.mjs';

const base = process.env.BASE_URL;

// The client's redirect URI: a loopback server that records the code.
let received;
const callbackServer = http.createServer((req, res) => {
  received = new URL(req.url, 'http://127.0.0.1');
  res.setHeader('content-type', 'text/plain');
  res.end('signed in');
});
await new Promise((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
const redirectUri = `http://127.0.0.1:${callbackServer.address().port}/callback`;

// A registered client and an authorization URL with PKCE.
const registration = await (await fetch(new URL('/register', base), {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ client_name: 'Browser Test', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
})).json();
const verifier = randomBytes(32).toString('base64url');
const authorizeUrl = new URL('/authorize', base);
authorizeUrl.search = new URLSearchParams({
  response_type: 'code', client_id: registration.client_id, redirect_uri: redirectUri, state: 'browser-state',
  code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
}).toString();

// Chromium, headless, driven over the DevTools protocol (chromium.mjs).
const browser = await openChromium(process.env.CHROMIUM);
const { send, waitFor, listeners } = browser;

const problems = [];
listeners.push((msg) => {
  if (msg.method === 'Log.entryAdded' && msg.params.entry.level === 'error') problems.push(`log: ${msg.params.entry.text}`);
  if (msg.method === 'Runtime.exceptionThrown') problems.push(`exception: ${msg.params.exceptionDetails.text}`);
  if (msg.method === 'Runtime.consoleAPICalled' && msg.params.type === 'error') problems.push('console.error');
});

async function main() {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page('Page.enable');
  await page('Log.enable');
  await page('Runtime.enable');
  await page('Accessibility.enable');
  await page('Emulation.setScriptExecutionDisabled', { value: true });
  await page('Emulation.setDeviceMetricsOverride', { width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
  await page('Emulation.setFocusEmulationEnabled', { enabled: true }); // a headless page has no window focus
  await page('Page.bringToFront');

  const loaded = waitFor((m) => m.method === 'Page.loadEventFired' && m.sessionId === sessionId, 'the consent page');
  await page('Page.navigate', { url: authorizeUrl.href });
  await loaded;

  // Every form control has an accessible name.
  const { nodes } = await page('Accessibility.getFullAXTree');
  const controls = nodes.filter((n) => ['textbox', 'combobox', 'radio', 'button'].includes(n.role?.value) && !n.ignored);
  const names = controls.map((n) => `${n.role.value}:${n.name?.value ?? ''}`);
  for (const n of controls) assert.ok(n.name?.value, `a ${n.role.value} without an accessible name`);
  for (const want of ['radio:Read and write memos', 'radio:Read only', 'textbox:Username', 'textbox:Password', 'textbox:Access token', 'button:Allow', 'button:Deny']) {
    assert.ok(names.includes(want), `no ${want} among ${names.join(', ')}`);
  }
  assert.ok(names.some((n) => n.startsWith('combobox:')), `no labelled expiry choice among ${names.join(', ')}`);
  console.log(`ok   labelled (${controls.length} controls)`);

  const shot = await page('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  if (process.env.SCREENSHOT) writeFileSync(process.env.SCREENSHOT, Buffer.from(shot.data, 'base64'));
  console.log('ok   screenshot');

  // On a phone's screen (390×844) the Allow button shows without scrolling.
  {
    const { root } = await page('DOM.getDocument');
    const { nodeId } = await page('DOM.querySelector', { nodeId: root.nodeId, selector: 'button[value=allow]' });
    const { model } = await page('DOM.getBoxModel', { nodeId });
    const bottom = Math.max(model.border[5], model.border[7]);
    assert.ok(bottom <= 844, `the Allow button ends ${bottom} px down the page, below a 844 px screen`);
    console.log(`ok   Allow on the first screen (ends ${Math.round(bottom)} px down)`);
  }

  // Keyboard only: Tab through the page, type into the fields, Enter.
  const focused = async () => {
    const { nodes } = await page('Accessibility.getFullAXTree');
    // The page itself counts as focused too: the control is the other node.
    const n = nodes.find((x) => x.role?.value !== 'RootWebArea' && x.properties?.some((p) => p.name === 'focused' && p.value.value));
    return n ? `${n.role?.value}:${n.name?.value ?? ''}` : '';
  };
  const key = async (k, code, keyCode, text) => {
    await page('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', key: k, code, windowsVirtualKeyCode: keyCode, text });
    await page('Input.dispatchKeyEvent', { type: 'keyUp', key: k, code, windowsVirtualKeyCode: keyCode });
  };
  const visited = [];
  const typed = { 'textbox:Username': process.env.MEMOS_USERNAME, 'textbox:Password': process.env.MEMOS_PASSWORD };
  for (let i = 0; i < 12 && !visited.includes('button:Allow'); i++) {
    await key('Tab', 'Tab', 9);
    const now = await focused();
    visited.push(now);
    if (typed[now]) await page('Input.insertText', { text: typed[now] });
  }
  for (const want of ['radio:Read and write memos', 'textbox:Username', 'textbox:Password', 'textbox:Access token', 'button:Allow']) {
    assert.ok(visited.includes(want), `Tab never reached ${want}: ${visited.join(' → ')}`);
  }
  console.log(`ok   keyboard (${visited.join(' → ')})`);

  const left = waitFor((m) => m.method === 'Page.frameNavigated' && m.params.frame.url.startsWith(redirectUri), 'the redirect to the client');
  await key('Enter', 'Enter', 13, '\r');
  await left.catch(async (err) => {
    const { root } = await page('DOM.getDocument');
    const { outerHTML } = await page('DOM.getOuterHTML', { nodeId: root.nodeId });
    throw new Error(`${err.message}; the browser shows: ${outerHTML.replace(/<style>[^]*<\/style>/, '').slice(0, 600)}`);
  });
  assert.equal(received?.searchParams.get('state'), 'browser-state');
  assert.ok(received?.searchParams.get('code')?.startsWith('mme-code-'), `the client got ${received}`);
  console.log('ok   submitted without JavaScript');

  assert.deepEqual(problems, [], 'console errors');
  console.log('ok   no console errors');

  // The page that says the password was wrong comes with status 400, which
  // the browser logs; nothing else may be logged.
  await wrongPasswordKeepsChoices(page);
  const expected = 'log: Failed to load resource: the server responded with a status of 400 (Bad Request)';
  assert.deepEqual(problems.filter((p) => p !== expected), [], 'console errors after a wrong password');
}

// An authorization URL for state, with the test's PKCE challenge.
function authorizationUrl(state) {
  const u = new URL(authorizeUrl);
  u.searchParams.set('state', state);
  return u.href;
}

// focus puts the keyboard focus on the element selector finds.
async function focus(page, selector) {
  const { root } = await page('DOM.getDocument');
  const { nodeId } = await page('DOM.querySelector', { nodeId: root.nodeId, selector });
  assert.ok(nodeId, `no ${selector} on the page`);
  await page('DOM.focus', { nodeId });
}

// textOf returns the words the page shows, without its markup and style.
async function textOf(page) {
  const { root } = await page('DOM.getDocument');
  const { outerHTML } = await page('DOM.getOuterHTML', { nodeId: root.nodeId });
  return outerHTML.replace(/<style>[^]*<\/style>/, '').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
}

// saysTheChoice checks that, with Read only chosen, no sentence of the page
// says the app will write: the page, without script, cannot change its
// words as the choice changes, so they must hold for either choice.
async function saysTheChoice(page, when) {
  const text = await textOf(page);
  assert.doesNotMatch(text, /will (read and )?write/i, `${when}, the page says the app will write: ${text}`);
  assert.match(text, /It asks to read and write memos as you on .+?; you choose below\. .*What it may do Read and write memos Read only /, `${when}, the page does not say that the person chooses, and what: ${text}`);
}

// shown returns what the page's controls show, by accessible name: a
// radio's checked state, a field's or a choice's value.
async function shown(page) {
  const { nodes } = await page('Accessibility.getFullAXTree');
  const out = {};
  for (const n of nodes) {
    const role = n.role?.value, name = n.name?.value;
    if (role === 'radio') out[name] = n.properties?.find((p) => p.name === 'checked')?.value.value;
    if (role === 'textbox' || role === 'combobox') out[name] = n.value?.value ?? '';
  }
  return out;
}

async function wrongPasswordKeepsChoices(page) {
  const press = async (k, code, keyCode, text) => {
    await page('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', key: k, code, windowsVirtualKeyCode: keyCode, text });
    await page('Input.dispatchKeyEvent', { type: 'keyUp', key: k, code, windowsVirtualKeyCode: keyCode });
  };
  // The consent page loaded: its navigation, then the next load event (the
  // client's page of the first part may still be loading).
  const loaded = () => {
    let committed = false;
    return waitFor((m) => {
      if (m.method === 'Page.frameNavigated' && !m.params.frame.parentId) committed = m.params.frame.url.startsWith(`${new URL('/authorize', base)}`);
      return committed && m.method === 'Page.loadEventFired';
    }, 'the consent page');
  };
  let next = loaded();
  await page('Page.navigate', { url: authorizationUrl('second-state') });
  await next;
  await focus(page, '#access-read');
  await press(' ', 'Space', 32, ' ');
  await focus(page, '#days');
  await press('Home', 'Home', 36); // the first choice: 30 days
  await focus(page, '#username');
  await page('Input.insertText', { text: process.env.MEMOS_USERNAME });
  await focus(page, '#password');
  await page('Input.insertText', { text: `${process.env.MEMOS_PASSWORD}-wrong` });
  const before = await shown(page);
  assert.equal(before['Read only'], 'true', `Read only was not chosen: ${JSON.stringify(before)}`);
  assert.equal(before['For how long'], '30 days', `30 days was not chosen: ${JSON.stringify(before)}`);
  await saysTheChoice(page, 'with Read only chosen');
  next = loaded();
  await press('Enter', 'Enter', 13, '\r');
  await next;

  const { root } = await page('DOM.getDocument');
  const { outerHTML } = await page('DOM.getOuterHTML', { nodeId: root.nodeId });
  assert.match(outerHTML, /did not accept this username and password/, 'the page shown again says the password was refused');
  const after = await shown(page);
  const expiry = 'For how long';
  assert.equal(after['Read only'], 'true', `after a wrong password Read only is no longer chosen: ${JSON.stringify(after)}`);
  assert.equal(after['Read and write memos'], 'false', `after a wrong password Read and write is chosen: ${JSON.stringify(after)}`);
  assert.equal(after[expiry], '30 days', `after a wrong password the expiry is ${after[expiry]}`);
  assert.equal(after.Username, process.env.MEMOS_USERNAME, 'after a wrong password the username is gone');
  assert.equal(after.Password, '', 'the wrong password is shown again');
  console.log('ok   a wrong password keeps the choices (Read only, 30 days, the username)');
  await saysTheChoice(page, 'shown again with Read only chosen');
  console.log('ok   with Read only chosen, no sentence says the app will write');

  await focus(page, '#password');
  await page('Input.insertText', { text: process.env.MEMOS_PASSWORD });
  received = undefined;
  const left = waitFor((m) => m.method === 'Page.frameNavigated' && m.params.frame.url.startsWith(redirectUri), 'the redirect to the client');
  await press('Enter', 'Enter', 13, '\r');
  await left;
  assert.equal(received?.searchParams.get('state'), 'second-state');
  const tokens = await (await fetch(new URL('/token', base), {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: received.searchParams.get('code'), code_verifier: verifier,
      client_id: registration.client_id, redirect_uri: redirectUri,
    }),
  })).json();
  assert.equal(tokens.scope, 'memos:read', `the grant after the retry: ${JSON.stringify(tokens)}`);
  console.log('ok   the retried sign-in grants read only');
}

let status = 0;
try {
  await main();
} catch (err) {
  console.log(`FAIL ${err.stack ?? err}`);
  status = 1;
}
callbackServer.close();
await browser.close();
process.exit(status);
