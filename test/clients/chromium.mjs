// Headless Chromium driven over the DevTools protocol, for the browser
// tests (consent-browser.mjs, card-browser.mjs). openChromium starts it
// with a profile of its own and returns send (a protocol command, on a
// page's session when one is given), listeners (called with every event),
// waitFor (the next event a predicate accepts) and close.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function openChromium(path, flags = []) {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-test-'));
  const chromium = spawn(path ?? 'chromium', [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--remote-debugging-port=0', `--user-data-dir=${profile}`, ...flags, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise((resolve, reject) => {
    let seen = '';
    chromium.stderr.on('data', (d) => {
      seen += d;
      const m = seen.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    chromium.on('exit', (code) => reject(new Error(`chromium exited with ${code}: ${seen}`)));
    setTimeout(() => reject(new Error(`chromium did not start: ${seen}`)), 30000);
  });
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  let nextId = 0;
  const pending = new Map();
  const listeners = [];
  socket.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.id === undefined) {
      for (const l of [...listeners]) l(msg);
      return;
    }
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) reject(new Error(msg.error.message)); else resolve(msg.result);
  };
  return {
    listeners,
    send(method, params = {}, sessionId) {
      const id = ++nextId;
      socket.send(JSON.stringify({ id, method, params, sessionId }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    waitFor(pred, what, ms = 15000) {
      return new Promise((resolve, reject) => {
        const l = (msg) => { if (pred(msg)) { listeners.splice(listeners.indexOf(l), 1); resolve(msg); } };
        listeners.push(l);
        setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      });
    },
    async close() {
      socket.close();
      const exited = new Promise((resolve) => chromium.once('exit', resolve));
      chromium.kill();
      await exited;
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch (err) {
        console.log(`note: the Chromium profile ${profile} was left behind: ${err.message}`);
      }
    },
  };
}
