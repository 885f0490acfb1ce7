// Linking each user's API account while they are signed in with the company's authorization
// server (--oauth-issuer with --oauth-api-client-id). Two oidc-provider instances on 127.0.0.1:
// the company's (which issues the MCP tokens and signs people in when they open a link) and the
// API's (whose JWTs the recording upstream alone accepts). A client that takes URL-mode
// elicitation is asked to open the link (input-required for 2026-07-28, elicitation/create for
// 2025-11-25) and its call goes on once linked; a client that does not gets a tool error naming
// the URL, and the call works after linking; a link opened by someone else links nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { buildProject, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import { newBrowser } from '../harness/delegated-sign-in.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-app', clientSecret: `app-${randomBytes(8).toString('hex')}` };
const SELF = { clientId: 'mcp-server', clientSecret: `self-${randomBytes(8).toString('hex')}` };
const REDIRECT = 'http://127.0.0.1:1/callback';

let company: AuthorizationServer;
let api: AuthorizationServer;
let upstream: Upstream;
let server: RunningServer;
let publicUrl: string;
const children = new Children();

beforeAll(async () => {
  const data = join(TMP, `oauth-link-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  publicUrl = `http://127.0.0.1:${await freePort()}`;
  company = await startAuthorizationServer({ format: 'jwt', resources: {} });
  company.addResource(publicUrl, ['mcp:read', 'mcp:write']);
  company.addResource(`${publicUrl}/`, ['mcp:read', 'mcp:write']);
  // the identifier of the endpoint, which its 401 sends the SDK client to sign in for (RFC 9728 §3.3)
  company.addResource(`${publicUrl}/mcp`, ['mcp:read', 'mcp:write']);
  await company.registerClient({ ...SELF, grantTypes: ['authorization_code'], redirectUris: [`${publicUrl}/oauth/link/callback`] });
  api = await startAuthorizationServer({ format: 'jwt', resources: { [API]: { scopes: ['read:pets'] } }, defaultResource: API });
  await api.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [`${publicUrl}/oauth/callback`],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  const keys = createRemoteJWKSet(new URL(`${api.issuer}/jwks`));
  upstream = await startUpstream(async (req) => {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    try {
      const { payload } = await jwtVerify(token ?? '', keys, { issuer: api.issuer, audience: API });
      return { body: JSON.stringify([{ id: 1, name: `pet of ${payload.sub}`, photoUrls: [] }]) };
    } catch {
      return { status: 401, body: '{"message":"Bad credentials"}' };
    }
  });
  const dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-link');
  await buildProject(dir);
  // prettier-ignore
  server = await startServer(dir, 'http', [
    '--port', new URL(publicUrl).port, '--public-url', publicUrl,
    '--oauth-issuer', company.issuer, '--oauth-client-id', SELF.clientId,
    '--oauth-api-client-id', APP.clientId, '--oauth-api-authorization-url', `${api.issuer}/auth`,
    '--oauth-api-token-url', `${api.issuer}/token`, '--oauth-api-scopes', 'read:pets',
    '--data-dir', data, '--base-url', `${upstream.url}/v2`,
  ], {
    MCP_OAUTH_CLIENT_SECRET: SELF.clientSecret,
    MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret,
    MCP_TOKEN_STORE_KEY: randomBytes(32).toString('base64'),
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
  });
  children.track(server.process);
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await company?.close();
  await api?.close();
  await upstream?.close();
});

/**
 * What the person's browser does with a link URL: sign in at the company's authorization
 * server as `person`, then at the API as `apiUser`. Answers the last page's status.
 */
async function openLink(url: string, person: string, apiUser: string): Promise<number> {
  const browser = newBrowser();
  const toCompany = await browser.fetch(url);
  if (toCompany.status !== 302) return toCompany.status;
  const fromCompany = await company.signIn(toCompany.headers.get('location') as string, person);
  const verified = new URL(fromCompany.redirectUri);
  verified.search = new URLSearchParams({ code: fromCompany.code, state: fromCompany.state ?? '' }).toString();
  const toApi = await browser.fetch(verified);
  if (toApi.status !== 302) return toApi.status;
  const fromApi = await api.signIn(toApi.headers.get('location') as string, apiUser);
  const back = new URL(fromApi.redirectUri);
  back.search = new URLSearchParams({ code: fromApi.code, state: fromApi.state ?? '' }).toString();
  return (await browser.fetch(back)).status;
}

/** The SDK client signed in at the company's authorization server as `user`; `elicit` answers URL elicitations. */
async function connectAs(user: string, options: { era?: '2026'; elicit?: (url: string) => Promise<'accept' | 'decline'> } = {}) {
  let info: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  let tokens: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  let verifier = '';
  let pending: ReturnType<AuthorizationServer['signIn']> | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl: REDIRECT,
    clientMetadata: { redirect_uris: [REDIRECT], client_name: `e2e ${user}`, token_endpoint_auth_method: 'none' },
    clientInformation: () => info,
    saveClientInformation: (saved) => void (info = saved),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    redirectToAuthorization: (url) => void (pending = company.signIn(url, user)),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  const elicited: { mode?: string; url?: string }[] = [];
  const newClient = () => {
    const client = new Client(
      { name: `e2e-${user}`, version: '1.0.0' },
      {
        ...(options.era === '2026' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
        capabilities: options.elicit ? { elicitation: { url: {} } } : {},
      },
    );
    if (options.elicit) {
      const answer = options.elicit;
      client.setRequestHandler('elicitation/create', async (request) => {
        const params = request.params as { mode?: string; url?: string };
        elicited.push(params);
        return { action: await answer(params.url ?? '') };
      });
    }
    return client;
  };
  const transport = () => new StreamableHTTPClientTransport(new URL(`${publicUrl}/mcp`), { authProvider: provider });
  let client = newClient();
  const first = transport();
  try {
    await client.connect(first);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    const signedIn = await pending;
    await first.finishAuth(signedIn!.code, signedIn!.iss);
    client = newClient();
    await client.connect(transport());
  }
  return { client, elicited };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const findPets = (client: Client) => client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });
const linkIn = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/oauth\/link\?id=[\w-]+)/.exec(text)?.[1];

describe('a user links their API account on first need', () => {
  it('without URL elicitation: a tool error names the link; once linked, the call works with that account', async () => {
    const { client } = await connectAs('alice');
    try {
      const before = upstream.requests.length;
      const first = await findPets(client);
      expect(first.isError).toBe(true);
      const url = linkIn(textOf(first));
      expect(url, textOf(first)).toBeDefined();
      // nothing went upstream without the user's API account
      expect(upstream.requests.length).toBe(before);
      expect(await openLink(url as string, 'alice', 'alice-at-api')).toBe(200);
      const second = await findPets(client);
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(textOf(second)).toContain('pet of alice-at-api');
      // a link is used once
      expect(await openLink(url as string, 'alice', 'alice-at-api')).toBe(400);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a link opened by someone else links nothing', async () => {
    const { client } = await connectAs('bob');
    try {
      const url = linkIn(textOf(await findPets(client))) as string;
      expect(await openLink(url, 'mallory', 'mallory-at-api')).toBe(403);
      const still = await findPets(client);
      expect(still.isError).toBe(true);
      expect(linkIn(textOf(still))).toBeDefined();
      expect(textOf(still)).not.toContain('mallory');
    } finally {
      await client.close();
    }
  }, 60_000);

  it.each([
    ['2025-11-25 (elicitation/create, mode url)', undefined],
    ['2026-07-28 (input required)', '2026' as const],
  ])(
    'with URL elicitation, %s: the client is asked to open the link and the same call goes on',
    async (_label, era) => {
      const user = era === '2026' ? 'dana' : 'carol';
      const { client, elicited } = await connectAs(user, {
        ...(era ? { era } : {}),
        elicit: async (url) => ((await openLink(url, user, `${user}-at-api`)) === 200 ? 'accept' : 'decline'),
      });
      try {
        const result = await findPets(client);
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(textOf(result)).toContain(`pet of ${user}-at-api`);
        expect(elicited).toHaveLength(1);
        expect(elicited[0]).toMatchObject({ mode: 'url' });
        expect(linkIn(elicited[0]?.url ?? '')).toBeDefined();
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('declined: the call ends with the tool error, nothing is sent upstream', async () => {
    const { client, elicited } = await connectAs('erin', { elicit: async () => 'decline' });
    try {
      const before = upstream.requests.length;
      const result = await findPets(client);
      expect(result.isError).toBe(true);
      expect(linkIn(textOf(result))).toBeDefined();
      expect(elicited).toHaveLength(1);
      expect(upstream.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  }, 60_000);
});
