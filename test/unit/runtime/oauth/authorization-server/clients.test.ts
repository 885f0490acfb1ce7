// The authorization-server mode's clients (src/runtime/oauth/authorization-server/clients.ts) against a real file token
// store and real servers on loopback: client ID metadata documents from internal addresses, slow
// or many documents, what a failed fetch tells the caller; and dynamic registration's limits
// (per address, unused registrations in all) and lifetimes.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { globalAgent, createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClients, type Client, type ClientsOptions } from '../../../../../src/runtime/oauth/authorization-server/clients.js';
import { openTokenStore, type TokenStore } from '../../../../../src/runtime/oauth/authorization-server/token-store.js';
import { recordingLogger } from '../../../../harness/http-steps.js';
import { selfSignedCertificate } from '../../../../harness/tls.js';
import { freePort } from '../../../../../harness/process.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-oauth-clients-'));
const REDIRECT = 'http://127.0.0.1:1/callback';
const HOUR = 3_600_000;
let folders = 0;
let store: TokenStore;
let dataDir: string;

beforeAll(() => {
  const cert = selfSignedCertificate(scratch);
  // what NODE_EXTRA_CA_CERTS does for a server process: https.get in this process trusts the test's certificate
  globalAgent.options.ca = cert.cert;
  tls = cert;
});
let tls: { key: string; cert: string };

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => {
  delete globalAgent.options.ca;
});

async function clientsWith(options: Partial<ClientsOptions> = {}) {
  dataDir = join(scratch, `store-${++folders}`);
  store = await openTokenStore(
    { location: 'file', dataDir, keys: randomBytes(32).toString('base64'), namespace: 'petstore' },
    recordingLogger(),
  );
  closers.push(() => store.close());
  const log = recordingLogger();
  return { clients: createClients(store, { allowInternalDocuments: false, log, ...options }), log };
}

/** A TCP listener that only counts who connects (nothing gets past it to TLS). */
async function countingListener(host: string): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const sockets: Socket[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    connections += 1;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(() => {
    sockets.forEach((socket) => socket.destroy());
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** An https document server on 127.0.0.1; `slow` paths send their document a byte a second. */
async function documentServer() {
  let open = 0;
  let mostOpen = 0;
  const requests: string[] = [];
  const server: HttpsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    requests.push(req.url as string);
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    res.on('close', () => (open -= 1));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`;
    const body = JSON.stringify({ client_id: url, client_name: 'Doc', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    res.writeHead(200, { 'content-type': 'application/json' });
    if (!req.url?.startsWith('/slow/')) return res.end(body);
    let sent = 0;
    const drip = setInterval(() => {
      if (res.destroyed) return clearInterval(drip);
      res.write(body[sent++]);
      if (sent === body.length) {
        clearInterval(drip);
        res.end();
      }
    }, 1_000);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requests, mostOpen: () => mostOpen };
}

describe('client ID metadata documents', () => {
  it('are not fetched from internal address literals (IPv4 or IPv6) by a server bound beyond loopback', async () => {
    const { clients, log } = await clientsWith({ allowInternalDocuments: false });
    const v4 = await countingListener('127.0.0.1');
    const v6 = await countingListener('::1');
    for (const url of [`https://127.0.0.1:${v4.port}/client.json`, `https://[::1]:${v6.port}/client.json`]) {
      const found = await clients.find(url);
      expect(found).toEqual({ problem: "the client's metadata document could not be fetched" });
    }
    expect(v4.connections()).toBe(0);
    expect(v6.connections()).toBe(0);
    expect(log.lines.join('\n')).toMatch(/internal address/);
  });

  it('a failed fetch tells the caller nothing of why (no port scan); the log says', async () => {
    const { clients, log } = await clientsWith({ allowInternalDocuments: true });
    const port = await freePort();
    const found = await clients.find(`https://127.0.0.1:${port}/client.json`);
    expect(found).toEqual({ problem: "the client's metadata document could not be fetched" });
    expect(log.lines.join('\n')).toContain('ECONNREFUSED');
  });

  it('a document sent a byte a second is given up after 5 s in all', async () => {
    const { clients } = await clientsWith({ allowInternalDocuments: true });
    const documents = await documentServer();
    const started = Date.now();
    const found = await clients.find(`${documents.base}/slow/one.json`);
    expect(found).toEqual({ problem: "the client's metadata document could not be fetched" });
    expect(Date.now() - started).toBeLessThan(6_500);
  }, 30_000);

  it('40 slow documents at once open at most 10 fetches, and one URL asked for many times is fetched once', async () => {
    const { clients } = await clientsWith({ allowInternalDocuments: true });
    const documents = await documentServer();
    const started = Date.now();
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => clients.find(`${documents.base}/slow/${i}.json`)));
    expect(documents.mostOpen()).toBeLessThanOrEqual(10);
    expect(many.every((found) => 'problem' in found)).toBe(true);
    expect(Date.now() - started).toBeLessThan(6_500);
    const before = documents.requests.length;
    const same = await Promise.all(Array.from({ length: 10 }, () => clients.find(`${documents.base}/fast/same.json`)));
    expect(documents.requests.length - before).toBe(1);
    expect(same.map((found) => (found as Client).name)).toEqual(Array(10).fill('Doc'));
  }, 30_000);
});

const metadata = { redirect_uris: [REDIRECT], client_name: 'flood', token_endpoint_auth_method: 'none' };

/** When the store file says the record of `key` expires, from now. */
function lifetimeOf(key: string): number {
  const name = createHash('sha256').update(`petstore\0${key}`).digest('hex');
  const lines = readFileSync(join(dataDir, 'tokens.jsonl'), 'utf8').trimEnd().split('\n').slice(1);
  const last = lines
    .map((line) => JSON.parse(line) as { n: string; e: number })
    .filter((line) => line.n === name)
    .at(-1);
  return (last?.e ?? 0) - Date.now();
}

describe('dynamic registration', () => {
  it('one address gets 30 registrations at once, then 429 with Retry-After; other addresses are not slowed', async () => {
    const { clients } = await clientsWith();
    const answers = [];
    for (let i = 0; i < 40; i++) answers.push(await clients.register(metadata, '203.0.113.7'));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(30);
    const refused = answers.at(-1)!;
    expect(refused).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable' } });
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await clients.register(metadata, '198.51.100.1')).status).toBe(201);
  });

  it('IPv6 addresses are paced by their /64: one subscriber cannot pick a fresh address per registration', async () => {
    const { clients } = await clientsWith();
    for (let i = 1; i <= 30; i++) expect((await clients.register(metadata, `2001:db8:1:2::${i.toString(16)}`)).status).toBe(201);
    expect((await clients.register(metadata, '2001:db8:1:2:ffff:1:2:3')).status).toBe(429);
    expect((await clients.register(metadata, '2001:0db8:0001:0002::77')).status).toBe(429);
    expect((await clients.register(metadata, '2001:db8:1:3::1')).status).toBe(201);
  });

  it('an unused registration lives hours, not months; its first token grant keeps it 180 days', async () => {
    const { clients } = await clientsWith();
    const answer = await clients.register(metadata, '203.0.113.8');
    const clientId = answer.body.client_id as string;
    expect(lifetimeOf(`client:${clientId}`)).toBeLessThanOrEqual(6 * HOUR);
    const client = (await clients.find(clientId)) as Client;
    await clients.used(client);
    expect(lifetimeOf(`client:${clientId}`)).toBeGreaterThan(179 * 24 * HOUR);
  });

  it('unused registrations have a cap of their own: beyond it 429, while a used one leaves room and grants still go in', async () => {
    const { clients } = await clientsWith({ maxUnusedRegistrations: 3 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await clients.register(metadata, `203.0.113.${i}`)).body.client_id as string);
    const full = await clients.register(metadata, '203.0.113.99');
    expect(full).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable' } });
    expect(full.retryAfterSeconds).toBeGreaterThan(0);
    await store.put('grant:alice', { api: 'token' }, HOUR);
    expect(await store.get('grant:alice')).toEqual({ api: 'token' });
    await clients.used((await clients.find(ids[0]!)) as Client);
    expect((await clients.register(metadata, '203.0.113.99')).status).toBe(201);
  });
});
