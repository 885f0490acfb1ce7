// The token store of the authorization-server mode, against a real file in a temp folder and a
// real redis-server (test/harness/redis.ts; skipped with its reason where none is installed).
// One contract for both stores, then what each promises of its own: the file's bytes, rotation,
// the folder lock and modes; Redis's replicas, credentials kept out of errors, reconnection.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import {
  openTokenStore,
  StoreFullError,
  TokenStoreError,
  type TokenStore,
  type TokenStoreOptions,
} from '../../../../../src/runtime/oauth/authorization-server/token-store.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import { freePort } from '../../../../../harness/process.js';
import { recordingLogger } from '../../../../harness/http-steps.js';
import { redisMissing, startRedis, type RedisServer } from '../../../../harness/redis.js';

const KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('base64url');
const silent = createLogger('token-store', 'silent');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-token-store-'));
let folders = 0;
const freshFolder = () => join(scratch, `store-${++folders}`, 'data');
const keyId = (key: string) => createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8);
const recordName = (namespace: string, key: string) => createHash('sha256').update(`${namespace}\0${key}`).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stores a test opened, closed after it whatever happened (a file store holds its folder's lock). */
const opened: TokenStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close().catch(() => undefined)));
});
async function open(options: Partial<TokenStoreOptions> & Pick<TokenStoreOptions, 'location'>, log = silent): Promise<TokenStore> {
  const store = await openTokenStore({ dataDir: freshFolder(), keys: KEY, namespace: 'petstore', ...options }, log);
  opened.push(store);
  return store;
}

let redis: RedisServer | undefined;
beforeAll(async () => {
  if (!redisMissing) redis = await startRedis();
});
afterAll(() => redis?.stop());

const redisTitle = (title: string) => (redisMissing ? `${title} (skipped: ${redisMissing})` : title);

/** Each call a store no other test sees: its own folder, or its own namespace on the one Redis. */
const stores: { name: string; skip: string | undefined; fresh: () => Promise<TokenStore> }[] = [
  { name: 'file store', skip: undefined, fresh: () => open({ location: 'file' }) },
  { name: redisTitle('Redis store'), skip: redisMissing, fresh: () => open({ location: redis!.url, namespace: `ns-${++folders}` }) },
];

describe.each(stores)('the contract: $name', ({ skip, fresh }) => {
  it.skipIf(skip)('gives back what was put, any JSON value, and nothing for a key never put', async () => {
    const store = await fresh();
    const grant = { subject: 'alice', tokens: { api: 'tok-123' }, scopes: ['read'], n: 1.5, ok: true, none: null };
    await store.put('grant', grant, 60_000);
    await store.put('list', [1, 'two'], 60_000);
    await store.put('text', 'plain', 60_000);
    expect(await store.get('grant')).toEqual(grant);
    expect(await store.get('list')).toEqual([1, 'two']);
    expect(await store.get('text')).toBe('plain');
    expect(await store.get('never')).toBeUndefined();
    await store.put('grant', { replaced: true }, 60_000);
    expect(await store.get('grant')).toEqual({ replaced: true });
  });

  it.skipIf(skip)('forgets a record once its TTL has passed', async () => {
    const store = await fresh();
    await store.put('short', 'soon gone', 80);
    await store.put('long', 'stays', 60_000);
    expect(await store.get('short')).toBe('soon gone');
    await sleep(200);
    expect(await store.get('short')).toBeUndefined();
    expect(await store.take('short')).toBeUndefined();
    expect(await store.get('long')).toBe('stays');
  });

  it.skipIf(skip)('putIfAbsent: of many concurrent calls exactly one writes, and an expired record counts as absent', async () => {
    const store = await fresh();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.putIfAbsent('pending', { by: i }, 150)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.get('pending')).toEqual({ by: results.indexOf(true) });
    expect(await store.putIfAbsent('pending', { by: 'late' }, 60_000)).toBe(false);
    await sleep(300);
    expect(await store.putIfAbsent('pending', { by: 'after expiry' }, 60_000)).toBe(true);
    expect(await store.get('pending')).toEqual({ by: 'after expiry' });
  });

  it.skipIf(skip)('take: of many concurrent takes exactly one gets the value, and it is gone after', async () => {
    const store = await fresh();
    await store.put('code', { user: 'alice' }, 60_000);
    const taken = await Promise.all(Array.from({ length: 25 }, () => store.take('code')));
    expect(taken.filter((value) => value !== undefined)).toEqual([{ user: 'alice' }]);
    expect(await store.get('code')).toBeUndefined();
  });

  it.skipIf(skip)('delete removes a record; deleting an absent one is no error', async () => {
    const store = await fresh();
    await store.put('refresh', 'r1', 60_000);
    await store.put('other', 'o1', 60_000);
    await store.delete('refresh');
    await store.delete('never');
    expect(await store.get('refresh')).toBeUndefined();
    expect(await store.get('other')).toBe('o1');
  });

  it.skipIf(skip)('refuses a TTL that is not a positive number', async () => {
    const store = await fresh();
    await expect(store.put('k', 1, 0)).rejects.toThrow(RangeError);
    await expect(store.putIfAbsent('k', 1, Number.NaN)).rejects.toThrow(RangeError);
    expect(await store.get('k')).toBeUndefined();
  });

  it.skipIf(skip)('a capped kind full refuses only its own new records: other kinds, and rewrites of its own, still go in', async () => {
    const store = await fresh();
    for (let i = 0; i < 3; i++) await store.put(`client:${i}`, i, 60_000, 3);
    await expect(store.put('client:3', 3, 60_000, 3)).rejects.toThrow(StoreFullError);
    expect(await store.get('client:3')).toBeUndefined();
    // a signed-in user's records are written without a cap: never refused
    for (let i = 0; i < 10; i++) await store.put(`refresh:${i}`, i, 60_000);
    await store.put('pending:a', 'a', 60_000, 3);
    await store.put('client:1', 'rewritten', 60_000, 3);
    expect(await store.get('client:1')).toBe('rewritten');
    expect(await store.get('refresh:9')).toBe(9);
  });

  it.skipIf(skip)('a capped record that expires makes room again', async () => {
    const store = await fresh();
    await store.put('client:brief', 1, 100, 1);
    await expect(store.put('client:next', 2, 60_000, 1)).rejects.toThrow(StoreFullError);
    await sleep(1_200);
    await store.put('client:next', 2, 60_000, 1);
    expect(await store.get('client:next')).toBe(2);
  });

  it.skipIf(skip)('close ends it: later operations reject, a second close is harmless', async () => {
    const store = await fresh();
    await store.put('k', 1, 60_000);
    await store.close();
    await expect(store.get('k')).rejects.toThrow();
    await expect(store.put('k', 2, 60_000)).rejects.toThrow();
    await store.close();
  });
});

describe('keys', () => {
  const refusal = async (keys: string): Promise<string> => {
    const error = await openTokenStore({ location: 'file', dataDir: freshFolder(), keys, namespace: 'n' }, silent).then(
      (store) => store.close(),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TokenStoreError);
    return (error as Error).message;
  };

  it.each([
    ['short', randomBytes(16).toString('base64')],
    ['not base64', '!'.repeat(43) + '='],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['empty', ''],
  ])('refuses a key that is %s, in one line that tells how to make one and shows no key', async (_, key) => {
    const message = await refusal(key);
    expect(message).toContain('openssl rand -base64 32');
    expect(message).not.toContain('\n');
    if (key) expect(message).not.toContain(key);
  });

  it('says which key of a list is bad, without printing either', async () => {
    const bad = randomBytes(20).toString('base64');
    const message = await refusal(`${KEY}, ${bad}`);
    expect(message).toContain('key 2 of 2');
    expect(message).not.toContain(KEY);
    expect(message).not.toContain(bad);
  });

  it('accepts base64url and surrounding spaces', async () => {
    const urlKey = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i)).toString('base64url');
    expect(urlKey).toMatch(/[-_]/);
    const store = await open({ location: 'file', keys: ` ${urlKey} , ${KEY}` });
    await store.put('k', 'v', 60_000);
    expect(await store.get('k')).toBe('v');
  });

  it('refuses a location that is neither file nor Redis, without echoing it', async () => {
    const error = await open({ location: 'http://user:hunter2@example.test' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenStoreError);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

type FileRecord = { e: number; s: string; b?: string };
const fileOf = (dataDir: string) => join(dataDir, 'tokens.jsonl');
/** The records the file's log of changes leaves, replayed as the store does at open. */
const recordsOf = (dataDir: string): Record<string, FileRecord> => {
  const [format, ...changes] = readFileSync(fileOf(dataDir), 'utf8').trimEnd().split('\n');
  expect(JSON.parse(format!)).toEqual({ format: 2 });
  const records: Record<string, FileRecord> = {};
  for (const change of changes.map((line) => JSON.parse(line) as { n: string; d?: 1 } & FileRecord)) {
    if (change.d) delete records[change.n];
    else records[change.n] = { e: change.e, s: change.s, ...(change.b ? { b: change.b } : {}) };
  }
  return records;
};
const writeRecordsOf = (dataDir: string, records: Record<string, FileRecord>) =>
  writeFileSync(
    fileOf(dataDir),
    [JSON.stringify({ format: 2 }), ...Object.entries(records).map(([n, record]) => JSON.stringify({ n, ...record }))].join('\n') + '\n',
  );

describe('the file store', () => {
  it('keeps records across a restart, and drops the expired ones (from the file at its next write)', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    await first.put('grant', { tokens: ['a'] }, 60_000);
    await first.put('brief', 'gone by then', 50);
    await first.close();
    await sleep(100);
    const second = await open({ location: 'file', dataDir });
    expect(await second.get('grant')).toEqual({ tokens: ['a'] });
    expect(await second.get('brief')).toBeUndefined();
    await second.put('next', 1, 60_000);
    expect(Object.keys(recordsOf(dataDir)).sort()).toEqual([recordName('petstore', 'grant'), recordName('petstore', 'next')].sort());
  });

  it('writes neither the record keys nor any value text: hashed names, sealed values', async () => {
    const dataDir = freshFolder();
    const store = await open({ location: 'file', dataDir });
    await store.put('code-RAW-AUTHORIZATION-CODE', { apiToken: 'API-TOKEN-OF-ALICE' }, 60_000);
    await store.put('refresh-RAW-REFRESH-TOKEN', 'VALUE-AS-A-STRING', 60_000);
    const bytes = readFileSync(fileOf(dataDir), 'utf8');
    for (const secret of ['RAW-AUTHORIZATION-CODE', 'RAW-REFRESH-TOKEN', 'API-TOKEN-OF-ALICE', 'apiToken', 'VALUE-AS-A-STRING', KEY]) {
      expect(bytes).not.toContain(secret);
    }
    expect(Object.keys(recordsOf(dataDir)).sort()).toEqual(
      [recordName('petstore', 'code-RAW-AUTHORIZATION-CODE'), recordName('petstore', 'refresh-RAW-REFRESH-TOKEN')].sort(),
    );
  });

  it('a put resolves once its record is on disk', async () => {
    const dataDir = freshFolder();
    const store = await open({ location: 'file', dataDir });
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.put(`k${i}`, i, 60_000)));
    await store.put('last', 'x', 60_000);
    expect(Object.keys(recordsOf(dataDir))).toHaveLength(11);
    await store.take('k3');
    expect(recordsOf(dataDir)[recordName('petstore', 'k3')]).toBeUndefined();
  });

  it('a change costs its own line: with 3,000 records a put appends to the file instead of rewriting it', async () => {
    const dataDir = freshFolder();
    const store = await open({ location: 'file', dataDir });
    await Promise.all(Array.from({ length: 3_000 }, (_, i) => store.put(`client:${i}`, { name: 'x'.repeat(100) }, 60_000)));
    const before = statSync(fileOf(dataDir));
    await store.put('grant:alice', { api: 'token' }, 60_000);
    await store.delete('client:7');
    const after = statSync(fileOf(dataDir));
    expect(after.ino).toBe(before.ino);
    expect(after.size - before.size).toBeGreaterThan(0);
    expect(after.size - before.size).toBeLessThan(1_000);
    await store.close();
    const reopened = await open({ location: 'file', dataDir });
    expect(await reopened.get('grant:alice')).toEqual({ api: 'token' });
    expect(await reopened.get('client:7')).toBeUndefined();
    expect(await reopened.get('client:2999')).toEqual({ name: 'x'.repeat(100) });
  });

  it('a change cut short by a crash (half a last line) is left out, and the rest kept', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    await first.put('kept', 'k', 60_000);
    await first.close();
    writeFileSync(fileOf(dataDir), readFileSync(fileOf(dataDir), 'utf8') + '{"n":"abc","e":1');
    const second = await open({ location: 'file', dataDir });
    expect(await second.get('kept')).toBe('k');
    await second.put('after', 'a', 60_000);
    expect(Object.keys(recordsOf(dataDir))).toHaveLength(2);
  });

  it("reads an earlier version's whole-file store and replaces it by the log", async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    await first.put('grant', { tokens: ['a'] }, 60_000);
    const records = recordsOf(dataDir);
    await first.close();
    rmSync(fileOf(dataDir));
    writeFileSync(join(dataDir, 'tokens.json'), JSON.stringify({ format: 1, records }));
    const second = await open({ location: 'file', dataDir });
    expect(await second.get('grant')).toEqual({ tokens: ['a'] });
    expect(existsSync(join(dataDir, 'tokens.json'))).toBe(false);
    expect(Object.keys(recordsOf(dataDir))).toEqual([recordName('petstore', 'grant')]);
  });

  it('opened with another key, finds nothing, and says so once at warn without key or value', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    await first.put('a', 'SECRET-VALUE-A', 60_000);
    await first.put('b', 'SECRET-VALUE-B', 60_000);
    await first.close();
    const log = recordingLogger();
    const second = await open({ location: 'file', dataDir, keys: OTHER_KEY }, log);
    expect(await second.get('a')).toBeUndefined();
    expect(await second.take('b')).toBeUndefined();
    const warnings = log.lines.filter((line) => line.startsWith('warn:'));
    expect(warnings).toHaveLength(1);
    for (const secret of [KEY, OTHER_KEY, 'SECRET-VALUE', "'a'"]) expect(warnings[0]).not.toContain(secret);
  });

  it('rotation: new key first opens records of the old one and seals new ones with the new one', async () => {
    const dataDir = freshFolder();
    const before = await open({ location: 'file', dataDir, keys: OTHER_KEY });
    await before.put('old', 'sealed with the old key', 60_000);
    await before.close();

    const rotated = await open({ location: 'file', dataDir, keys: `${KEY},${OTHER_KEY}` });
    expect(await rotated.get('old')).toBe('sealed with the old key');
    await rotated.put('new', 'sealed with the new key', 60_000);
    const records = recordsOf(dataDir);
    expect(records[recordName('petstore', 'old')]!.s.split('.').slice(0, 2)).toEqual(['v1', keyId(OTHER_KEY)]);
    expect(records[recordName('petstore', 'new')]!.s.split('.').slice(0, 2)).toEqual(['v1', keyId(KEY)]);
    await rotated.close();

    const oldKeyDropped = await open({ location: 'file', dataDir, keys: KEY });
    expect(await oldKeyDropped.get('new')).toBe('sealed with the new key');
    expect(await oldKeyDropped.get('old')).toBeUndefined();
  });

  it('a record copied under another record key does not open (the AAD binds it to its key)', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    await first.put('alice', { token: 'alice-token' }, 60_000);
    await first.put('mallory', { token: 'mallory-token' }, 60_000);
    await first.close();
    const records = recordsOf(dataDir);
    records[recordName('petstore', 'mallory')] = records[recordName('petstore', 'alice')]!;
    writeRecordsOf(dataDir, records);
    const second = await open({ location: 'file', dataDir });
    expect(await second.get('mallory')).toBeUndefined();
    expect(await second.get('alice')).toEqual({ token: 'alice-token' });
  });

  it('another namespace in the same folder sees nothing', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir, namespace: 'petstore' });
    await first.put('k', 'petstore value', 60_000);
    await first.close();
    const other = await open({ location: 'file', dataDir, namespace: 'bookshop' });
    expect(await other.get('k')).toBeUndefined();
  });

  it('one process per folder: a second open fails while the first is open, and works after close', async () => {
    const dataDir = freshFolder();
    const first = await open({ location: 'file', dataDir });
    const error = await open({ location: 'file', dataDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenStoreError);
    expect((error as Error).message).toMatch(/another server .* uses the token store folder/);
    expect((error as Error).message).toMatch(/redis/i);
    expect(readFileSync(join(dataDir, 'tokens.lock'), 'utf8')).toBe(String(process.pid));
    await first.close();
    expect(existsSync(join(dataDir, 'tokens.lock'))).toBe(false);
    await open({ location: 'file', dataDir });
  });

  it('takes over a lock whose process is gone', async () => {
    const dataDir = freshFolder();
    await (await open({ location: 'file', dataDir })).close();
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(dataDir, 'tokens.lock'), String(deadPid));
    const store = await open({ location: 'file', dataDir });
    expect(readFileSync(join(dataDir, 'tokens.lock'), 'utf8')).toBe(String(process.pid));
    await store.put('k', 'v', 60_000);
    expect(await store.get('k')).toBe('v');
  });

  it('makes its folder 0700 and its file 0600', async () => {
    const dataDir = freshFolder();
    const store = await open({ location: 'file', dataDir });
    await store.put('k', 'v', 60_000);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(fileOf(dataDir)).mode & 0o777).toBe(0o600);
  });

  it('refuses a file that is not a token store file, rather than start empty over it', async () => {
    const dataDir = freshFolder();
    await (await open({ location: 'file', dataDir })).close();
    writeFileSync(fileOf(dataDir), 'not json');
    const error = await open({ location: 'file', dataDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenStoreError);
    // the failed open released its lock
    expect(existsSync(join(dataDir, 'tokens.lock'))).toBe(false);
  });

  it('refuses a folder it cannot make, in one line', async () => {
    const blocker = join(scratch, `file-${++folders}`);
    writeFileSync(blocker, '');
    const error = await open({ location: 'file', dataDir: join(blocker, 'data') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenStoreError);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('the Redis store', () => {
  // in a child process: this file itself imports redis
  const redisModulesLoadedBy = (location: string): number => {
    const script = `
      import { createRequire } from 'node:module';
      const { openTokenStore } = await import(${JSON.stringify(new URL('../../../../../src/runtime/oauth/authorization-server/token-store.ts', import.meta.url).href)});
      const log = { debug() {}, info() {}, warn() {}, error() {}, notice() {} };
      const options = { location: ${JSON.stringify(location)}, dataDir: ${JSON.stringify(freshFolder())}, keys: ${JSON.stringify(KEY)}, namespace: 'n' };
      await (await openTokenStore(options, log).catch(() => undefined))?.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => /node_modules\\/@?redis\\//.test(path));
      process.stdout.write(String(loaded.length));`;
    return Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  };

  it('is loaded only when chosen: a file-store server never loads the redis package', async () => {
    expect(redisModulesLoadedBy('file')).toBe(0);
    expect(redisModulesLoadedBy(`redis://127.0.0.1:${await freePort()}`)).toBeGreaterThan(0);
  });

  it('an unreachable Redis is a TokenStoreError naming host and port, never the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await open({ location: `redis://:secret@127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenStoreError);
    expect((error as Error).message).toContain(`127.0.0.1:${port} (ECONNREFUSED)`);
    expect((error as Error).message).not.toContain('secret');
    expect((error as Error).message).not.toContain('\n');
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it.each(['redis://:secret@127.0.0.1/not-a-db', 'rediss://:secret@127.0.0.1:99999', 'redis://:secret@[bad'])(
    'a Redis URL it cannot use (%s) is a TokenStoreError without the password',
    async (location) => {
      const error = await open({ location }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TokenStoreError);
      expect((error as Error).message).toContain('Redis URL is not valid');
      expect((error as Error).message).not.toContain('secret');
    },
  );

  it.skipIf(redisMissing)(redisTitle('two instances on one Redis share records, as replicas do'), async () => {
    const namespace = `replicas-${++folders}`;
    const [a, b] = [await open({ location: redis!.url, namespace }), await open({ location: redis!.url, namespace })];
    await a.put('grant', { user: 'alice' }, 60_000);
    expect(await b.get('grant')).toEqual({ user: 'alice' });
    await a.put('code', 'single use', 60_000);
    const taken = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('code')));
    expect(taken.filter((value) => value !== undefined)).toEqual(['single use']);
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).putIfAbsent('once', i, 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it.skipIf(redisMissing)(redisTitle('holds hashed names and sealed values only, with their TTL'), async () => {
    const namespace = `hashed-${++folders}`;
    const store = await open({ location: redis!.url, namespace });
    await store.put('RAW-REFRESH-TOKEN', { apiToken: 'API-TOKEN-OF-BOB' }, 60_000);
    const raw = createClient({ url: redis!.url });
    await raw.connect();
    try {
      const name = `mcp-gen:${recordName(namespace, 'RAW-REFRESH-TOKEN')}`;
      const sealed = await raw.get(name);
      expect(sealed).toMatch(new RegExp(`^v1\\.${keyId(KEY)}\\.`));
      expect(sealed).not.toContain('API-TOKEN-OF-BOB');
      expect(await raw.pTTL(name)).toBeGreaterThan(50_000);
      expect((await raw.keys('*RAW-REFRESH-TOKEN*')).length).toBe(0);
    } finally {
      raw.destroy();
    }
  });

  it.skipIf(redisMissing)(redisTitle('a Redis that stops answering fails the call after 5 s instead of hanging it'), async () => {
    const store = await open({ location: redis!.url, namespace: `frozen-${++folders}` });
    await store.put('k', 'v', 60_000);
    process.kill(redis!.pid, 'SIGSTOP');
    const started = Date.now();
    try {
      await expect(store.get('k')).rejects.toThrow('did not answer within 5000 ms');
    } finally {
      process.kill(redis!.pid, 'SIGCONT');
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(await store.get('k')).toBe('v');
  });

  it.skipIf(redisMissing)(redisTitle('after a Redis restart: operations reject while it is down, then work again'), async () => {
    const own = await startRedis();
    let restarted: RedisServer | undefined;
    try {
      const log = recordingLogger();
      const store = await open({ location: own.url }, log);
      await store.put('k', 'before', 60_000);
      await own.stop();
      await expect(store.get('k')).rejects.toThrow(Error);
      restarted = await startRedis(own.port);
      await expect
        .poll(
          () =>
            store.put('k', 'after', 60_000).then(
              () => 'written',
              () => 'rejected',
            ),
          { timeout: 10_000 },
        )
        .toBe('written');
      expect(await store.get('k')).toBe('after');
      expect(log.lines.filter((line) => line.startsWith('warn:'))).toEqual([
        expect.stringContaining('lost the connection to Redis at 127.0.0.1:' + own.port),
        expect.stringContaining('reconnected to Redis at 127.0.0.1:' + own.port),
      ]);
    } finally {
      await restarted?.stop();
      await own.stop();
    }
  });
});
