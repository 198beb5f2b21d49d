// Drives the gateway's authorization server with the official TypeScript SDK
// client, headlessly, as a hosted MCP client would: the SDK discovers the
// server from the 401, registers (DCR) or names its client document (CIMD),
// sends the person to the consent page, exchanges the code, calls tools with
// the access token, and refreshes it. This script plays the person at the
// browser: it reads the consent page and submits its form.
//
//   MCP_URL=http://127.0.0.1:8787/mcp MEMOS_USERNAME=… MEMOS_PASSWORD=… \
//   MODE=dcr|cimd ACCESS=write|read EXPECT_TOOLS=n node test/clients/ts-oauth.mjs
//
// With MODE=cimd the script serves its client ID metadata document on a
// loopback port (the gateway must run with OAUTH_ALLOW_LOOPBACK_CLIENTS=true)
// and presents that URL as its client_id. The SDK itself accepts only https
// document URLs, so it is given the URL as its client information, which it
// then uses as any registered client_id. Prints "ok <step>" per step; exit
// status 0 when every step passed.

import assert from 'node:assert/strict';
import http from 'node:http';
import process from 'node:process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const url = new URL(process.env.MCP_URL);
const mode = process.env.MODE ?? 'dcr';
const access = process.env.ACCESS ?? 'write';
const redirectUrl = 'http://127.0.0.1:9/callback'; // never listened on: the code is read from the redirect

// A client document served from loopback, for CIMD.
async function serveClientDocument() {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({
      client_id: documentUrl, client_name: 'TypeScript SDK (CIMD)', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const documentUrl = `http://127.0.0.1:${server.address().port}/client.json`;
  server.unref();
  return documentUrl;
}

// provider keeps what the SDK asks it to, in memory, and plays the person
// when the SDK sends it to the authorization page.
class Provider {
  constructor(clientId) {
    this.info = clientId ? { client_id: clientId } : undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.code = undefined;
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: 'TypeScript SDK (DCR)', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(authorizationUrl) { this.code = await actAsPerson(authorizationUrl); }
}

// actAsPerson opens the consent page, fills in the Memos username and
// password, allows, and returns the code from the redirect.
async function actAsPerson(authorizationUrl) {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await page.text();
  assert.equal(page.status, 200, `consent page: ${page.status} ${html.slice(0, 300)}`);
  const request = html.match(/name="request" value="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&');
  const cookie = page.headers.get('set-cookie')?.split(';')[0];
  assert.ok(request && cookie, 'the consent page carries its request and sets its cookie');
  const answer = await fetch(new URL('/authorize', authorizationUrl), {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: new URL(authorizationUrl).origin },
    body: new URLSearchParams({
      request, decision: 'allow', access, username: process.env.MEMOS_USERNAME, password: process.env.MEMOS_PASSWORD, days: '30',
    }),
  });
  const location = new URL(answer.headers.get('location') ?? 'about:blank');
  assert.equal(answer.status, 303, `consent answer: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
  assert.equal(location.searchParams.get('iss'), url.origin, 'the redirect names the issuer');
  const code = location.searchParams.get('code');
  assert.ok(code, `the redirect carries a code: ${location}`);
  return code;
}

async function connect(provider) {
  const client = new Client({ name: `ts-oauth-${mode}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
  return client;
}

async function main() {
  const provider = new Provider(mode === 'cimd' ? await serveClientDocument() : undefined);
  // The first connection meets the 401, runs discovery, registration and
  // the consent step, and stops for the code.
  await assert.rejects(connect(provider), UnauthorizedError, 'the first connection needs authorization');
  assert.ok(provider.code, 'the consent step produced a code');
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(provider.code);
  assert.ok(provider.saved?.access_token?.startsWith('mme-at-'), 'the gateway issued an access token');
  assert.ok(!JSON.stringify(provider.saved).includes('memos_pat_'), 'no Memos token reaches the client');
  console.log(`ok   authorize (${mode}, client ${provider.info.client_id.slice(0, 24)}…)`);

  const client = await connect(provider);
  const { tools } = await client.listTools();
  assert.equal(tools.length, Number(process.env.EXPECT_TOOLS), `tools listed: ${tools.map((t) => t.name)}`);
  const me = await client.callTool({ name: 'auth_get_current_user', arguments: {} });
  assert.equal(me.isError, undefined, JSON.stringify(me));
  assert.equal(me.structuredContent.user.username, process.env.MEMOS_USERNAME);
  console.log(`ok   tools (${tools.length} listed, called as ${me.structuredContent.user.username})`);

  const write = await client.callTool({ name: 'memo_create_memo', arguments: { body: { content: `written through OAuth (${mode})` } } })
    .then((r) => r, (err) => err);
  if (access === 'write') {
    assert.ok(write.structuredContent?.name?.startsWith('memos/'), `write call: ${JSON.stringify(write)}`);
    await client.callTool({ name: 'memo_delete_memo', arguments: { memo: write.structuredContent.name } });
    console.log('ok   write');
  } else {
    assert.ok(write instanceof Error || write.isError, `a read-only grant wrote: ${JSON.stringify(write)}`);
    console.log(`ok   write refused (${String(write.message ?? write.content?.[0]?.text).slice(0, 120)})`);
  }
  await client.close();

  // Refresh: the SDK meets a 401 for a spoilt access token and refreshes.
  const before = provider.saved;
  provider.saved = { ...before, access_token: 'mme-at-spoilt' };
  const again = await connect(provider);
  await again.listTools();
  assert.notEqual(provider.saved.access_token, 'mme-at-spoilt', 'a new access token');
  assert.notEqual(provider.saved.refresh_token, before.refresh_token, 'the refresh token was rotated');
  await again.close();
  console.log('ok   refresh');
}

main().then(() => process.exit(0), (err) => {
  console.log(`FAIL ${err.stack ?? err}`);
  process.exit(1);
});
