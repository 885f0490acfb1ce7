// The server as the MCP clients' authorization server (--oauth-api-client-id) on the platforms'
// own runtimes: the Petstore project generated with --target cloudflare,deno,lambda,vercel, served
// by workerd through `wrangler dev` (its token store in Workers KV, or in a Durable Object,
// simulated locally in a --persist-to folder), by `deno task start` (Deno KV, in its DENO_DIR), and
// as the Lambda bundle under aws-lambda-ric and the Vercel function (both Node: a real Redis,
// test/harness/function-url.ts and vercel-adapter.mts as in platforms-functions). oidc-provider plays
// the API's authorization server and the recording upstream accepts only the JWTs it issues. The
// official SDK client registers, the user's browser goes through the consent page and the API's
// sign-in (test/harness/delegated-sign-in.ts), the client gets its token from /token and calls a
// tool, which reaches the API with that user's API token; a new process on the same store still
// honours the token; where the store takes atomically (a Durable Object, Deno KV), of two uses of
// one refresh token at once only one gets tokens.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildProject, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { ownNodeModules, startDeno, startVercel, startWrangler, type PlatformServer } from '../harness/platforms.js';
import { buildLambda, startLambda } from '../harness/function-url.js';
import { installPinned } from '../harness/pinned-tools.js';
import { redisMissing, startRedis, type RedisServer } from '../harness/redis.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { connectSigningIn, headlessLogin, initializeWith, startApiUpstream } from '../harness/delegated-sign-in.js';
import type { Upstream } from '../harness/upstream.js';

/** The API as its authorization server names it: the audience of the API tokens. */
const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-mcp-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };
const STORE_KEY = randomBytes(32).toString('base64');
const REDIRECT = 'http://127.0.0.1:1/callback';
const BINDING = 'MCP_OPERATIONS';

/** Where the server runs, and its token store: Workers KV, the Durable Object, Deno KV, Redis (Lambda, Vercel). */
type Platform = 'cloudflare' | 'cloudflare-object' | 'deno' | 'lambda' | 'vercel';

let as: AuthorizationServer;
let upstream: Upstream;
let redis: RedisServer | undefined;
let ric: string;
let dir: string;
/** The settings every platform's server gets: the API app, the sealing key, the API's own key. */
let settings: Record<string, string>;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-e2e-platforms-oauth-'));
const ports: Record<Platform, number> = { cloudflare: 0, 'cloudflare-object': 0, deno: 0, lambda: 0, vercel: 0 };
const servers: Partial<Record<Platform, PlatformServer>> = {};

// Where /usr/bin/redis-server is missing, the function platforms have no token store to use.
const PLATFORMS: Platform[] = ['cloudflare', 'cloudflare-object', 'deno', ...(redisMissing ? [] : (['lambda', 'vercel'] as const))];

const publicUrl = (platform: Platform) => `http://127.0.0.1:${ports[platform]}`;

/** A (new) server process of `platform` on its port, over the same store as any before it. */
async function start(platform: Platform): Promise<PlatformServer> {
  await servers[platform]?.stop();
  const object = { MCP_TOKEN_STORE: 'durable-object:MCP_TOKENS', MCP_PUBLIC_URL: publicUrl('cloudflare-object') };
  const onNode = { ...settings, MCP_TOKEN_STORE: redis?.url ?? '', MCP_PUBLIC_URL: publicUrl(platform) };
  const server =
    platform === 'cloudflare'
      ? await startWrangler(dir, ports.cloudflare, {}, ['--persist-to', join(scratch, 'wrangler-state')])
      : platform === 'cloudflare-object'
        ? await startWrangler(dir, ports['cloudflare-object'], object, ['--persist-to', join(scratch, 'wrangler-object-state')])
        : platform === 'deno'
          ? await startDeno(dir, ports.deno, { DENO_DIR: join(scratch, 'deno-dir'), MCP_PUBLIC_URL: publicUrl('deno') })
          : platform === 'lambda'
            ? await startLambda({ ric, taskRoot: join(dir, 'dist/lambda'), env: onNode, port: ports.lambda })
            : await startVercel(dir, ports.vercel, onNode);
  servers[platform] = server;
  return server;
}

beforeAll(async () => {
  as = await startAuthorizationServer({
    format: 'jwt',
    resources: { [API]: { scopes: ['read:pets', 'write:pets'] } },
    defaultResource: API,
  });
  upstream = await startApiUpstream(as, API);
  for (const platform of PLATFORMS) ports[platform] = await freePort();
  await as.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: PLATFORMS.map((platform) => `${publicUrl(platform)}/oauth/callback`),
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  // Outside this repository, as platforms.test.ts explains (deno task and the repository's node_modules/.bin).
  dir = join(scratch, 'project');
  generateProject(`${REPO}samples/petstore/openapi.json`, dir, ['--target', 'cloudflare,deno,lambda,vercel']);
  await buildProject(dir);
  buildLambda(dir);
  ownNodeModules(dir);
  ric = await installPinned('lambda-ric', (d) => existsSync(join(d, 'node_modules/aws-lambda-ric/rapid-client.node')));
  if (!redisMissing) redis = await startRedis();
  const wrangler = join(dir, 'wrangler.jsonc');
  // The commented example of the template, taken up: a local namespace is simulated by wrangler dev.
  const config = readFileSync(wrangler, 'utf8')
    .replace(/\/\/ ("kv_namespaces": .*"<namespace id>" }\],)/, '$1')
    .replace(/\/\/ ("durable_objects": .*)/, '$1')
    .replace(/\/\/ ("migrations": .*)/, '$1');
  writeFileSync(wrangler, config.replace('<namespace id>', 'local-tokens'));
  settings = {
    API_BASE_URL: `${upstream.url}/v2`,
    MCP_OAUTH_API_CLIENT_ID: APP.clientId,
    MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret,
    MCP_OAUTH_API_AUTHORIZATION_URL: `${as.issuer}/auth`,
    MCP_OAUTH_API_TOKEN_URL: `${as.issuer}/token`,
    MCP_OAUTH_API_SCOPES: 'read:pets',
    MCP_TOKEN_STORE_KEY: STORE_KEY,
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
    LOG_LEVEL: 'warn',
  };
  const variables = Object.entries(settings).map(([name, value]) => `${name}=${value}`);
  const cloudflare = [...variables, `MCP_PUBLIC_URL=${publicUrl('cloudflare')}`, `MCP_TOKEN_STORE=workers-kv:${BINDING}`];
  writeFileSync(join(dir, '.dev.vars'), `${cloudflare.join('\n')}\n`);
  writeFileSync(join(dir, '.env'), `${[...variables, 'MCP_TOKEN_STORE=deno-kv'].join('\n')}\n`);
  // wrangler dev restarts its worker when files it watches change, and a POST it is serving then
  // fails ("Your worker restarted mid-request"): the other platforms start first, and the
  // Worker whose tests run first starts last, so nothing starts after it.
  for (const platform of [...PLATFORMS].reverse()) await start(platform);
}, 300_000);

afterAll(async () => {
  for (const server of Object.values(servers)) await server?.stop();
  await redis?.stop();
  await upstream?.close();
  await as?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

/** The subject of the API token the upstream received last. */
function lastApiSubject(): string | undefined {
  const token = /^Bearer (.+)$/.exec(String(upstream.requests.at(-1)?.headers.authorization ?? ''))?.[1];
  if (token === undefined) return undefined;
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).sub as string;
}

/** The SDK client of `user` signed in through the server on `platform`: registration, consent, the API's sign-in, /token. */
async function signIn(platform: Platform, user: string) {
  const login = headlessLogin(as, user, REDIRECT);
  const transport = () => new StreamableHTTPClientTransport(new URL(`${publicUrl(platform)}/mcp`), { authProvider: login.provider });
  return { login, ...(await connectSigningIn(`e2e-${user}`, login, transport)) };
}

/** A fresh SDK client carrying `token` as it is (no sign-in): the token alone must do. */
async function connectWith(platform: Platform, token: string): Promise<Client> {
  const client = new Client({ name: 'e2e-token', version: '1.0.0' });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${publicUrl(platform)}/mcp`), { requestInit: { headers } }));
  return client;
}

const findPets = (client: Client) => client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });

describe.each(PLATFORMS)('the authorization-server mode on %s', (platform) => {
  it('a user signs in through the server, and the tool call reaches the API with their own API token', async () => {
    const alice = await signIn(platform, `alice-${platform}`);
    try {
      expect(alice.login.clientId()).toMatch(/^mcp_/);
      expect(alice.login.tokens()?.access_token).toMatch(/^mcp_at_/);
      const result = await findPets(alice.client);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toContain(`pet of alice-${platform}`);
      expect(lastApiSubject()).toBe(`alice-${platform}`);
      // the MCP token never goes upstream, nor the server's own API key
      const sent = String(upstream.requests.at(-1)?.headers.authorization);
      expect(sent).not.toContain(alice.login.tokens()?.access_token as string);
      expect(sent).not.toContain('server-own-key');
    } finally {
      await alice.client.close();
    }
  }, 120_000);

  it('a new process on the same store honours the token, and still refuses a made-up one', async () => {
    const bob = await signIn(platform, `bob-${platform}`);
    await bob.client.close();
    const token = bob.login.tokens()?.access_token as string;
    await start(platform);
    const client = await connectWith(platform, token);
    try {
      const result = await findPets(client);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(lastApiSubject()).toBe(`bob-${platform}`);
    } finally {
      await client.close();
    }
    expect((await initializeWith(`${publicUrl(platform)}/mcp`, `${token}x`)).status).toBe(401);
  }, 180_000);

  // Workers KV cannot take a record atomically: docs/deploy.md says what that allows.
  it.skipIf(platform === 'cloudflare')(
    'of two uses of one refresh token at once, one gets tokens and the other invalid_grant',
    async () => {
      const carol = await signIn(platform, `carol-${platform}`);
      await carol.client.close();
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: carol.login.tokens()?.refresh_token as string,
        client_id: carol.login.clientId() as string,
      });
      const refresh = () =>
        fetch(`${publicUrl(platform)}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
      const answers = await Promise.all([refresh(), refresh()]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const refused = answers.find((answer) => answer.status === 400) as Response;
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    },
    120_000,
  );
});

/** POST /register from `localAddress` (another loopback address: another caller, as the Function URL tells it). */
async function registerFrom(platform: Platform, localAddress: string): Promise<{ status: number; description?: string }> {
  const body = JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'paced' });
  const { port } = new URL(publicUrl(platform));
  const request = httpRequest({ host: '127.0.0.1', port, localAddress, method: 'POST', path: '/register' });
  request.setHeader('content-type', 'application/json');
  request.end(body);
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const answer = JSON.parse(Buffer.concat(chunks).toString()) as { error_description?: string };
  return { status: response.statusCode ?? 0, ...(answer.error_description !== undefined ? { description: answer.error_description } : {}) };
}

describe.skipIf(redisMissing !== undefined)("on lambda, the caller is the Function URL's source address", () => {
  it('registrations are paced per caller: one past its burst is refused naming it, another caller still registers', async () => {
    const answers = [];
    // The burst of one address (REGISTRATION_BURST, clients.ts), then one more.
    for (let i = 0; i < 31; i++) answers.push(await registerFrom('lambda', '127.0.0.3'));
    expect(answers.slice(0, 30).every((answer) => answer.status === 201)).toBe(true);
    expect(answers[30]?.status).toBe(429);
    expect(answers[30]?.description).toMatch(/^127\.0\.0\.3 registered too many clients/);
    expect(await registerFrom('lambda', '127.0.0.4')).toEqual({ status: 201 });
  }, 120_000);
});

/** What a server of `platform` started with `vars` says: 'served', or why it refuses its settings. */
async function outcomeOf(platform: 'cloudflare' | 'deno' | 'lambda' | 'vercel', vars: Record<string, string>): Promise<string> {
  const port = await freePort();
  const onNode = { ...settings, MCP_PUBLIC_URL: `http://127.0.0.1:${port}`, ...vars };
  const started =
    platform === 'cloudflare'
      ? startWrangler(dir, port, vars, ['--persist-to', join(scratch, 'wrangler-refused')])
      : platform === 'deno'
        ? startDeno(dir, port, { ...vars, DENO_DIR: join(scratch, 'deno-refused'), MCP_PUBLIC_URL: `http://127.0.0.1:${port}` })
        : platform === 'lambda'
          ? startLambda({ ric, taskRoot: join(dir, 'dist/lambda'), env: onNode, port })
          : startVercel(dir, port, onNode);
  return started.then(
    async (served) => {
      // The Lambda runtime starts without being asked: its first answer says whether it serves.
      const health = await fetch(`${served.url}/healthz`);
      await served.stop();
      return health.status === 503 ? `refused its settings: ${await health.text()}` : 'served';
    },
    (error: Error) => error.message,
  );
}

const OWN_STORES = {
  cloudflare: 'durable-object:<BINDING> (or workers-kv:<BINDING>)',
  deno: 'deno-kv',
  lambda: 'redis://… (or rediss://…)',
  vercel: 'redis://… (or rediss://…)',
};

it.each(['cloudflare', 'deno', 'lambda', 'vercel'] as const)(
  'on %s the file store is refused in one line naming the platform store',
  async (platform) => {
    const outcome = await outcomeOf(platform, { MCP_TOKEN_STORE: 'file' });
    expect(outcome).toContain(
      `MCP_TOKEN_STORE=file is served by the Node server only: on ${platform} set MCP_TOKEN_STORE=${OWN_STORES[platform]}`,
    );
  },
  120_000,
);

it('on deno a Redis token store is refused in one line naming Deno KV', async () => {
  const outcome = await outcomeOf('deno', { MCP_TOKEN_STORE: 'redis://127.0.0.1:1' });
  expect(outcome).toContain(
    'MCP_TOKEN_STORE=redis://… is served by the Node server, lambda and vercel only: on deno set MCP_TOKEN_STORE=deno-kv',
  );
}, 120_000);

describe.each(['deno', 'lambda', 'vercel'] as const)('on %s, refused at start in one line naming the Node server', (platform) => {
  const otherIssuer = () => ({
    MCP_OAUTH_ISSUER: as.issuer,
    MCP_OAUTH_CLIENT_ID: 'mcp-server',
    MCP_OAUTH_CLIENT_SECRET: 'mcp-server-secret',
  });

  it('linking API accounts (another authorization server with MCP_OAUTH_API_CLIENT_ID)', async () => {
    const outcome = await outcomeOf(platform, { ...otherIssuer(), DENO_DIR: join(scratch, `deno-link`) });
    expect(outcome).toContain(`linking API accounts (MCP_OAUTH_ISSUER with MCP_OAUTH_API_CLIENT_ID) is not served on ${platform} yet`);
  }, 120_000);
});
