// The OAuth sign-in of test/e2e/oauth.test.ts, driven this time by mcp-remote: the stdio-to-HTTP
// bridge that Claude Desktop and other stdio-only clients run in front of a remote server, and
// that runs the whole OAuth flow itself (401 → RFC 9728 metadata → dynamic registration → code
// with PKCE in a browser → its own loopback callback → token). The official SDK client talks to
// mcp-remote over stdio, as such a host would; nothing of the flow is done for it, except the
// user's part in the browser.
//
// The bridge's install, its headless browser (the BROWSER hook) and its config folder are those of
// test/harness/mcp-remote.ts; the test signs dana in at the authorization server and then, as the
// browser would, follows the redirect to mcp-remote's callback.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { buildProject, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import {
  installMcpRemote,
  mcpRemoteFile,
  mcpRemoteStore,
  mcpRemoteTransport,
  startUrlCatcher,
  type UrlCatcher,
} from '../harness/mcp-remote.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const READ = 'mcp:read';
const WRITE = 'mcp:write';

let dir: string;
let upstream: Upstream;
let as: AuthorizationServer;
let server: RunningServer;
let browser: UrlCatcher;
/** mcp-remote's MCP_REMOTE_CONFIG_DIR (and HOME), shared by the runs of this file. */
let configDir: string;
let resource: string;
const children = new Children();

beforeAll(async () => {
  await installMcpRemote();
  upstream = await startUpstream((req) => {
    const id = Number(/^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1] ?? 1);
    return { body: JSON.stringify({ id, name: `pet-${id}`, photoUrls: [] }) };
  });
  as = await startAuthorizationServer({ format: 'jwt', resources: {}, userScopes: { dana: [READ] } });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-mcp-remote');
  await buildProject(dir);
  server = await startServer(dir, 'http', ['--oauth-issuer', as.issuer, '--base-url', `${upstream.url}/v2`], {
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
  });
  children.track(server.process);
  // the resource the 401 sends clients to sign in for: the endpoint's URL (RFC 9728 §3.3)
  resource = `${server.url}/mcp`;
  as.addResource(resource, [READ, WRITE]);
  browser = await startUrlCatcher();
  configDir = mkdtempSync(join(TMP, 'mcp-remote-auth-'));
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await browser?.close();
  await as?.close();
  await upstream?.close();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

/** The SDK client's stdio transport to mcp-remote in front of the server, its stderr kept. */
const mcpRemote = () => mcpRemoteTransport(`${server.url}/mcp`, configDir, browser);

/** What mcp-remote stored for the server: its one tokens file under MCP_REMOTE_CONFIG_DIR. */
const storedTokens = () => mcpRemoteFile<{ access_token: string; refresh_token?: string }>(configDir, 'tokens.json');

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe.skipIf(process.platform !== 'linux')('mcp-remote signs dana in headlessly and bridges stdio to the server', () => {
  it('registers, sends dana to the browser, takes the code on its callback; her read-only tools work and the API never sees her token', async () => {
    const { transport, stderr } = await mcpRemote();
    const client = new Client({ name: 'e2e-mcp-remote', version: '1.0.0' });
    // mcp-remote signs in before it reads stdin: initialize waits for the whole flow
    const connected = client.connect(transport);
    connected.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    try {
      const opened = new URL(
        await Promise.race([browser.next(60_000), connected.then(() => Promise.reject(new Error('connected without signing in')))]),
      );
      // what mcp-remote asked the authorization server for
      expect(`${opened.origin}${opened.pathname}`).toBe(`${as.issuer}/auth`);
      expect(opened.searchParams.get('response_type')).toBe('code');
      expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
      expect(opened.searchParams.get('resource')).toBe(resource);
      // the scopes of the server's 401 challenge (and offline_access, for a refresh token)
      expect(opened.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining([READ, WRITE]));
      const redirectUri = opened.searchParams.get('redirect_uri') ?? '';
      expect(redirectUri).toMatch(/^http:\/\/localhost:\d+\/oauth\/callback$/);

      const signed = await as.signIn(opened, 'dana');
      expect(signed.redirectUri).toBe(redirectUri);
      const callback = new URL(signed.redirectUri);
      callback.searchParams.set('code', signed.code);
      if (signed.state !== undefined) callback.searchParams.set('state', signed.state);
      if (signed.iss !== undefined) callback.searchParams.set('iss', signed.iss);
      const landed = await fetch(callback);
      expect(landed.status, await landed.clone().text()).toBe(200);
      expect(await landed.text()).toContain('Authorization successful');

      await connected;
      // the hand-off went through BROWSER: none of mcp-remote's fallback openers was tried
      expect(stderr()).not.toMatch(/Trying \S+ to open the browser/);
      expect(browser.opened).toHaveLength(1);

      // what it stored, in MCP_REMOTE_CONFIG_DIR only: the registration and dana's tokens
      expect(readdirSync(configDir).sort()).toEqual(['mcp-remote-v1']);
      expect(mcpRemoteStore(configDir).files).toEqual(['client_info.json', 'tokens.json']);
      const stored = storedTokens();
      expect(stored.refresh_token).toBeTruthy();
      const token = stored.access_token;
      expect(stderr()).not.toContain(token);
      // dana holds mcp:read only, though mcp-remote asked for more: read-only tools
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({ iss: as.issuer, aud: resource, sub: 'dana', scope: READ });
      const tools = await names(client);
      expect(tools).toContain('getPetById');
      expect(tools).not.toContain('addPet');
      expect(tools).not.toContain('deletePet');

      const before = upstream.requests.length;
      const answer = await client.callTool({ name: 'getPetById', arguments: { petId: 5 } });
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(textOf(answer)).toContain('pet-5');
      const sent = upstream.requests.slice(before);
      expect(sent.map((r) => r.path)).toEqual(['/v2/pet/5']);
      expect(sent[0]?.headers['api_key']).toBe('server-own-key');
      expect(sent[0]?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(sent)).not.toContain(token);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('a second run signs in from the stored tokens: no browser, same tools', async () => {
    const { transport, stderr } = await mcpRemote();
    const client = new Client({ name: 'e2e-mcp-remote-again', version: '1.0.0' });
    const openedBefore = browser.opened.length;
    try {
      await client.connect(transport);
      expect(browser.opened).toHaveLength(openedBefore);
      expect(stderr()).not.toContain('Please authorize');
      const tools = await names(client);
      expect(tools).toContain('getPetById');
      expect(tools).not.toContain('addPet');
    } finally {
      await client.close();
    }
  }, 60_000);
});
