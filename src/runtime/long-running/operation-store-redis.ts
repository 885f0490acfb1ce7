// The shared operation store's records in Redis (--operation-store redis://…), loaded by
// operation-store.ts only for a Redis URL. A record and its owner's group share a hash tag, so
// that each script touches one slot (Redis Cluster). Values arrive sealed and names hashed.
import type { Logger } from '../start/log.js';
import { connectRedis } from '../store/redis.js';
import type { SharedRecords } from '../store/shared-records.js';

const KEY_PREFIX = 'mcp-gen:op:';

/**
 * SET within the owner's group, atomically: the group is a sorted set of its records' keys
 * scored by their expiry; expired ones leave it, then its oldest go (their records deleted)
 * until there is room for one more. Saves within one millisecond would tie (and a tie goes by
 * key, not by age): a score is kept above the group's last by a microsecond.
 * KEYS: record, group. ARGV: sealed value, ttl ms, now ms, limit.
 */
const PUT_IN_GROUP = `
local now = tonumber(ARGV[3])
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  redis.call('DEL', oldest[1])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
local score = now + ttl
local last = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if last[2] and tonumber(last[2]) >= score then score = tonumber(last[2]) + 0.001 end
redis.call('ZADD', KEYS[2], score, KEYS[1])
redis.call('PEXPIRE', KEYS[2], ttl)
return 1`;

/** GET and DEL in one step, the record leaving its group: of two replicas taking one handle, one gets it. KEYS: record, group. */
const TAKE = `
local value = redis.call('GET', KEYS[1])
if value then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
end
return value`;

/** Connected, or an Error naming the host and port (never the URL's credentials). */
export async function openRedisRecords(url: string, log: Logger): Promise<SharedRecords> {
  const redis = await connectRedis(url, log, 'operation store');
  return {
    async put(name, sealed, ttlMs, group) {
      const keys = keysOf(name, group.name);
      const options = { keys, arguments: [sealed, String(ttlMs), String(Date.now()), String(group.limit)] };
      await redis.run(redis.client.eval(PUT_IN_GROUP, options));
    },
    async take(name, group) {
      const value = await redis.run(redis.client.eval(TAKE, { keys: keysOf(name, group) }));
      return typeof value === 'string' ? value : undefined;
    },
    close: () => redis.close(),
  };
}

/** The record's key and its group's, in the group's slot. */
function keysOf(name: string, group: string): [string, string] {
  return [`${KEY_PREFIX}{${group}}:${name}`, `${KEY_PREFIX}{${group}}`];
}
