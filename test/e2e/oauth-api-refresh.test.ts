// The user's API token is refreshed at the API before it expires, once, even when calls arrive
// together at two replicas sharing Redis: the API (oidc-provider, rotating refresh tokens and
// taking a second use of one for theft) sees one refresh_token request, and every call goes up
// with the same new token. oidc-provider's API tokens live 62 s here, so that they are within
// the server's 60 s refresh margin two seconds after sign-in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { buildProject, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import { connectSigningIn, headlessLogin, signInAtApiArgs, startApiUpstream } from '../harness/delegated-sign-in.js';
import { redisMissing, startRedis, type RedisServer } from '../harness/redis.js';
import type { Upstream } from '../harness/upstream.js';

if (redisMissing !== undefined) console.log(`oauth-api-refresh.test.ts: ${redisMissing}: skipped`);

const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-mcp-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };
const REDIRECT = 'http://127.0.0.1:1/callback';
const API_TOKEN_TTL_S = 62;

let as: AuthorizationServer;
let upstream: Upstream;
let redis: RedisServer;
let publicUrl: string;
const replicas: RunningServer[] = [];
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-oauth-refresh-'));

beforeAll(async () => {
  if (redisMissing !== undefined) return;
  redis = await startRedis();
  as = await startAuthorizationServer({
    format: 'jwt',
    resources: { [API]: { scopes: ['read:pets'] } },
    defaultResource: API,
    accessTokenTtl: API_TOKEN_TTL_S,
    // slow enough that both replicas start before either has its answer
    refreshDelayMs: 500,
  });
  upstream = await startApiUpstream(as, API);
  const ports = [await freePort(), await freePort()];
  publicUrl = `http://127.0.0.1:${ports[0]}`;
  await as.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [`${publicUrl}/oauth/callback`],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  const dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-refresh');
  await buildProject(dir);
  for (const [i, port] of ports.entries()) {
    // prettier-ignore
    const replica = await startServer(dir, 'http', [
      '--port', String(port), '--replica-id', `r${i}`, '--public-url', publicUrl, '--token-store', redis.url,
      ...signInAtApiArgs(as, APP.clientId), '--base-url', `${upstream.url}/v2`,
    ], { MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret, MCP_TOKEN_STORE_KEY: 'a'.repeat(43) + '=', SWAGGER_PETSTORE_API_KEY: 'k' });
    children.track(replica.process);
    replicas.push(replica);
  }
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await as?.close();
  await upstream?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const apiTokenOf = (i: number) => String(upstream.requests[i]?.headers.authorization ?? '');

describe.skipIf(redisMissing !== undefined)(
  `the API token, refreshed before it expires${redisMissing ? ` (skipped: ${redisMissing})` : ''}`,
  () => {
    it('calls at two replicas at once: one refresh at the API, one new token for all', async () => {
      const login = headlessLogin(as, 'alice', REDIRECT);
      const clients: Client[] = [];
      for (const replica of replicas) {
        const url = new URL(`${replica.url}/mcp`);
        clients.push(
          (await connectSigningIn('refresh', login, () => new StreamableHTTPClientTransport(url, { authProvider: login.provider }))).client,
        );
      }
      try {
        const call = (client: Client) => client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });
        const first = upstream.requests.length;
        expect((await call(clients[0] as Client)).isError).toBeFalsy();
        const signInToken = apiTokenOf(first);
        // within the refresh margin from now on
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const refreshesBefore = as.tokenRequests.refresh_token ?? 0;
        const from = upstream.requests.length;
        const results = await Promise.all([...clients, ...clients, ...clients].map(call));
        expect(results.every((r) => !r.isError)).toBe(true);
        const sent = new Set(upstream.requests.slice(from).map((r) => String(r.headers.authorization)));
        expect(upstream.requests.length - from).toBe(6);
        expect(sent.size).toBe(1);
        expect([...sent][0]).not.toBe(signInToken);
        expect((as.tokenRequests.refresh_token ?? 0) - refreshesBefore).toBe(1);
      } finally {
        for (const client of clients) await client.close();
      }
    }, 60_000);
  },
);
