// The token store's records in Redis (≥ 6.2 for GETDEL), shared by the replicas of a server.
// token-store.ts imports this module only for a redis:// location, so a server with the file
// store never loads the redis package. Values arrive sealed and names hashed; this module only
// moves strings. It imports nothing of token-store.ts (which imports it): what it returns fits
// RecordBackend by shape, and its errors carry messages token-store.ts can show as they are.
import type { Logger } from '../../start/log.js';
import { connectRedis, type RedisConnection } from '../../store/redis.js';

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

/** Connected, or an Error naming the host and port (never the URL's credentials). */
export async function openRedisBackend(url: string, log: Logger): Promise<RedisBackend> {
  return new RedisBackend(await connectRedis(url, log, 'token store'));
}

class RedisBackend {
  constructor(private readonly redis: RedisConnection) {}

  private get client() {
    return this.redis.client;
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.redis.run(this.client.get(KEY_PREFIX + name))) ?? undefined;
  }

  /** False when the budget (a hashed name and a limit, as token-store.ts gives it) is full. */
  async put(name: string, sealed: string, ttlMs: number, budget?: { name: string; limit: number }): Promise<boolean> {
    if (budget === undefined) {
      await this.redis.run(this.client.set(KEY_PREFIX + name, sealed, { expiration: { type: 'PX', value: ttlMs } }));
      return true;
    }
    const options = {
      keys: [KEY_PREFIX + name, KEY_PREFIX + budget.name],
      arguments: [sealed, String(ttlMs), String(Date.now()), String(budget.limit)],
    };
    return (await this.redis.run(this.client.eval(PUT_WITHIN_BUDGET, options))) === 1;
  }

  async putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean> {
    const options = { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' } as const;
    return (await this.redis.run(this.client.set(KEY_PREFIX + name, sealed, options))) === 'OK';
  }

  /** GETDEL: atomic in Redis, so of two replicas taking one code only one gets it. */
  async take(name: string): Promise<string | undefined> {
    return (await this.redis.run(this.client.getDel(KEY_PREFIX + name))) ?? undefined;
  }

  async delete(name: string): Promise<void> {
    await this.redis.run(this.client.del(KEY_PREFIX + name));
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
