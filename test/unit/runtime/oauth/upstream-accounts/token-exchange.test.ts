// The token exchanger against a real token endpoint on 127.0.0.1 (node:http), which records
// every request and answers as each test says: the RFC 8693 and Entra on-behalf-of forms,
// client authentication, the cache per caller, shared concurrent requests, and refusals.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { formEncode } from '../../../../../src/runtime/call/request/client-auth.js';
import { createTokenExchanger, type TokenExchangeSettings } from '../../../../../src/runtime/oauth/upstream-accounts/token-exchange.js';
import { discoverAuthorizationServer } from '../../../../../src/runtime/oauth/resource-server/discovery.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';

interface TokenRequest {
  headers: IncomingMessage['headers'];
  form: URLSearchParams;
}
interface Reply {
  status?: number;
  body: string;
  contentType?: string;
  delayMs?: number;
  headers?: Record<string, string>;
}

const log = createLogger('test', 'silent');
let server: Server;
let issuer: string;
const requests: TokenRequest[] = [];
let metadataStatus = 200;
let metadataRequests = 0;
let reply: (request: TokenRequest) => Reply = (request) => ({
  body: JSON.stringify({
    access_token: `api-token-for-${request.form.get('subject_token') ?? request.form.get('assertion')}`,
    token_type: 'Bearer',
    expires_in: 3600,
    issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  }),
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // RFC 8414: an issuer with a path has its metadata under the path (a test may want an issuer of its own).
      const metadataFor = /^\/\.well-known\/oauth-authorization-server(\/.*)?$/.exec(req.url ?? '');
      if (metadataFor) {
        metadataRequests++;
        res.writeHead(metadataStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: `${issuer}${metadataFor[1] ?? ''}`, token_endpoint: `${issuer}/token` }));
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(307, { location: `${issuer}/token` });
        res.end();
        return;
      }
      if (req.url !== '/token' || req.method !== 'POST') {
        res.writeHead(404);
        res.end();
        return;
      }
      const request = { headers: req.headers, form: new URLSearchParams(Buffer.concat(chunks).toString()) };
      requests.push(request);
      const answer = reply(request);
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json', ...answer.headers });
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
const defaultReply = reply;
afterEach(() => {
  requests.splice(0);
  reply = defaultReply;
  metadataStatus = 200;
});

const CLIENT_ID = 'mcp server:1';
const CLIENT_SECRET = 's3cr+t/ é&=%';
const settings = (more: Partial<TokenExchangeSettings> = {}): TokenExchangeSettings => ({
  kind: 'rfc8693',
  issuer,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  audience: 'https://api.example',
  ...more,
});
const caller = (token: string, expiresAt = Math.floor(Date.now() / 1000) + 3600): AuthInfo => ({
  token,
  clientId: 'client',
  scopes: ['mcp:read'],
  expiresAt,
});
const signal = () => AbortSignal.timeout(5_000);
/** RFC 6749 Appendix B: form-urlencoded, `+` for space. */
const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));

describe('the token request', () => {
  it('RFC 8693: the token-exchange form, audience and resource for a URL audience, scope, client_secret_basic', async () => {
    const exchanger = createTokenExchanger(settings({ scope: 'read write' }), { timeoutMs: 5_000, log });
    expect(await exchanger.tokenFor(caller('alice-mcp-token'), signal())).toBe('api-token-for-alice-mcp-token');
    expect(requests).toHaveLength(1);
    const [request] = requests as [TokenRequest];
    expect(Object.fromEntries(request.form)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'alice-mcp-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'https://api.example',
      resource: 'https://api.example',
      scope: 'read write',
    });
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1] as string;
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':') as [string, string];
    // Each part form-urlencoded before base64, so that a ':' in either survives.
    expect([id, secret]).toEqual([formEncode(CLIENT_ID), formEncode(CLIENT_SECRET)]);
    expect([formDecode(id), formDecode(secret)]).toEqual([CLIENT_ID, CLIENT_SECRET]);
    expect(id).toBe('mcp+server%3A1');
  });

  it('RFC 8693: an audience that is not a URL goes as audience only; no scope when none is set', async () => {
    const exchanger = createTokenExchanger(settings({ audience: 'orders-api' }), { timeoutMs: 5_000, log });
    await exchanger.tokenFor(caller('t1'), signal());
    expect(Object.fromEntries((requests[0] as TokenRequest).form)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 't1',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'orders-api',
    });
  });

  it("Entra on-behalf-of: the jwt-bearer form with the client's id and secret in the body, no Authorization", async () => {
    const exchanger = createTokenExchanger(
      { kind: 'entra-obo', issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'api://orders/.default' },
      { timeoutMs: 5_000, log },
    );
    expect(await exchanger.tokenFor(caller('bob-jwt'), signal())).toBe('api-token-for-bob-jwt');
    const [request] = requests as [TokenRequest];
    expect(Object.fromEntries(request.form)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      assertion: 'bob-jwt',
      requested_token_use: 'on_behalf_of',
      scope: 'api://orders/.default',
    });
    expect(request.headers.authorization).toBeUndefined();
  });
});

describe('the cache', () => {
  it('one exchange per caller: two callers make two, the same caller twice makes one', async () => {
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log });
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-token-for-alice');
    expect(await exchanger.tokenFor(caller('bob'), signal())).toBe('api-token-for-bob');
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-token-for-alice');
    expect(requests.map((r) => r.form.get('subject_token'))).toEqual(['alice', 'bob']);
  });

  it('a new exchange once the token is within a minute of its expires_in', async () => {
    let clock = Date.now();
    reply = (r) => ({ body: JSON.stringify({ access_token: `api-${requests.length}-${r.form.get('subject_token')}`, expires_in: 300 }) });
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log, now: () => clock });
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-1-alice');
    clock += 239_000;
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-1-alice');
    clock += 2_000; // 241 s: less than 60 s left
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-2-alice');
    expect(requests).toHaveLength(2);
  });

  it("never past the caller token's own expiry", async () => {
    let clock = Date.now();
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log, now: () => clock });
    const expiresAt = Math.floor(clock / 1000) + 30; // the caller's token: 30 s left; the API token: an hour
    await exchanger.tokenFor(caller('alice', expiresAt), signal());
    clock += 20_000;
    await exchanger.tokenFor(caller('alice', expiresAt), signal());
    expect(requests).toHaveLength(1);
    clock += 11_000;
    await exchanger.tokenFor(caller('alice', expiresAt), signal());
    expect(requests).toHaveLength(2);
  });

  it('concurrent calls of one caller share one request', async () => {
    reply = (r) => ({ delayMs: 200, body: JSON.stringify({ access_token: `api-${r.form.get('subject_token')}`, expires_in: 3600 }) });
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log });
    const tokens = await Promise.all([1, 2, 3, 4].map(() => exchanger.tokenFor(caller('alice'), signal())));
    expect(tokens).toEqual(['api-alice', 'api-alice', 'api-alice', 'api-alice']);
    expect(requests).toHaveLength(1);
  });

  it('a caller who gives up leaves the shared request to the others', async () => {
    reply = (r) => ({ delayMs: 300, body: JSON.stringify({ access_token: `api-${r.form.get('subject_token')}`, expires_in: 3600 }) });
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log });
    const impatient = exchanger.tokenFor(caller('alice'), AbortSignal.timeout(50));
    const patient = exchanger.tokenFor(caller('alice'), signal());
    await expect(impatient).rejects.toThrow();
    expect(await patient).toBe('api-alice');
    expect(requests).toHaveLength(1);
  });

  it('bounded: past maxEntries the oldest caller is exchanged again', async () => {
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log, maxEntries: 2 });
    for (const who of ['a', 'b', 'c', 'c', 'b', 'a']) await exchanger.tokenFor(caller(who), signal());
    expect(requests.map((r) => r.form.get('subject_token'))).toEqual(['a', 'b', 'c', 'a']);
  });

  it('forget: the API refused the token, the next call exchanges anew', async () => {
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log });
    await exchanger.tokenFor(caller('alice'), signal());
    exchanger.forget(caller('alice'));
    await exchanger.tokenFor(caller('alice'), signal());
    expect(requests).toHaveLength(2);
  });

  it('a failure is not cached: the next call asks again', async () => {
    reply = () => ({ status: 503, body: 'busy', contentType: 'text/plain' });
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 5_000, log });
    await expect(exchanger.tokenFor(caller('alice'), signal())).rejects.toThrow(/answered HTTP 503/);
    reply = defaultReply;
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-token-for-alice');
    expect(requests).toHaveLength(2);
  });
});

describe('refusals: one line, no token, no secret', () => {
  const attempt = async (answer: Reply, more: Partial<TokenExchangeSettings> = {}) => {
    reply = () => answer;
    const exchanger = createTokenExchanger(settings(more), { timeoutMs: 2_000, log });
    try {
      await exchanger.tokenFor(caller('alice-secret-token'), signal());
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('no refusal');
  };

  it("the AS's error and error_description, with the caller's token and the client secret taken out", async () => {
    const message = await attempt({
      status: 400,
      body: JSON.stringify({
        error: 'invalid_target',
        error_description: `audience not allowed for client ${CLIENT_SECRET}\nsubject alice-secret-token`,
      }),
    });
    expect(message).toBe(`token exchange at ${issuer}/token refused (invalid_target: audience not allowed for client *** subject ***)`);
    expect(message).not.toMatch(/\n/);
  });

  it('invalid_grant: the caller token is expired or revoked, said so', async () => {
    const message = await attempt({ status: 400, body: JSON.stringify({ error: 'invalid_grant', error_description: 'token revoked' }) });
    expect(message).toBe(
      "the authorization server would not exchange the caller's token (invalid_grant: token revoked): it may have expired or been revoked; sign in again",
    );
  });

  it('an error answer without an OAuth error: its status', async () => {
    expect(await attempt({ status: 500, body: '<html>alice-secret-token</html>', contentType: 'text/html' })).toBe(
      `token exchange at ${issuer}/token answered HTTP 500`,
    );
  });

  it('an answer that is not JSON', async () => {
    expect(await attempt({ body: 'access_token=alice-secret-token', contentType: 'text/plain' })).toBe(
      `token exchange at ${issuer}/token answered something that is not a JSON object`,
    );
  });

  it('an answer larger than a token response', async () => {
    const body = JSON.stringify({ access_token: 'x', padding: 'y'.repeat(70_000) });
    expect(await attempt({ body })).toBe(`token exchange at ${issuer}/token answered more than 65536 bytes; not a token response`);
  });

  it('no access_token, or one no header can carry, or not a Bearer token', async () => {
    expect(await attempt({ body: JSON.stringify({ token_type: 'Bearer' }) })).toMatch(/answered without an access_token$/);
    expect(await attempt({ body: JSON.stringify({ access_token: 'a\r\nX-Evil: 1' }) })).toMatch(/cannot be sent in a header$/);
    expect(await attempt({ body: JSON.stringify({ access_token: 'abc', token_type: 'N_A' }) })).toMatch(/of type "N_A", not Bearer$/);
  });

  it('a redirect is not followed: the client secret goes to the token endpoint only', async () => {
    const message = await attempt({ status: 307, body: '', headers: { location: `${issuer}/elsewhere` } });
    expect(message).toBe(`token exchange at ${issuer}/token failed (unexpected redirect)`);
    expect(requests).toHaveLength(1);
  });

  it('no answer in time', async () => {
    reply = () => ({ delayMs: 1_000, body: '{}' });
    const exchanger = createTokenExchanger(settings(), { timeoutMs: 200, log });
    await expect(exchanger.tokenFor(caller('alice'), signal())).rejects.toThrow(
      `token exchange at ${issuer}/token failed (no answer within 200 ms)`,
    );
  });

  it("the exchanger uses the resource server's discovery: the metadata is fetched once per process", async () => {
    const shared = `${issuer}/shared`;
    const before = metadataRequests;
    await discoverAuthorizationServer(shared); // what oauth.ts does at start
    const exchanger = createTokenExchanger(settings({ issuer: shared }), { timeoutMs: 2_000, log });
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-token-for-alice');
    expect(await createTokenExchanger(settings({ issuer: shared }), { timeoutMs: 2_000, log }).tokenFor(caller('bob'), signal())).toBe(
      'api-token-for-bob',
    );
    expect(metadataRequests - before).toBe(1);
  });

  it('a failed discovery is tried again on the next call', async () => {
    metadataStatus = 500;
    // A successful discovery is remembered per issuer for the process: this test needs an issuer no other has discovered.
    const exchanger = createTokenExchanger(settings({ issuer: `${issuer}/retry` }), { timeoutMs: 2_000, log });
    await expect(exchanger.tokenFor(caller('alice'), signal())).rejects.toThrow(
      /^token exchange: cannot discover the authorization server/,
    );
    metadataStatus = 200;
    expect(await exchanger.tokenFor(caller('alice'), signal())).toBe('api-token-for-alice');
  });
});
