// A connection to the Redis that replicas share (the token store's, the operation store's):
// connected at once or not at all, reconnecting with a logged backoff once started, each command
// bounded in time, and no message that could quote the URL's password. Imported only by the
// stores' Redis modules, which their stores reach by import(): a server without Redis never
// loads the redis package.
import { createClient } from 'redis';
import type { Logger } from '../start/log.js';

export type RedisClient = ReturnType<typeof createClient>;

const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A Redis that stops answering fails a command (the caller answers 503) instead of hanging it.
 * node-redis's own command timeout covers only commands not yet sent, so each is bounded here.
 */
const COMMAND_TIMEOUT_MS = 5_000;

/** A connected client and what it is for (`what`: "token store", named in every message). */
export class RedisConnection {
  constructor(
    readonly client: RedisClient,
    private readonly what: string,
  ) {}

  /** The command's answer, or an Error once COMMAND_TIMEOUT_MS have passed without one. */
  run<T>(work: Promise<T>): Promise<T> {
    return within(COMMAND_TIMEOUT_MS, work, this.what);
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.run(this.client.close()).catch(() => destroyQuietly(this.client));
  }
}

/** Connected, or an Error naming the host and port (never the URL's credentials). */
export async function connectRedis(url: string, log: Logger, what: string): Promise<RedisConnection> {
  const where = hostAndPort(url, what);
  const reconnects = new Reconnects(where, log, what);
  const client = clientFor(url, reconnects, what);
  // Reconnects reports lost connections; without a listener an 'error' event would end the process
  client.on('error', (error: unknown) => log.debug(`${what}: Redis at ${where}: ${reasonOf(error)}`));
  client.on('ready', reconnects.ready);
  await connect(client, where, what);
  reconnects.started = true;
  log.info(`${what}: Redis at ${where}`);
  return new RedisConnection(client, what);
}

const invalidUrl = (what: string) => `the ${what}'s Redis URL is not valid: redis[s]://[[user]:password@]host[:port][/db]`;

function hostAndPort(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(invalidUrl(what));
  }
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

function clientFor(url: string, reconnects: Reconnects, what: string): RedisClient {
  try {
    return createClient({
      url,
      // while disconnected, commands fail at once rather than queue without bound
      disableOfflineQueue: true,
      socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnects.strategy },
    });
  } catch {
    // node-redis's own message is not shown: it might quote the URL, password and all
    throw new Error(invalidUrl(what));
  }
}

/** At start a failure is final (the server must not start without its store); once started, a backoff, logged. */
class Reconnects {
  started = false;
  #down = false;

  constructor(
    private readonly where: string,
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  readonly strategy = (retries: number, cause: Error): number | Error => {
    if (!this.started) return cause;
    if (!this.#down) this.log.warn(`${this.what}: lost the connection to Redis at ${this.where} (${reasonOf(cause)}); reconnecting`);
    this.#down = true;
    // node-redis's default: exponential from 50 ms up to 2 s, with jitter
    return Math.min(2 ** retries * 50, 2_000) + Math.floor(Math.random() * 200);
  };

  readonly ready = (): void => {
    if (this.#down) this.log.warn(`${this.what}: reconnected to Redis at ${this.where}`);
    this.#down = false;
  };
}

async function connect(client: RedisClient, where: string, what: string): Promise<void> {
  try {
    await within(CONNECT_TIMEOUT_MS, client.connect(), what);
  } catch (error) {
    destroyQuietly(client);
    throw new Error(`cannot reach the ${what}'s Redis at ${where} (${reasonOf(error)})`);
  }
}

class NoAnswer extends Error {}

/** The work's result, or a NoAnswer once `ms` have passed without one. */
async function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`the ${what}'s Redis did not answer within ${ms} ms`)), ms);
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
