// Token exchange (RFC 8693, MCP_TOKEN_EXCHANGE) on the platforms' own runtimes (issue #40): the
// Petstore project generated with --target cloudflare,deno,lambda,vercel, served by workerd
// through `wrangler dev`, by `deno task start`, as the Lambda bundle under aws-lambda-ric and as
// the Vercel function (test/harness/function-url.ts, vercel-adapter.mts), each an OAuth resource server of a real authorization server
// (oidc-provider, test/harness/authorization-server.ts) that performs the exchange at its token
// endpoint. The official SDK client calls with a token issued for the MCP server; the recording
// upstream accepts only tokens that authorization server issued for the API, and must get the
// caller's own exchanged token, never the caller's token nor the server's own API key.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connect } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startDeno, startTogether, startVercel, startWrangler, writeLocalVariables, type PlatformServer } from '../harness/platforms.js';
import { petstoreForEveryPlatform, startLambda } from '../harness/function-url.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { startApiUpstream } from '../harness/delegated-sign-in.js';
import type { Upstream } from '../harness/upstream.js';

/** The API as the authorization server names it: the audience of the exchanged tokens. */
const API = 'https://api.petstore.test/';
const SCOPES = ['mcp:read', 'mcp:write'];
const SERVER_KEY = 'server-own-key';
const PLATFORMS = ['cloudflare', 'deno', 'lambda', 'vercel'] as const;
type Platform = (typeof PLATFORMS)[number];

let dir: string;
let as: AuthorizationServer;
let upstream: Upstream;
const servers: Partial<Record<Platform, PlatformServer>> = {};
const clients: Client[] = [];

/** The confidential client each platform's server exchanges tokens as: only tokens issued for its own /mcp. */
const clientOf = (platform: Platform) => ({ clientId: `mcp-exchange-${platform}`, clientSecret: `exchange-secret-${platform}` });

beforeAll(async () => {
  as = await startAuthorizationServer({ format: 'jwt', resources: { [API]: { scopes: ['read:pets', 'write:pets'] } } });
  upstream = await startApiUpstream(as, API);
  let ric: string;
  ({ dir, ric } = await petstoreForEveryPlatform(join(tmpdir(), 'mcp-gen-e2e-platforms-exchange')));
  const variables = { API_BASE_URL: `${upstream.url}/v2`, SWAGGER_PETSTORE_API_KEY: SERVER_KEY, LOG_LEVEL: 'warn' };
  writeLocalVariables(dir, variables);
  const ports = { cloudflare: await freePort(), deno: await freePort(), lambda: await freePort(), vercel: await freePort() };
  const settings = (platform: Platform) => {
    const { clientId, clientSecret } = clientOf(platform);
    return {
      // The functions read no .env: their environment is all they are given.
      ...(platform === 'lambda' || platform === 'vercel' ? variables : {}),
      MCP_OAUTH_ISSUER: as.issuer,
      MCP_PUBLIC_URL: `http://127.0.0.1:${ports[platform]}`,
      MCP_OAUTH_CLIENT_ID: clientId,
      MCP_OAUTH_CLIENT_SECRET: clientSecret,
      MCP_TOKEN_EXCHANGE: 'rfc8693',
      MCP_TOKEN_EXCHANGE_AUDIENCE: API,
    };
  };
  for (const platform of PLATFORMS) {
    const resource = `http://127.0.0.1:${ports[platform]}/mcp`;
    as.addResource(resource, SCOPES);
    await as.registerClient({ ...clientOf(platform), resource });
  }
  [servers.cloudflare, servers.deno, servers.lambda, servers.vercel] = await startTogether([
    startWrangler(dir, ports.cloudflare, settings('cloudflare')),
    startDeno(dir, ports.deno, settings('deno')),
    startLambda({ ric, taskRoot: join(dir, 'dist/lambda'), env: settings('lambda'), port: ports.lambda }),
    startVercel(dir, ports.vercel, settings('vercel')),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  await as?.close();
  await upstream?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The claims of the token the upstream got last (a JWT of the authorization server). */
function lastUpstreamToken(): { token: string; sub: string; aud: string } {
  const token = /^Bearer (.+)$/.exec(String(upstream.requests.at(-1)?.headers.authorization ?? ''))?.[1] ?? '';
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}') as { sub: string; aud: string };
  return { token, ...claims };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe.each(PLATFORMS)('token exchange on %s', (platform) => {
  it("each caller's call reaches the API with that caller's own exchanged token, exchanged once", async () => {
    const url = servers[platform]?.url as string;
    const exchangedBefore = as.exchanges.length;
    for (const user of [`alice-${platform}`, `bob-${platform}`]) {
      const callerToken = await as.issueToken({ user, scopes: SCOPES, resource: `${url}/mcp` });
      const client = await connect('http', url, { headers: { authorization: `Bearer ${callerToken}` } });
      clients.push(client);
      for (let call = 0; call < 2; call++) {
        const result = await client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(textOf(result)).toContain(`pet of ${user}`);
        const sent = lastUpstreamToken();
        expect({ sub: sent.sub, aud: sent.aud }).toEqual({ sub: user, aud: API });
        // Neither the caller's token, meant for this server, nor the server's own key goes upstream.
        expect(sent.token).not.toBe(callerToken);
        expect(JSON.stringify(upstream.requests.at(-1))).not.toContain(callerToken);
        expect(JSON.stringify(upstream.requests.at(-1))).not.toContain(SERVER_KEY);
      }
    }
    // One exchange per caller: the second call used the token kept for that caller.
    const exchanges = as.exchanges.slice(exchangedBefore);
    expect(exchanges.map((e) => [e.clientId, e.subject])).toEqual([
      [clientOf(platform).clientId, `alice-${platform}`],
      [clientOf(platform).clientId, `bob-${platform}`],
    ]);
  }, 120_000);
});
