// mcp-remote, the stdio-to-HTTP bridge of Claude Desktop and other stdio-only clients, in front
// of a generated server that is itself the MCP clients' authorization server, delegating each
// user's sign-in to the API's own OAuth (--oauth-api-client-id, started as oauth-server.test.ts
// starts it): oidc-provider plays the API's authorization server, and the recording upstream
// accepts only the JWTs it issues for the API. The official SDK client talks to mcp-remote over
// stdio; mcp-remote runs the whole flow on its own (401 → RFC 9728 metadata → our RFC 8414
// metadata → its registration → /authorize with PKCE in the browser → its loopback callback →
// our /token). The test plays only the user's browser, headlessly (test/harness/mcp-remote.ts):
// the URL mcp-remote opens is our /authorize, and delegatedSignIn takes it through the consent
// form, the sign-in at the API and our callback to the 302 to mcp-remote's loopback callback,
// which the test then GETs as the browser would.
//
// The official MCP Inspector's CLI (Node 22, test/harness/inspector.ts) runs the same flow
// without a TTY when MCP_AUTO_OPEN_ENABLED=true: it opens the URL through the same `open` and
// BROWSER hook, on its loopback callback at MCP_OAUTH_CALLBACK_URL; with no keychain here it
// keeps its tokens only in memory unless MCP_INSPECTOR_SECRET_STORE=file.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { buildProject, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import { delegatedSignIn, signInAtApiArgs, startApiUpstream } from '../harness/delegated-sign-in.js';
import { installInspector, LAUNCHER, NODE22 } from '../harness/inspector.js';
import {
  browserEnv,
  installMcpRemote,
  mcpRemoteFile,
  mcpRemoteStore,
  mcpRemoteTransport,
  startUrlCatcher,
  type UrlCatcher,
} from '../harness/mcp-remote.js';
import type { Upstream } from '../harness/upstream.js';

/** The API as its authorization server names it: the audience of the API tokens. */
const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-mcp-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };

let as: AuthorizationServer;
let upstream: Upstream;
let server: RunningServer;
/** The server's --public-url: its issuer, and the resource its tokens are for. */
let serverUrl: string;
let browser: UrlCatcher;
/** mcp-remote's MCP_REMOTE_CONFIG_DIR (and HOME), shared by the runs of this file. */
let configDir: string;
const children = new Children();

beforeAll(async () => {
  await installMcpRemote();
  await installInspector();
  as = await startAuthorizationServer({
    format: 'jwt',
    resources: { [API]: { scopes: ['read:pets', 'write:pets'] } },
    defaultResource: API,
  });
  upstream = await startApiUpstream(as, API);
  serverUrl = `http://127.0.0.1:${await freePort()}`;
  await as.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [`${serverUrl}/oauth/callback`],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  const dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-server-mcp-remote');
  await buildProject(dir);
  const data = join(TMP, `oauth-server-mcp-remote-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  server = await startServer(
    dir,
    'http',
    [
      '--port',
      new URL(serverUrl).port,
      '--public-url',
      serverUrl,
      ...signInAtApiArgs(as, APP.clientId),
      '--data-dir',
      data,
      '--base-url',
      `${upstream.url}/v2`,
    ],
    {
      MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret,
      MCP_TOKEN_STORE_KEY: randomBytes(32).toString('base64'),
      SWAGGER_PETSTORE_API_KEY: 'server-own-key',
    },
  );
  children.track(server.process);
  browser = await startUrlCatcher();
  configDir = mkdtempSync(join(TMP, 'mcp-remote-as-'));
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await browser?.close();
  await as?.close();
  await upstream?.close();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

/** The API token of the upstream's last request, decoded (the upstream already checked its signature and audience). */
function lastApiToken(): { raw: string; claims: ReturnType<typeof decodeJwt> } | undefined {
  const raw = /^Bearer (.+)$/.exec(String(upstream.requests.at(-1)?.headers.authorization ?? ''))?.[1];
  return raw === undefined ? undefined : { raw, claims: decodeJwt(raw) };
}

interface StoredClient {
  client_id: string;
  client_id_issued_at?: number;
  redirect_uris?: string[];
}

/** findPetsByStatus through the bridge: the upstream names the pet after the API token's subject. */
async function findPetsAs(client: Client, user: string, mcpToken: string): Promise<void> {
  const before = upstream.requests.length;
  const result = await client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(textOf(result)).toContain(`pet of ${user}`);
  const sent = upstream.requests.slice(before);
  expect(sent.map((r) => r.path)).toEqual(['/v2/pet/findByStatus']);
  const api = lastApiToken();
  expect(api?.claims).toMatchObject({ iss: as.issuer, aud: API, sub: user });
  // neither the token mcp-remote holds nor the server's own API key goes upstream
  expect(JSON.stringify(sent[0]?.headers)).not.toContain(mcpToken);
  expect(sent[0]?.headers['api_key']).toBeUndefined();
}

interface SignedIn {
  client: Client;
  stderr: () => string;
  /** Our /authorize URL as mcp-remote opened it. */
  opened: URL;
}

/**
 * A new mcp-remote on `dir` connected through the whole sign-in as `user`: the URL it opens is
 * checked and taken through delegatedSignIn, and the 302 to its loopback callback is followed.
 */
async function signInThroughBridge(dir: string, user: string): Promise<SignedIn> {
  const { transport, stderr } = await mcpRemoteTransport(`${serverUrl}/mcp`, dir, browser);
  const client = new Client({ name: `e2e-mcp-remote-${user}`, version: '1.0.0' });
  // mcp-remote signs in before it reads stdin: initialize waits for the whole flow
  const connected = client.connect(transport);
  connected.catch(() => undefined); // awaited below; a failure before then must not go unhandled
  try {
    const opened = new URL(
      await Promise.race([browser.next(60_000), connected.then(() => Promise.reject(new Error('connected without signing in')))]),
    );
    // our own authorization endpoint (from our RFC 8414 metadata), not the API's
    expect(`${opened.origin}${opened.pathname}`).toBe(`${serverUrl}/authorize`);
    expect(opened.searchParams.get('response_type')).toBe('code');
    expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
    expect(opened.searchParams.get('resource')).toBe(`${serverUrl}/mcp`);
    expect(opened.searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);
    const redirectUri = opened.searchParams.get('redirect_uri') ?? '';
    expect(redirectUri).toMatch(/^http:\/\/localhost:\d+\/oauth\/callback$/);
    const state = opened.searchParams.get('state');
    expect(state).toBeTruthy();

    // the user's part: consent, the sign-in at the API, our callback, back to mcp-remote
    const back = await delegatedSignIn(as, opened, user);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(serverUrl);
    expect(back.searchParams.get('code')).toBeTruthy();
    const landed = await fetch(back);
    expect(landed.status, await landed.clone().text()).toBe(200);
    expect(await landed.text()).toContain('Authorization successful');

    await connected;
    expect(stderr()).not.toMatch(/Trying \S+ to open the browser/);
    return { client, stderr, opened };
  } catch (error) {
    await client.close();
    throw error;
  }
}

const storedTokens = (dir: string) => mcpRemoteFile<{ access_token: string; refresh_token?: string }>(dir, 'tokens.json');

describe.skipIf(process.platform !== 'linux')('mcp-remote signs in through the server, at the API, and bridges stdio to it', () => {
  let registered: StoredClient;
  let mcpToken: string;

  it('registers itself, sends alice to our /authorize, gets our code on its loopback callback; her API token reaches the API', async () => {
    const { client, stderr, opened } = await signInThroughBridge(configDir, 'alice');
    try {
      expect(browser.opened).toHaveLength(1);
      // How it registered: RFC 7591 dynamic registration at our /register (ids this server
      // issues start with mcp_), not a client ID metadata document (whose client_id would be an
      // https URL; mcp-remote has one only when given --client-metadata-url). What it keeps is
      // our registration answer, with its issued-at time and its loopback redirect URI.
      const clientId = opened.searchParams.get('client_id') ?? '';
      expect(clientId).toMatch(/^mcp_/);
      registered = mcpRemoteFile<StoredClient>(configDir, 'client_info.json');
      expect(registered.client_id).toBe(clientId);
      expect(registered.client_id_issued_at).toEqual(expect.any(Number));
      expect(registered.redirect_uris).toEqual([opened.searchParams.get('redirect_uri')]);

      // what it stored, in MCP_REMOTE_CONFIG_DIR only: its registration and our tokens (opaque, not the API's JWT)
      expect(readdirSync(configDir).sort()).toEqual(['mcp-remote-v1']);
      expect(mcpRemoteStore(configDir).files).toEqual(['client_info.json', 'tokens.json']);
      const stored = storedTokens(configDir);
      mcpToken = stored.access_token;
      expect(stored.refresh_token).toBeTruthy();
      expect(() => decodeJwt(mcpToken)).toThrow();
      expect(stderr()).not.toContain(mcpToken);

      // alice consented to both scopes mcp-remote asked for: reading and writing tools
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['findPetsByStatus', 'getPetById', 'addPet']));

      await findPetsAs(client, 'alice', mcpToken);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('a second run with the same config folder reuses its registration and tokens: no browser, same user at the API', async () => {
    expect(mcpToken, 'the first run signed in').toBeTruthy();
    const { transport, stderr } = await mcpRemoteTransport(`${serverUrl}/mcp`, configDir, browser);
    const client = new Client({ name: 'e2e-mcp-remote-alice-again', version: '1.0.0' });
    const openedBefore = browser.opened.length;
    try {
      await client.connect(transport);
      expect(browser.opened).toHaveLength(openedBefore);
      expect(stderr()).not.toContain('Please authorize');
      // not registered again, and the same access token (it has an hour to live)
      expect(mcpRemoteFile<StoredClient>(configDir, 'client_info.json').client_id).toBe(registered.client_id);
      expect(storedTokens(configDir).access_token).toBe(mcpToken);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('findPetsByStatus');
      await findPetsAs(client, 'alice', mcpToken);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('bob on another desktop (another config folder): his own registration, his own API token', async () => {
    const bobDir = mkdtempSync(join(TMP, 'mcp-remote-as-bob-'));
    try {
      const { client, opened } = await signInThroughBridge(bobDir, 'bob');
      try {
        expect(opened.searchParams.get('client_id')).not.toBe(registered.client_id);
        const bobToken = storedTokens(bobDir).access_token;
        expect(bobToken).not.toBe(mcpToken);
        await findPetsAs(client, 'bob', bobToken);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(bobDir, { recursive: true, force: true });
    }
  }, 120_000);
});

interface InspectorRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `inspector --cli --server-url <server>/mcp --transport http <args>` on Node 22, its OAuth state in `home`. */
function inspectorCli(home: string, callbackPort: number, args: string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    execFile(
      NODE22,
      [LAUNCHER, '--cli', '--server-url', `${serverUrl}/mcp`, '--transport', 'http', ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          NO_COLOR: '1',
          // no keychain on these machines: its OAuth state in HOME/.mcp-inspector, so that a second run finds it
          MCP_INSPECTOR_SECRET_STORE: 'file',
          // no TTY here: without this the CLI refuses interactive OAuth (and names --stored-auth-only)
          MCP_AUTO_OPEN_ENABLED: 'true',
          // its loopback callback, off its fixed default port 6276
          MCP_OAUTH_CALLBACK_URL: `http://127.0.0.1:${callbackPort}/oauth/callback`,
          ...browserEnv(browser),
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(new Error(`the inspector did not run (${error.message}):\n${stderr}`));
        resolve({ exitCode: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** The pets of a `tools/call findPetsByStatus` the Inspector printed as JSON on stdout. */
const petsOf = (run: InspectorRun) =>
  ((JSON.parse(run.stdout) as { structuredContent?: { result?: { name: string }[] } }).structuredContent?.result ?? []).map((p) => p.name);

describe.skipIf(process.platform !== 'linux')("the MCP Inspector's CLI signs in through the server too", () => {
  it('carol: tools/call through the sign-in (dynamic registration), then again from its stored tokens without a browser', async () => {
    const home = mkdtempSync(join(TMP, 'inspector-as-'));
    const callbackPort = await freePort();
    const call = ['--method', 'tools/call', '--tool-name', 'findPetsByStatus', '--tool-args-json', '{"status":["available"]}'];
    try {
      const running = inspectorCli(home, callbackPort, call);
      const opened = new URL(await browser.next(60_000));
      expect(`${opened.origin}${opened.pathname}`).toBe(`${serverUrl}/authorize`);
      expect(opened.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${callbackPort}/oauth/callback`);
      // RFC 7591 at our /register, like mcp-remote (a metadata document only with --client-metadata-url)
      expect(opened.searchParams.get('client_id')).toMatch(/^mcp_/);
      expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
      expect(opened.searchParams.get('resource')).toBe(`${serverUrl}/mcp`);
      const back = await delegatedSignIn(as, opened, 'carol');
      expect(back.searchParams.get('iss')).toBe(serverUrl);
      const landed = await fetch(back);
      expect(landed.status).toBe(200);
      const first = await running;
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stderr).toContain('Authorization complete.');
      expect(petsOf(first)).toEqual(['pet of carol']);
      expect(lastApiToken()?.claims).toMatchObject({ iss: as.issuer, aud: API, sub: 'carol' });

      const openedBefore = browser.opened.length;
      const before = upstream.requests.length;
      const again = await inspectorCli(home, callbackPort, [...call, '--stored-auth-only']);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(browser.opened).toHaveLength(openedBefore);
      expect(petsOf(again)).toEqual(['pet of carol']);
      expect(upstream.requests.length).toBe(before + 1);
      expect(lastApiToken()?.claims.sub).toBe('carol');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});
