// The token store's records in Redis (≥ 6.2 for GETDEL), shared by the replicas of a server.
// token-store.ts imports this module only for a redis:// location, so a server with the file
// store never loads the redis package. Values arrive sealed and names hashed; this module only
// moves strings. It imports nothing of token-store.ts (which imports it): what it returns fits
// RecordBackend by shape, and its errors carry messages token-store.ts can show as they are.
import { createClient } from 'redis';
import type { Logger } from './log.js';

const CONNECT_TIMEOUT_MS = 5_000;
/** A Redis that stops answering fails a command (the caller answers 503) instead of hanging it. */
const COMMAND_TIMEOUT_MS = 5_000;
const KEY_PREFIX = 'mcp-gen:';

type RedisClient = ReturnType<typeof createClient>;

/** Connected, or an Error naming the host and port (never the URL's credentials). */
export async function openRedisBackend(url: string, log: Logger): Promise<RedisBackend> {
  const where = hostAndPort(url);
  const reconnects = new Reconnects(where, log);
  const client = createClient({
    url,
    // while disconnected, commands fail at once rather than queue without bound
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnects.strategy },
  });
  // Reconnects reports lost connections; without a listener an 'error' event would end the process
  client.on('error', (error: unknown) => log.debug(`token store: Redis at ${where}: ${reasonOf(error)}`));
  client.on('ready', reconnects.ready);
  await connect(client, where);
  reconnects.started = true;
  log.info(`token store: Redis at ${where}`);
  return new RedisBackend(client);
}

function hostAndPort(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("the token store's Redis URL is not a valid URL");
  }
  return `${parsed.hostname}:${parsed.port || '6379'}`;
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
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    destroyQuietly(client);
    throw new Error(`cannot reach the token store's Redis at ${where} (${reasonOf(error)})`);
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
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code) return code;
  const message = error instanceof Error ? error.message : '';
  return /^timed out after \d+ ms$/.test(message) ? message : (/^[A-Z]{3,}\b/.exec(message)?.[0] ?? 'connection failed');
}

class RedisBackend {
  constructor(private readonly client: RedisClient) {}

  async get(name: string): Promise<string | undefined> {
    return (await this.client.get(KEY_PREFIX + name)) ?? undefined;
  }

  async put(name: string, sealed: string, ttlMs: number): Promise<void> {
    await this.client.set(KEY_PREFIX + name, sealed, { expiration: { type: 'PX', value: ttlMs } });
  }

  async putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean> {
    const answer = await this.client.set(KEY_PREFIX + name, sealed, { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' });
    return answer === 'OK';
  }

  async take(name: string): Promise<string | undefined> {
    return (await this.client.getDel(KEY_PREFIX + name)) ?? undefined;
  }

  async delete(name: string): Promise<void> {
    await this.client.del(KEY_PREFIX + name);
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close().catch(() => destroyQuietly(this.client));
  }
}
