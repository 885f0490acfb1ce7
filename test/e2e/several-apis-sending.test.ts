// Over several APIs, each API keeps its own retries and rate limit: the config file's
// `apis[i].retries` / `.rateLimit`, `<NAMESPACE>_RETRIES` / `<NAMESPACE>_RATE_LIMIT` at start,
// over the server-wide --retries and --rate-limit; each API paced in a bucket of its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { petAnswer, startUpstream, type Recorded, type Upstream } from '../harness/upstream.js';
import { runCli } from '../harness/cli.js';
import type { ToolTable } from '../../src/contract/table.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const PETSTORE_SWAGGER2 = join(REPO, 'samples/petstore-swagger2/openapi.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-api-sending-e2e-'));
const credentials = { SHOP_API_KEY: 'shop-key', ZOO_API_KEY: 'zoo-key' };

/** Pet 503 is always unavailable, and says a retry may come at once (Retry-After: 0). */
const answer = (req: Recorded) =>
  req.path === '/v2/pet/503' ? { status: 503, headers: { 'retry-after': '0' }, body: '{}' } : petAnswer(req);

let shop: Upstream;
let zoo: Upstream;
beforeAll(async () => {
  buildCli();
  shop = await startUpstream(answer);
  zoo = await startUpstream(answer);
});
afterAll(async () => {
  await shop?.close();
  await zoo?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A config file of the shop and the zoo on their upstreams, the shop with `shopOwn` (its retries, rateLimit). */
function configWith(name: string, shopOwn: Record<string, number>): string {
  const file = join(scratch, `${name}.json`);
  const apis = [
    { spec: PETSTORE, namespace: 'shop', baseUrl: `${shop.url}/v2`, ...shopOwn },
    { spec: PETSTORE_SWAGGER2, namespace: 'zoo', baseUrl: `${zoo.url}/v2` },
  ];
  writeFileSync(file, JSON.stringify({ apis }));
  return file;
}

const serve = (config: string, flags: string[], env: Record<string, string> = {}): Promise<Client> =>
  connect('stdio', REPO, {
    argv: [BIN, 'serve', '--config', config, '--log-level', 'warn', '--tools', 'direct', ...flags],
    env: { ...credentials, ...env },
  });

const getPet = (client: Client, api: string, petId: number) => client.callTool({ name: `${api}_getPetById`, arguments: { petId } });
const text = (result: Awaited<ReturnType<typeof getPet>>) => JSON.stringify(result.content);

describe('each API its own retries', () => {
  it("the config file's for one, <NAMESPACE>_RETRIES for the other, over --retries: tries counted at each upstream", async () => {
    const client = await serve(configWith('retries', { retries: 0 }), ['--retries', '1'], { ZOO_RETRIES: '3' });
    try {
      shop.clear();
      zoo.clear();
      expect((await getPet(client, 'shop', 503)).isError).toBe(true);
      expect((await getPet(client, 'zoo', 503)).isError).toBe(true);
      expect(shop.requests.map((r) => r.url)).toEqual(['/v2/pet/503']);
      expect(zoo.requests.map((r) => r.url)).toEqual(Array(4).fill('/v2/pet/503'));
    } finally {
      await client.close();
    }
  });
});

describe('each API its own rate limit', () => {
  it("the config file's for one API refuses what it cannot pace within the call's time; the other API is not held", async () => {
    // One request every 2 s, within a call's time of 1 s: of two calls at once, the second cannot wait for its slot.
    const client = await serve(configWith('rate', { rateLimit: 0.5 }), ['--timeout', '1000']);
    try {
      shop.clear();
      zoo.clear();
      const shops = await Promise.all([getPet(client, 'shop', 1), getPet(client, 'shop', 2)]);
      const zoos = await Promise.all([getPet(client, 'zoo', 1), getPet(client, 'zoo', 2)]);
      expect(shops.filter((r) => r.isError).length).toBe(1);
      expect(text(shops.find((r) => r.isError) as (typeof shops)[number])).toContain('SHOP_RATE_LIMIT 0.5 per second');
      expect(shop.requests.length).toBe(1);
      expect(zoos.map((r) => r.isError ?? false)).toEqual([false, false]);
      expect(zoo.requests.length).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('<NAMESPACE>_RATE_LIMIT paces its API at start, over --rate-limit and the config file', async () => {
    const client = await serve(configWith('rate-env', { rateLimit: 1000 }), ['--timeout', '1000', '--rate-limit', '1000'], {
      ZOO_RATE_LIMIT: '0.5',
    });
    try {
      zoo.clear();
      const zoos = await Promise.all([getPet(client, 'zoo', 1), getPet(client, 'zoo', 2)]);
      expect(zoos.filter((r) => r.isError).length).toBe(1);
      expect(text(zoos.find((r) => r.isError) as (typeof zoos)[number])).toContain('ZOO_RATE_LIMIT 0.5 per second');
      expect(zoo.requests.length).toBe(1);
      const shops = await Promise.all([getPet(client, 'shop', 1), getPet(client, 'shop', 2)]);
      expect(shops.map((r) => r.isError ?? false)).toEqual([false, false]);
    } finally {
      await client.close();
    }
  });

  it('a variable set to what it cannot be is one line naming it, exit 2', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--config', configWith('bad', {})], {
      env: { ...process.env, ...credentials, SHOP_RETRIES: 'many' },
      encoding: 'utf8',
      input: '',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('SHOP_RETRIES must be a whole number from 0 to 10 (got "many")');
    expect(r.stderr).not.toContain('    at ');
  });
});

describe('mcp-gen with apis[i].retries and rateLimit', () => {
  it("records them in the table, and the README and .env.example list each API's variables", () => {
    const out = join(scratch, 'project');
    const r = runCli(['--config', configWith('generate', { retries: 4, rateLimit: 5 }), '--out', out], scratch);
    expect(r.code, r.stderr).toBe(0);
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable;
    expect(table.apis?.shop).toMatchObject({ retries: 4, rateLimit: 5, retriesEnv: 'SHOP_RETRIES', rateLimitEnv: 'SHOP_RATE_LIMIT' });
    expect(table.apis?.zoo).toMatchObject({ retriesEnv: 'ZOO_RETRIES', rateLimitEnv: 'ZOO_RATE_LIMIT' });
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(
      '`SHOP_RETRIES` [4], `SHOP_RATE_LIMIT` [5 per second]; `ZOO_RETRIES` [--retries], `ZOO_RATE_LIMIT` [--rate-limit]',
    );
    expect(readFileSync(join(out, '.env.example'), 'utf8')).toMatch(/SHOP_RETRIES=\nSHOP_RATE_LIMIT=/);
  });

  it('a rateLimit that is no rate is one line naming it, exit 2', () => {
    const r = runCli(['--config', configWith('bad-rate', { rateLimit: 0 }), '--out', join(scratch, 'never')], scratch);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('apis"[0].rateLimit must be a number of requests per second above 0');
  });
});
