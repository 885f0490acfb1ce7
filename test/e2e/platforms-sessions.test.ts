// 2025-era Streamable HTTP sessions on Cloudflare (issue #40), each kept by a Durable Object:
// the Petstore project generated with --target cloudflare, served by workerd through `wrangler
// dev` (whose local Durable Objects need no account), in toolsets mode so that a session has
// state of its own (its enabled toolsets) and a notification to send on its GET stream
// (tools/list_changed), as an OAuth resource server of a real authorization server so that a
// session is bound to its caller. The official SDK client, a recording upstream; and the same
// project under MCP_STATELESS=true, which keeps no sessions.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';
import { startWrangler, type PlatformServer } from '../harness/platforms.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';

const API_KEY = 'key-sessions';
const TOKEN = 'sessions-token-1';
const SCOPES = ['mcp:read', 'mcp:write'];
/** Short, so that the idle test waits little; every other session's requests follow each other within it. */
const IDLE_MS = 4000;
const LEGACY = '2025-06-18';
/** A pet the upstream answers only after the idle time has passed, with time for the alarm to fire. */
const SLOW_PET = 99;

let dir: string;
let upstream: Upstream;
let as: AuthorizationServer;
let sessions: PlatformServer;
let stateless: PlatformServer;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream((req) => ({
    ...petAnswer(req),
    ...(req.path === `/v2/pet/${SLOW_PET}` ? { delayMs: IDLE_MS + 2500 } : {}),
  }));
  // Outside this repository, as platforms.test.ts explains.
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-platforms-sessions'), [
    '--target',
    'cloudflare',
  ]);
  await buildProject(dir);
  writeFileSync(join(dir, '.dev.vars'), `API_BASE_URL=${upstream.url}/v2\nSWAGGER_PETSTORE_API_KEY=${API_KEY}\nLOG_LEVEL=warn\n`);
  as = await startAuthorizationServer({ format: 'jwt', resources: {} });
  const [port, statelessPort] = [await freePort(), await freePort()];
  as.addResource(`http://127.0.0.1:${port}/mcp`, SCOPES);
  const oauth = { MCP_OAUTH_ISSUER: as.issuer, MCP_PUBLIC_URL: `http://127.0.0.1:${port}` };
  // One after the other: two wranglers starting at once may both take the inspector's port.
  sessions = await startWrangler(dir, port, { ...oauth, MCP_TOOLS: 'toolsets', MCP_SESSION_IDLE_MS: String(IDLE_MS) });
  stateless = await startWrangler(dir, statelessPort, { MCP_AUTH_TOKEN: TOKEN, MCP_STATELESS: 'true' });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([sessions, stateless].map((server) => server?.stop()));
  await as?.close();
  await upstream?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const tokenOf = (user: string) => as.issueToken({ user, scopes: SCOPES, resource: `${sessions.url}/mcp` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The SDK client of the 2025 era (no version negotiation) as `user`. */
async function open(user: string): Promise<{ client: Client; token: string }> {
  const token = await tokenOf(user);
  const client = await connect('http', sessions.url, { headers: bearer(token) });
  clients.push(client);
  return { client, token };
}

const sessionIdOf = (client: Client) => (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** A raw 2025-era request to /mcp, in a session when `sessionId` is given. */
function send(url: string, init: { method?: string; token?: string; sessionId?: string; body?: unknown }): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: init.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      ...(init.token !== undefined ? bearer(init.token) : {}),
      ...(init.sessionId !== undefined ? { 'mcp-session-id': init.sessionId } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** A session opened by hand: initialize, then the initialized notification. */
async function rawSession(token: string): Promise<string> {
  const clientInfo = { name: 'raw', version: '1' };
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo } };
  const opened = await send(sessions.url, { token, body: init });
  expect(opened.status).toBe(200);
  const sessionId = opened.headers.get('mcp-session-id') ?? '';
  await opened.body?.cancel();
  const initialized = await send(sessions.url, { token, sessionId, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  expect(initialized.status).toBe(202);
  return sessionId;
}

describe('Cloudflare: 2025-era sessions kept by Durable Objects', () => {
  it('initialize opens a session; its toolsets change, tools/list_changed arrives on its stream, and calls reach the API', async () => {
    const { client } = await open('alice');
    expect(sessionIdOf(client)).toMatch(/^[0-9a-f]{64}$/);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    expect(await toolNames(client)).toEqual(['list_toolsets', 'enable_toolset']);
    const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    expect(enabled.isError, JSON.stringify(enabled.content)).toBeFalsy();
    for (let i = 0; i < 100 && changed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changed).toBe(1);
    expect(await toolNames(client)).toContain('getPetById');
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 41 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 41, name: 'pet-41', photoUrls: [] });
    expect(upstream.requests.map((r) => [r.path, r.headers.api_key])).toEqual([['/v2/pet/41', API_KEY]]);
  });

  it('two sessions at once are independent: a toolset enabled in one is not in the other', async () => {
    const [first, second] = await Promise.all([open('alice'), open('alice')]);
    expect(sessionIdOf(first.client)).not.toBe(sessionIdOf(second.client));
    await Promise.all([
      first.client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } }),
      second.client.callTool({ name: 'enable_toolset', arguments: { toolset: 'store' } }),
    ]);
    const [inFirst, inSecond] = await Promise.all([toolNames(first.client), toolNames(second.client)]);
    expect(inFirst).toContain('getPetById');
    expect(inFirst).not.toContain('getInventory');
    expect(inSecond).toContain('getInventory');
    expect(inSecond).not.toContain('getPetById');
  });

  it("refuses another caller's token on a session as an unknown session, and still serves its owner", async () => {
    const { client, token } = await open('alice');
    const sessionId = sessionIdOf(client);
    const bob = await tokenOf('bob');
    const foreign = await send(sessions.url, { token: bob, sessionId, body: LIST });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toContain('Session not found');
    const own = await send(sessions.url, { token, sessionId, body: LIST });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('DELETE ends the session: its id is then unknown (404)', async () => {
    const { client, token } = await open('alice');
    const sessionId = sessionIdOf(client);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    const after = await send(sessions.url, { token, sessionId, body: LIST });
    expect(after.status).toBe(404);
  });

  it('GET opens the session stream; a malformed or unknown session id is answered 404', async () => {
    const token = await tokenOf('carol');
    const sessionId = await rawSession(token);
    const stream = await send(sessions.url, { method: 'GET', token, sessionId });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();
    // A client that lost its stream opens it again (one per session, the latest).
    const again = await send(sessions.url, { method: 'GET', token, sessionId });
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect((await send(sessions.url, { token, sessionId: 'not-a-session', body: LIST })).status).toBe(404);
    const unknown = sessionId.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect((await send(sessions.url, { token, sessionId: unknown, body: LIST })).status).toBe(404);
  });

  it('a session unused for MCP_SESSION_IDLE_MS ends', async () => {
    const token = await tokenOf('dave');
    const sessionId = await rawSession(token);
    const used = await send(sessions.url, { token, sessionId, body: LIST });
    expect(used.status).toBe(200);
    await used.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 2500));
    expect((await send(sessions.url, { token, sessionId, body: LIST })).status).toBe(404);
  });

  it('a session busy with a call longer than MCP_SESSION_IDLE_MS is not idle: the call is answered, the session stays', async () => {
    const { client } = await open('erin');
    await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: SLOW_PET } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: SLOW_PET, name: `pet-${SLOW_PET}`, photoUrls: [] });
    // Still open: its toolsets are still enabled, and a request is not answered 404.
    expect(await toolNames(client)).toContain('getPetById');
  });

  it('a 2026-07-28 client is served statelessly, without a session', async () => {
    const client = await connect('http', sessions.url, { negotiate: true, headers: bearer(await tokenOf('alice')) });
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(sessionIdOf(client)).toBeUndefined();
    expect(await toolNames(client)).toContain('invoke_operation');
  });
});

describe('Cloudflare under MCP_STATELESS=true', () => {
  it('keeps no session: a 2025-era client gets none, and GET is refused naming --stateless', async () => {
    const client = await connect('http', stateless.url, { headers: bearer(TOKEN) });
    clients.push(client);
    expect(sessionIdOf(client)).toBeUndefined();
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 42 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(upstream.requests.map((r) => r.path)).toEqual(['/v2/pet/42']);
    const stream = await send(stateless.url, { method: 'GET', token: TOKEN });
    expect(stream.status).toBe(405);
    expect(await stream.text()).toContain('stateless (as with --stateless)');
  });
});
