// Two replicas of a generated server that is its MCP clients' authorization server
// (--oauth-api-client-id), sharing their token store in Redis, behind nginx configured with the
// oauth-replicas block of docs/deploy.md. oidc-provider plays the API's authorization server and
// the recording upstream accepts only the JWTs it issues for the API. The official SDK client
// signs users in through nginx; nginx's access log shows which replica served each step, and
// tokens are then taken straight to each replica: what one replica issued, the other honours,
// and a refresh token replayed at the other revokes the grant.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildProject, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import {
  connectSigningIn,
  headlessLogin,
  initializeWith,
  signInAtApiArgs,
  startApiUpstream,
  type HeadlessLogin,
} from '../harness/delegated-sign-in.js';
import { nginxMissing, startNginx, type Nginx } from '../harness/nginx.js';
import { redisMissing, startRedis, type RedisServer } from '../harness/redis.js';
import type { Upstream } from '../harness/upstream.js';

const skipped = nginxMissing ?? redisMissing;
if (skipped !== undefined) console.log(`oauth-replicas.test.ts: ${skipped}: skipped`);

/** The API as its authorization server names it: the audience of the API tokens. */
const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-mcp-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };
/** One key for both replicas, as docs/deploy.md says. */
const STORE_KEY = randomBytes(32).toString('base64');
const REDIRECT = 'http://127.0.0.1:1/callback';
const REPLICAS = ['a', 'b'] as const;
type Replica = (typeof REPLICAS)[number];
/** The OAuth endpoints of one sign-in, as nginx logs them, and the status each answers when it works. */
const SIGN_IN_STEPS: Record<string, number> = {
  'POST /register': 201,
  'GET /authorize': 200,
  'POST /oauth/consent': 302,
  'GET /oauth/callback': 302,
  'POST /token': 200,
};

let as: AuthorizationServer;
let upstream: Upstream;
let redis: RedisServer;
let nginx: Nginx;
let dir: string;
/** nginx's URL: every replica's --public-url. */
let publicUrl: string;
const ports = {} as Record<Replica, number>;
const replicas = {} as Record<Replica, RunningServer>;
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-oauth-replicas-'));

/** A replica on its own fixed port (so that nginx finds it again after a restart), calling the API under /r-<id>/. */
async function startReplica(id: Replica): Promise<RunningServer> {
  const server = await startServer(
    dir,
    'http',
    [
      '--port',
      String(ports[id]),
      '--replica-id',
      id,
      '--public-url',
      publicUrl,
      '--token-store',
      redis.url,
      ...signInAtApiArgs(as, APP.clientId),
      '--data-dir',
      join(scratch, `data-${id}`),
      '--base-url',
      `${upstream.url}/r-${id}/v2`,
    ],
    { MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret, MCP_TOKEN_STORE_KEY: STORE_KEY, SWAGGER_PETSTORE_API_KEY: 'server-own-key' },
  );
  children.track(server.process);
  replicas[id] = server;
  return server;
}

beforeAll(async () => {
  if (skipped !== undefined) return;
  redis = await startRedis();
  as = await startAuthorizationServer({
    format: 'jwt',
    resources: { [API]: { scopes: ['read:pets', 'write:pets'] } },
    defaultResource: API,
  });
  upstream = await startApiUpstream(as, API);
  const nginxPort = await freePort();
  publicUrl = `http://127.0.0.1:${nginxPort}`;
  for (const id of REPLICAS) ports[id] = await freePort();
  await as.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    // one callback, whichever replica answers it
    redirectUris: [`${publicUrl}/oauth/callback`],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-replicas');
  await buildProject(dir);
  await Promise.all(REPLICAS.map(startReplica));
  nginx = await startNginx('oauth-replicas', Object.fromEntries(REPLICAS.map((id) => [id, `127.0.0.1:${ports[id]}`])), {
    scratch,
    children,
    port: nginxPort,
    accessLog: true,
  });
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await as?.close();
  await upstream?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface Served {
  replica: string;
  step: string;
  status: number;
  session: string;
}

/** What nginx logged from line `from` on: which replica served which request. */
function servedSince(from: number): Served[] {
  const byAddress = new Map(REPLICAS.map((id) => [`127.0.0.1:${ports[id]}`, id as string]));
  return nginx
    .log()
    .split('\n')
    .slice(from, -1)
    .map((line) => {
      const [address = '', method, uri, status, session = ''] = line.split('|');
      return { replica: byAddress.get(address) ?? address, step: `${method} ${uri}`, status: Number(status), session };
    });
}

const logLines = () => nginx.log().split('\n').length - 1;

/** `user` signs in with the SDK client through nginx; its 2025-era session stays open. */
async function signInThroughNginx(user: string) {
  const login = headlessLogin(as, user, REDIRECT);
  const transport = () => new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`), { authProvider: login.provider });
  return { login, ...(await connectSigningIn(`e2e-${user}`, login, transport)) };
}

/**
 * An SDK client straight at a replica (or nginx) with the tokens `login` holds. A refusal would
 * make the SDK redirect to sign in: that is recorded instead, for the test to see.
 */
async function connectWithTokens(url: string, login: HeadlessLogin) {
  const redirected: URL[] = [];
  const provider = { ...login.provider, redirectToAuthorization: (to: URL) => void redirected.push(to) };
  const client = new Client({ name: 'e2e-direct', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }));
  return { client, redirected };
}

interface ApiCall {
  /** Which replica called the API (its --base-url). */
  replica: string | undefined;
  /** The subject of the API token it sent. */
  subject: string | undefined;
  authorization: string;
}

/** The API calls since `from`, with who made them and for whom. */
function apiCallsSince(from: number): ApiCall[] {
  return upstream.requests.slice(from).map((r) => {
    const authorization = String(r.headers.authorization ?? '');
    const jwt = /^Bearer (.+)$/.exec(authorization)?.[1];
    const subject =
      jwt === undefined ? undefined : (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()).sub as string);
    return { replica: /^\/r-(\w+)\//.exec(r.path)?.[1], subject, authorization };
  });
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

/** One findPetsByStatus call: its text, and the one API call it made. */
async function findPets(client: Client): Promise<{ text: string; api: ApiCall[] }> {
  const from = upstream.requests.length;
  const result = await client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });
  expect(result.isError, textOf(result)).toBeFalsy();
  return { text: textOf(result), api: apiCallsSince(from) };
}

async function tokenAt(replica: Replica, fields: Record<string, string>) {
  const res = await fetch(`${replicas[replica].url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Whether a bare bearer token stands, straight at a replica (200 or 401). */
const statusWith = async (replica: Replica, token: string) => {
  const res = await initializeWith(`${replicas[replica].url}/mcp`, token);
  await res.body?.cancel();
  return res.status;
};

describe.skipIf(skipped !== undefined)('two replicas sharing Redis behind the oauth-replicas block of docs/deploy.md', () => {
  let alice: Awaited<ReturnType<typeof signInThroughNginx>>;

  it('a sign-in through nginx: its steps land on both replicas (a record written by one is read by the other), and the session stays on its replica', async () => {
    const from = logLines();
    alice = await signInThroughNginx('alice');
    expect(alice.login.clientId()).toMatch(/^mcp_/);
    const session = alice.transport.sessionId as string;
    expect(session).toMatch(/^[ab]\.[0-9a-f-]{36}$/);
    const call = await findPets(alice.client);
    expect(call.text).toContain('pet of alice');
    expect(call.api).toEqual([{ replica: session[0], subject: 'alice', authorization: expect.any(String) }]);

    const served = servedSince(from);
    const steps = served.filter((s) => s.step in SIGN_IN_STEPS);
    // one sign-in, each step once, each answered as a step that worked
    expect(Object.fromEntries(steps.map((s) => [s.step, s.status]))).toEqual(SIGN_IN_STEPS);
    expect(steps).toHaveLength(Object.keys(SIGN_IN_STEPS).length);
    expect(new Set(steps.map((s) => s.replica))).toEqual(new Set(REPLICAS));
    // consent read the pending request /authorize stored, the callback the sign-in consent stored,
    // /token the code the callback stored: at least one of them on the other replica
    const at = (step: string) => steps.find((s) => s.step === step)?.replica;
    const handovers = [
      ['GET /authorize', 'POST /oauth/consent'],
      ['POST /oauth/consent', 'GET /oauth/callback'],
      ['GET /oauth/callback', 'POST /token'],
    ].filter(([written, read]) => at(written as string) !== at(read as string));
    expect(handovers.length).toBeGreaterThan(0);
    // every request of the 2025-era session went to the replica its id names
    const ofSession = served.filter((s) => s.session !== '' && s.session !== '-');
    expect(ofSession.length).toBeGreaterThan(0);
    expect(ofSession.filter((s) => s.replica !== s.session[0])).toEqual([]);
  }, 60_000);

  it('a token obtained through nginx works sent straight to each replica, which calls the API with that user’s token', async () => {
    const issuedBy = servedSince(0).findLast((s) => s.step === 'POST /token')?.replica;
    expect(REPLICAS).toContain(issuedBy);
    for (const id of REPLICAS) {
      const direct = await connectWithTokens(replicas[id].url, alice.login);
      try {
        const call = await findPets(direct.client);
        expect(call.text).toContain('pet of alice');
        expect(call.api).toHaveLength(1);
        expect(call.api[0]).toMatchObject({ replica: id, subject: 'alice' });
        // the API gets the user's API token: neither the MCP token nor the server's own key
        expect(call.api[0]?.authorization).not.toContain(alice.login.tokens()?.access_token as string);
        expect(direct.redirected).toEqual([]);
      } finally {
        await direct.client.close();
      }
    }
  }, 60_000);

  it('a refresh token rotated at replica a, then replayed at replica b, revokes the whole grant everywhere', async () => {
    const erin = await signInThroughNginx('erin');
    await erin.client.close();
    const clientId = erin.login.clientId() as string;
    const first = erin.login.tokens() as { access_token: string; refresh_token: string };
    expect(await statusWith('b', first.access_token)).toBe(200);
    const rotated = await tokenAt('a', { grant_type: 'refresh_token', client_id: clientId, refresh_token: first.refresh_token });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    // what a issued, b honours
    expect(await statusWith('b', rotated.body.access_token as string)).toBe(200);
    const replayed = await tokenAt('b', { grant_type: 'refresh_token', client_id: clientId, refresh_token: first.refresh_token });
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    for (const id of REPLICAS) {
      expect(await statusWith(id, rotated.body.access_token as string), `the rotated access token at ${id}`).toBe(401);
      expect(await statusWith(id, first.access_token), `the first access token at ${id}`).toBe(401);
    }
    const next = await tokenAt('a', {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: rotated.body.refresh_token as string,
    });
    expect(next).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // the grant of another user stands
    expect(await statusWith('b', alice.login.tokens()?.access_token as string)).toBe(200);
  }, 60_000);

  it('two users through nginx and straight at each replica: tokens never crossed', async () => {
    const bob = await signInThroughNginx('bob');
    const direct = {
      alice: await Promise.all(REPLICAS.map((id) => connectWithTokens(replicas[id].url, alice.login))),
      bob: await Promise.all(REPLICAS.map((id) => connectWithTokens(replicas[id].url, bob.login))),
    };
    try {
      expect(bob.login.tokens()?.access_token).not.toBe(alice.login.tokens()?.access_token);
      for (const round of [0, 1]) {
        for (const [who, viaNginx] of [
          ['alice', alice.client],
          ['bob', bob.client],
        ] as const) {
          const clients = [viaNginx, ...direct[who].map((d) => d.client)];
          for (const client of round === 0 ? clients : clients.reverse()) {
            const call = await findPets(client);
            expect(call.text).toContain(`pet of ${who}`);
            expect(call.api.map((c) => c.subject)).toEqual([who]);
          }
        }
      }
      // both replicas served both users
      const calls = apiCallsSince(0);
      for (const who of ['alice', 'bob'])
        expect(new Set(calls.filter((c) => c.subject === who).map((c) => c.replica))).toEqual(new Set(REPLICAS));
      expect([...direct.alice, ...direct.bob].flatMap((d) => d.redirected)).toEqual([]);
    } finally {
      await Promise.all([bob.client, ...[...direct.alice, ...direct.bob].map((d) => d.client)].map((c) => c.close()));
    }
  }, 60_000);

  it('both replicas restarted: users stay signed in (Redis holds every grant), and refresh still works', async () => {
    await alice.client.close();
    const before = alice.login.tokens() as { access_token: string; refresh_token: string };
    await Promise.all(REPLICAS.map((id) => replicas[id].stop()));
    expect(
      await fetch(`${replicas.a.url}/healthz`).then(
        () => 'up',
        () => 'down',
      ),
    ).toBe('down');
    await Promise.all(REPLICAS.map(startReplica));
    for (const url of [replicas.a.url, replicas.b.url, nginx.url]) {
      const again = await connectWithTokens(url, alice.login);
      try {
        expect((await findPets(again.client)).api.map((c) => c.subject)).toEqual(['alice']);
        expect(again.redirected).toEqual([]);
      } finally {
        await again.client.close();
      }
    }
    expect(alice.login.tokens()?.access_token).toBe(before.access_token);
    const refreshed = await tokenAt('b', {
      grant_type: 'refresh_token',
      client_id: alice.login.clientId() as string,
      refresh_token: before.refresh_token,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await statusWith('a', refreshed.body.access_token as string)).toBe(200);
  }, 60_000);
});
