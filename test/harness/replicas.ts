// Replicas of one generated server sharing a real Redis as their --operation-store, with one
// sealing key (MCP_TOKEN_STORE_KEY), as docs/deploy.md has them; the SDK clients made to reach
// them, each with its own API key (--auth-from-headers). stop() ends all it started.
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startServer, type RunningServer } from '../../harness/project.js';
import { Children } from './children.js';
import { startRedis, type RedisServer } from './redis.js';

export class StoreReplicas {
  readonly servers: RunningServer[] = [];
  readonly #children = new Children();
  readonly #clients: Client[] = [];

  private constructor(
    readonly redis: RedisServer,
    /** The sealing key every replica shares. */
    readonly key: string,
  ) {}

  /** A new Redis and `count` replicas of the project in `dir`, started with `args`. */
  static async start(dir: string, args: string[], count = 2): Promise<StoreReplicas> {
    const replicas = new StoreReplicas(await startRedis(), randomBytes(32).toString('base64'));
    for (let i = 0; i < count; i++) replicas.servers.push(await replicas.serve(dir, args));
    return replicas;
  }

  /** One more server of `dir` over HTTP, sharing the store unless `env` says otherwise. */
  async serve(dir: string, args: string[], env: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startServer(dir, 'http', args, { MCP_OPERATION_STORE: this.redis.url, MCP_TOKEN_STORE_KEY: this.key, ...env });
    this.#children.track(server.process);
    return server;
  }

  /** An SDK client of replica `at` (or of that server), sending `apiKey` as X-Api-Key; `negotiate`: the newest protocol both speak. */
  async client(at: number | RunningServer, apiKey: string, negotiate = false): Promise<Client> {
    const server = typeof at === 'number' ? this.servers[at] : at;
    if (server === undefined) throw new Error(`no replica ${String(at)}`);
    const made = await connect('http', server.url, { negotiate, headers: { 'X-Api-Key': apiKey } });
    this.#clients.push(made);
    return made;
  }

  async stop(): Promise<void> {
    for (const client of this.#clients) await client.close().catch(() => undefined);
    await this.#children.stopAll();
    await this.redis.stop();
  }
}
