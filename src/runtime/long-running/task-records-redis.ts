// The shared task store's records in Redis (--operation-store redis://…), loaded by
// tasks-shared.ts only for a Redis URL. All of one server's tasks share a hash tag (one slot
// under Redis Cluster): their index, a hash of `status|owner|expires` by record name, and each
// record, a sealed string that expires with its task. Admission and a running task's rewrite (a
// status message, its end) are each one script, so that two replicas never both take the last
// room, nor both end one task, and nothing is written over an ended one.
import type { Logger } from '../start/log.js';
import { connectRedis } from '../store/redis.js';
import type { TaskRecords } from '../store/task-records.js';
import { TASK_CAPS, type TaskEntry } from './tasks.js';

const KEY_PREFIX = 'mcp-gen:task:';

/** The index outlives its longest-kept task, and no more: a server that stops leaves nothing behind. */
const KEEP_INDEX = `if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end`;

/**
 * admit() of tasks.ts, over the index (expired entries leave it first), then the record set.
 * KEYS: index, record. ARGV: name, entry, sealed, ttl ms, now ms, owner, total, working per owner, record key prefix.
 */
const ADD = `
local now = tonumber(ARGV[5])
local fields = redis.call('HGETALL', KEYS[1])
local count, working, own, ownE, any, anyE = 0, 0, nil, nil, nil, nil
for i = 1, #fields, 2 do
  local name = fields[i]
  local status, owner, e = string.match(fields[i + 1], '^(%a+)|([^|]*)|(%d+)$')
  e = tonumber(e)
  if e <= now then
    redis.call('HDEL', KEYS[1], name)
  else
    count = count + 1
    if status == 'working' then
      if owner == ARGV[6] then working = working + 1 end
    else
      if owner == ARGV[6] and (ownE == nil or e < ownE) then own, ownE = name, e end
      if anyE == nil or e < anyE then any, anyE = name, e end
    end
  end
end
if working >= tonumber(ARGV[8]) then return 'busy' end
if count >= tonumber(ARGV[7]) then
  local evicted = own or any
  if not evicted then return 'full' end
  redis.call('HDEL', KEYS[1], evicted)
  redis.call('DEL', ARGV[9] .. evicted)
end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
${KEEP_INDEX}
return 'added'`;

/** SET and HSET only while the index says the task runs. KEYS: index, record. ARGV: name, entry, sealed, ttl ms. */
const REPLACE_RUNNING = `
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry or string.sub(entry, 1, 8) ~= 'working|' then return 0 end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
${KEEP_INDEX}
return 1`;

/** Connected, or an Error naming the host and port (never the URL's credentials). `space`: the server's hashed name. */
export async function openRedisTaskRecords(url: string, space: string, log: Logger): Promise<TaskRecords> {
  const redis = await connectRedis(url, log, 'task store');
  const index = `${KEY_PREFIX}{${space}}`;
  const prefix = `${index}:`;
  const run = (script: string, name: string, args: string[]) =>
    redis.run(redis.client.eval(script, { keys: [index, prefix + name], arguments: [name, ...args] }));
  const entries = async () =>
    Object.entries(await redis.run(redis.client.hGetAll(index))).map(([name, line]) => [name, entryOf(line)] as const);
  return {
    async add(name, entry, sealed) {
      const caps = [String(TASK_CAPS.total), String(TASK_CAPS.workingPerOwner)];
      const args = [lineOf(entry), sealed, String(entry.expires - Date.now()), String(Date.now()), entry.owner, ...caps, prefix];
      return (await run(ADD, name, args)) as 'added' | 'busy' | 'full';
    },
    async replaceRunning(name, entry, sealed) {
      return (await run(REPLACE_RUNNING, name, [lineOf(entry), sealed, String(entry.expires - Date.now())])) === 1;
    },
    async read(name) {
      return (await redis.run(redis.client.get(prefix + name))) ?? undefined;
    },
    async owned(owner) {
      const now = Date.now();
      return (await entries()).filter(([, e]) => e.owner === owner && e.expires > now).map(([name]) => name);
    },
    async ended(names) {
      if (names.length === 0) return [];
      const lines = await redis.run(redis.client.hmGet(index, names));
      return names.filter((_, i) => !lines[i]?.startsWith('working|'));
    },
    close: () => redis.close(),
  };
}

const lineOf = (entry: TaskEntry) => `${entry.status}|${entry.owner}|${entry.expires}`;

function entryOf(line: string): TaskEntry {
  const [status, owner, expires] = line.split('|');
  return { status: status as TaskEntry['status'], owner: owner ?? '', expires: Number(expires) };
}
