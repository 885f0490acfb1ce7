// The runtime's upstream authentication (src/runtime/call/request/credentials.ts, and
// client-credentials.ts for the tokens), on its own: each scheme puts the credential where RFC
// and spec say, alternatives are tried in order, a missing secret names the variable, and the
// OAuth 2.0 client-credentials grant runs against a real local token endpoint that records
// what it receives.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator, type AuthRequest } from '../../../../../src/runtime/call/request/credentials.js';
import { MAX_TOKEN_RESPONSE_BYTES } from '../../../../../src/runtime/call/request/client-credentials.js';
import { credentialProblem } from '../../../../../src/runtime/start/serving.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import type { AuthSchemeSpec, SecurityRequirement, ToolSpec, ToolTable } from '../../../../../src/contract/table.js';

const NONE = new Map<string, string>();
const signal = () => AbortSignal.timeout(5_000);
const log = createLogger('t', 'silent');

function tableWith(auth: Record<string, AuthSchemeSpec>): ToolTable {
  return { format: 1, name: 't', version: '1', servers: [], defs: {}, auth, tools: [] };
}
const tool = (security?: SecurityRequirement[]): ToolSpec => ({
  name: 'op',
  description: '',
  inputSchema: { type: 'object' },
  annotations: {},
  http: { method: 'GET', path: '/', params: [] },
  ...(security ? { security } : {}),
});
const request = (): AuthRequest => ({ url: 'https://api.example.com/x?a=1', headers: {} });

describe('schemes from the environment', () => {
  const auth: Record<string, AuthSchemeSpec> = {
    header: { type: 'apiKey', in: 'header', name: 'X-Key', env: { key: 'T_HEADER_KEY' } },
    query: { type: 'apiKey', in: 'query', name: 'api key', env: { key: 'T_QUERY_KEY' } },
    cookie: { type: 'apiKey', in: 'cookie', name: 'sid', env: { key: 'T_COOKIE_KEY' } },
    basic: { type: 'basic', env: { username: 'T_USER', password: 'T_PASS' } },
    bearer: { type: 'http', scheme: 'Bearer', env: { token: 'T_TOKEN' } },
  };
  const env = { T_HEADER_KEY: 'k1', T_QUERY_KEY: 'a&b', T_COOKIE_KEY: 'c d', T_USER: 'ann', T_PASS: 'pä:ss', T_TOKEN: 'Bearer tok' };
  const authenticator = new Authenticator(tableWith(auth), env, log, 5_000);

  it.each([
    ['apiKey in a header', 'header', { url: 'https://api.example.com/x?a=1', headers: { 'X-Key': 'k1' } }],
    // the name and value are percent-encoded as a query pair
    ['apiKey in the query', 'query', { url: 'https://api.example.com/x?a=1&api%20key=a%26b', headers: {} }],
    ['apiKey in a cookie', 'cookie', { url: 'https://api.example.com/x?a=1', headers: { Cookie: 'sid=c%20d' } }],
    // RFC 7617: user-id ":" password, UTF-8, base64
    [
      'HTTP basic',
      'basic',
      { url: 'https://api.example.com/x?a=1', headers: { Authorization: `Basic ${Buffer.from('ann:pä:ss').toString('base64')}` } },
    ],
    // a token given with its scheme is not sent as "Bearer Bearer …"
    ['HTTP bearer', 'bearer', { url: 'https://api.example.com/x?a=1', headers: { Authorization: 'Bearer tok' } }],
  ])('%s', async (_label, scheme, want) => {
    const req = request();
    expect(await authenticator.apply(tool([{ [scheme]: [] }]), req, NONE, signal())).toEqual({ ok: true, usedTokenFetch: false });
    expect(req).toEqual(want);
  });

  it('no security: nothing is added', async () => {
    const req = request();
    expect(await authenticator.apply(tool(), req, NONE, signal())).toEqual({ ok: true, usedTokenFetch: false });
    expect(req.headers).toEqual({});
  });
});

describe('alternatives and missing credentials', () => {
  const auth: Record<string, AuthSchemeSpec> = {
    key: { type: 'apiKey', in: 'header', name: 'X-Key', env: { key: 'A_KEY' } },
    token: { type: 'http', scheme: 'Bearer', env: { token: 'A_TOKEN' } },
  };

  it('the first alternative whose secrets are set is used', async () => {
    const req = request();
    await new Authenticator(tableWith(auth), { A_TOKEN: 't' }, log, 5_000).apply(tool([{ key: [] }, { token: [] }]), req, NONE, signal());
    expect(req.headers).toEqual({ Authorization: 'Bearer t' });
  });

  it("preferred schemes' alternatives go first (the caller's exchanged token before the server's key), else the spec's order", async () => {
    const authenticator = new Authenticator(tableWith(auth), { A_KEY: 'k' }, log, 5_000);
    const given = new Map([['token', 'exchanged']]);
    const preferred = request();
    await authenticator.apply(tool([{ key: [] }, { token: [] }]), preferred, given, signal(), new Set(['token']));
    expect(preferred.headers).toEqual({ Authorization: 'Bearer exchanged' });
    const inOrder = request();
    await authenticator.apply(tool([{ key: [] }, { token: [] }]), inOrder, given, signal());
    expect(inOrder.headers).toEqual({ 'X-Key': 'k' });
  });

  it('optional authentication ({}): no credential is fine, and one that is set is still sent', async () => {
    const none = request();
    expect((await new Authenticator(tableWith(auth), {}, log, 5_000).apply(tool([{ key: [] }, {}]), none, NONE, signal())).ok).toBe(true);
    expect(none.headers).toEqual({});
    const some = request();
    await new Authenticator(tableWith(auth), { A_KEY: 'k' }, log, 5_000).apply(tool([{}, { key: [] }]), some, NONE, signal());
    expect(some.headers).toEqual({ 'X-Key': 'k' });
  });

  it('nothing set: the message names every way, by variable, and no value', async () => {
    const outcome = await new Authenticator(tableWith(auth), { OTHER: 'secret-value' }, log, 5_000).apply(
      tool([{ key: [], token: [] }, { token: [] }]),
      request(),
      NONE,
      signal(),
    );
    expect(outcome).toEqual({
      ok: false,
      message: 'op needs credentials that are not set: set A_KEY for "key" plus A_TOKEN for "token", or A_TOKEN for "token"',
    });
  });

  it('a credential from the MCP client (per request) wins over the environment', async () => {
    const req = request();
    await new Authenticator(tableWith(auth), { A_KEY: 'from-env' }, log, 5_000).apply(
      tool([{ key: [] }]),
      req,
      new Map([['key', 'from-client']]),
      signal(),
    );
    expect(req.headers).toEqual({ 'X-Key': 'from-client' });
  });

  it('credentialProblem names a variable whose value cannot be sent, never the value', () => {
    const problem = credentialProblem(tableWith(auth), { A_KEY: 'line\nbreak-secret' });
    expect(problem).toMatch(/^A_KEY /);
    expect(problem).not.toContain('break-secret');
    expect(credentialProblem(tableWith(auth), { A_KEY: 'fine' })).toBeUndefined();
  });
});

describe('OAuth 2.0 client credentials (RFC 6749 §4.4) against a local token endpoint', () => {
  let server: Server;
  let tokenUrl: string;
  const received: { authorization?: string; contentType?: string; body: string }[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    answer = { status: 200, body: JSON.stringify({ access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 }) };
  });

  const oauth = (): Record<string, AuthSchemeSpec> => ({
    cc: { type: 'oauth2', clientCredentials: { tokenUrl }, env: { token: 'O_TOKEN', clientId: 'O_ID', clientSecret: 'O_SECRET' } },
  });
  const env = { O_ID: 'id:1', O_SECRET: 's&cret' };

  it('fetches a token with client_secret_basic and the scopes, sends it as Bearer, and caches it', async () => {
    const authenticator = new Authenticator(tableWith(oauth()), env, log, 5_000);
    const first = request();
    expect(await authenticator.apply(tool([{ cc: ['read', 'write'] }]), first, NONE, signal())).toEqual({ ok: true, usedTokenFetch: true });
    expect(first.headers).toEqual({ Authorization: 'Bearer at-1' });
    // RFC 6749 §2.3.1: client id and secret form-encoded, then joined by ":" and base64-encoded
    expect(received).toEqual([
      {
        authorization: `Basic ${Buffer.from('id%3A1:s%26cret').toString('base64')}`,
        contentType: 'application/x-www-form-urlencoded',
        body: 'grant_type=client_credentials&scope=read+write',
      },
    ]);
    await authenticator.apply(tool([{ cc: ['write', 'read'] }]), request(), NONE, signal());
    expect(received).toHaveLength(1); // same scopes, in another order: the cached token
    authenticator.invalidate();
    await authenticator.apply(tool([{ cc: ['read', 'write'] }]), request(), NONE, signal());
    expect(received).toHaveLength(2);
  });

  it('a ready token in the environment is used without fetching', async () => {
    const req = request();
    await new Authenticator(tableWith(oauth()), { ...env, O_TOKEN: 'ready' }, log, 5_000).apply(tool([{ cc: [] }]), req, NONE, signal());
    expect(req.headers).toEqual({ Authorization: 'Bearer ready' });
    expect(received).toEqual([]);
  });

  it.each([
    ['an error status', { status: 401, body: '{"error":"invalid_client"}' }, /answered HTTP 401$/],
    ['no access_token', { status: 200, body: '{"token_type":"Bearer"}' }, /answered without an access_token$/],
    ['not JSON', { status: 200, body: '<html>' }, /answered something that is not JSON$/],
    ['an endless answer', { status: 200, body: 'x'.repeat(MAX_TOKEN_RESPONSE_BYTES + 10) }, /answered more than 65536 bytes/],
  ])('%s: a failed outcome naming the token URL, never the secret', async (_label, given, message) => {
    answer = given;
    const outcome = await new Authenticator(tableWith(oauth()), env, log, 5_000).apply(tool([{ cc: [] }]), request(), NONE, signal());
    expect(outcome.ok).toBe(false);
    const text = outcome.ok ? '' : outcome.message;
    expect(text).toMatch(message);
    expect(text).toContain(tokenUrl);
    expect(text).not.toContain('s&cret');
  });

  // A spec loaded from a URL (ToolTable.publicServers): its tokenUrl gets the client secret only
  // on a public address, or on the spec's own origin when the user fetched it from an internal one.
  it.each([
    ['a spec from a public URL', {}, 0],
    ["the spec's own internal origin", () => ({ trustedOrigin: new URL(tokenUrl).origin }), 1],
  ])('the tokenUrl on an internal address, for %s', async (_label, rule, sent) => {
    const table = { ...tableWith(oauth()), publicServers: typeof rule === 'function' ? rule() : rule };
    const outcome = await new Authenticator(table, env, log, 5_000).apply(tool([{ cc: [] }]), request(), NONE, signal());
    expect(received).toHaveLength(sent);
    expect(outcome.ok ? '' : outcome.message).toBe(
      sent ? '' : `op: token request to ${tokenUrl} not sent: 127.0.0.1 is an internal address`,
    );
  });
  // Several APIs: each scheme's token URL by the rule of its own API (ApiSpec.publicServers), whichever API is first.
  it.each([false, true])("several APIs, the one from a URL first: %s; each scheme's token URL by its API's rule", async (zooFirst) => {
    const scheme = oauth().cc as AuthSchemeSpec;
    const shop = { servers: [], baseUrlEnv: 'SHOP_BASE_URL' };
    const zoo = { servers: [], baseUrlEnv: 'ZOO_BASE_URL', publicServers: {} };
    const table = {
      ...tableWith({ shop_cc: { ...scheme, api: 'shop' }, zoo_cc: { ...scheme, api: 'zoo' } }),
      apis: zooFirst ? { zoo, shop } : { shop, zoo },
      ...(zooFirst ? { publicServers: zoo.publicServers } : {}),
    };
    const authenticator = new Authenticator(table, env, log, 5_000);
    const fromFile = await authenticator.apply(tool([{ shop_cc: [] }]), request(), NONE, signal());
    expect(fromFile).toEqual({ ok: true, usedTokenFetch: true });
    const fromUrl = await authenticator.apply(tool([{ zoo_cc: [] }]), request(), NONE, signal());
    expect(fromUrl.ok ? '' : fromUrl.message).toBe(`op: token request to ${tokenUrl} not sent: 127.0.0.1 is an internal address`);
    expect(received).toHaveLength(1);
  });
  // A scheme's API is the one the table records, not the longest namespace its name starts with:
  // shop's scheme eu_cc is shop_eu_cc beside an API namespaced shop_eu.
  it("several APIs whose namespaces start alike: a scheme's token URL by the rule of its recorded API", async () => {
    const scheme = oauth().cc as AuthSchemeSpec;
    const shop = { servers: [], baseUrlEnv: 'SHOP_BASE_URL' };
    const shopEu = { servers: [], baseUrlEnv: 'SHOP_EU_BASE_URL', publicServers: {} };
    const table = { ...tableWith({ shop_eu_cc: { ...scheme, api: 'shop' } }), apis: { shop, shop_eu: shopEu } };
    const outcome = await new Authenticator(table, env, log, 5_000).apply(tool([{ shop_eu_cc: [] }]), request(), NONE, signal());
    expect(outcome).toEqual({ ok: true, usedTokenFetch: true });
    expect(received).toHaveLength(1);
  });
});
