// The token store's records in Redis (≥ 6.2 for GETDEL), shared by the replicas of a server.
// token-store.ts imports this module only for a redis:// location, so a server with the file
// store never loads the redis package. Values arrive sealed and names hashed; this module only
// moves strings. It imports nothing of token-store.ts (which imports it): what it returns fits
// RecordBackend by shape, and its errors carry messages token-store.ts can show as they are.
import { createClient } from 'redis';
import type { Logger } from '../../start/log.js';

const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A Redis that stops answering fails a command (the caller answers 503) instead of hanging it.
 * node-redis's own command timeout covers only commands not yet sent, so each is bounded here.
 */
const COMMAND_TIMEOUT_MS = 5_000;
const KEY_PREFIX = 'mcp-gen:';

/**
 * SET under a budget, atomically: the budget is a sorted set of its records' names scored by
 * their expiry; expired ones leave it first, and a name not yet in it needs a free place. A
 * record taken or deleted early keeps its place until its expiry (the file store frees it at once).
 * KEYS: record, budget. ARGV: sealed value, ttl ms, now ms, limit.
 */
const PUT_WITHIN_BUDGET = `
local now = tonumber(ARGV[3])
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if not redis.call('ZSCORE', KEYS[2], KEYS[1]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`;

type RedisClient = ReturnType<typeof createClient>;

/** Connected, or an Error naming the host and port (never the URL's credentials). */
export async function openRedisBackend(url: string, log: Logger): Promise<RedisBackend> {
  const where = hostAndPort(url);
  const reconnects = new Reconnects(where, log);
  const client = clientFor(url, reconnects);
  // Reconnects reports lost connections; without a listener an 'error' event would end the process
  client.on('error', (error: unknown) => log.debug(`token store: Redis at ${where}: ${reasonOf(error)}`));
  client.on('ready', reconnects.ready);
  await connect(client, where);
  reconnects.started = true;
  log.info(`token store: Redis at ${where}`);
  return new RedisBackend(client);
}

const INVALID_URL = "the token store's Redis URL is not valid: redis[s]://[[user]:password@]host[:port][/db]";

function hostAndPort(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(INVALID_URL);
  }
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

function clientFor(url: string, reconnects: Reconnects): RedisClient {
  try {
    return createClient({
      url,
      // while disconnected, commands fail at once rather than queue without bound
      disableOfflineQueue: true,
      socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnects.strategy },
    });
  } catch {
    // node-redis's own message is not shown: it might quote the URL, password and all
    throw new Error(INVALID_URL);
  }
}

/** At start a failure is final (the server must not start without its store); once started, a backoff, logged. */
class Reconnects {
  started = false;
  #down = false;

  constructor(
    private readonly where: string,
    private readonly log: Logger,
  ) {}

  readonly strategy = (retries: number, cause: Error): number | Error => {
    if (!this.started) return cause;
    if (!this.#down) this.log.warn(`token store: lost the connection to Redis at ${this.where} (${reasonOf(cause)}); reconnecting`);
    this.#down = true;
    // node-redis's default: exponential from 50 ms up to 2 s, with jitter
    return Math.min(2 ** retries * 50, 2_000) + Math.floor(Math.random() * 200);
  };

  readonly ready = (): void => {
    if (this.#down) this.log.warn(`token store: reconnected to Redis at ${this.where}`);
    this.#down = false;
  };
}

async function connect(client: RedisClient, where: string): Promise<void> {
  try {
    await within(CONNECT_TIMEOUT_MS, client.connect());
  } catch (error) {
    destroyQuietly(client);
    throw new Error(`cannot reach the token store's Redis at ${where} (${reasonOf(error)})`);
  }
}

class NoAnswer extends Error {}

/** The work's result, or a NoAnswer once `ms` have passed without one. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`the token store's Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function destroyQuietly(client: RedisClient): void {
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

/** A system error's code or a Redis error's first word (WRONGPASS, NOAUTH): never a message that might quote the URL. */
function reasonOf(error: unknown): string {
  if (error instanceof NoAnswer) return 'no answer';
  const failure = error as { code?: unknown; originalError?: unknown } | undefined;
  if (typeof failure?.code === 'string') return failure.code;
  // node-redis wraps the socket's error when the reconnect strategy gives up
  if (failure?.originalError) return reasonOf(failure.originalError);
  const message = error instanceof Error ? error.message : '';
  return /^[A-Z]{3,}\b/.exec(message)?.[0] ?? 'connection failed';
}

class RedisBackend {
  constructor(private readonly client: RedisClient) {}

  async get(name: string): Promise<string | undefined> {
    return (await within(COMMAND_TIMEOUT_MS, this.client.get(KEY_PREFIX + name))) ?? undefined;
  }

  /** False when the budget (a hashed name and a limit, as token-store.ts gives it) is full. */
  async put(name: string, sealed: string, ttlMs: number, budget?: { name: string; limit: number }): Promise<boolean> {
    if (budget === undefined) {
      await within(COMMAND_TIMEOUT_MS, this.client.set(KEY_PREFIX + name, sealed, { expiration: { type: 'PX', value: ttlMs } }));
      return true;
    }
    const options = {
      keys: [KEY_PREFIX + name, KEY_PREFIX + budget.name],
      arguments: [sealed, String(ttlMs), String(Date.now()), String(budget.limit)],
    };
    return (await within(COMMAND_TIMEOUT_MS, this.client.eval(PUT_WITHIN_BUDGET, options))) === 1;
  }

  async putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean> {
    const options = { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' } as const;
    return (await within(COMMAND_TIMEOUT_MS, this.client.set(KEY_PREFIX + name, sealed, options))) === 'OK';
  }

  /** GETDEL: atomic in Redis, so of two replicas taking one code only one gets it. */
  async take(name: string): Promise<string | undefined> {
    return (await within(COMMAND_TIMEOUT_MS, this.client.getDel(KEY_PREFIX + name))) ?? undefined;
  }

  async delete(name: string): Promise<void> {
    await within(COMMAND_TIMEOUT_MS, this.client.del(KEY_PREFIX + name));
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await within(COMMAND_TIMEOUT_MS, this.client.close()).catch(() => destroyQuietly(this.client));
  }
}
