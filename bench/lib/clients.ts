// Talking to servers: the official SDK client over stdio (what cold start and call
// throughput measure), and a raw JSON-RPC stdio session that sees the exact bytes on the
// wire (what the tools/list size measures, with no 10 MiB client limit in the way).
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stopChild } from '../../harness/process.js';

export interface ServerCommand {
  /** Arguments of `node`: the entry point first. */
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** Answers form elicitations: the client then declares them. */
export type Elicit = (params: ElicitRequest['params']) => Promise<ElicitResult>;

const baseEnv = (env: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', ...env });

/**
 * Spawns the server and connects the SDK client; `ms` is spawn → `initialize` answered (and
 * `notifications/initialized` sent), i.e. what a client waits before it can use the server.
 * stderr is discarded: a server that logs every call must not block on a full pipe.
 */
export async function stdioClient(server: ServerCommand, elicit?: Elicit): Promise<{ client: Client; ms: number; pid: number }> {
  const client = new Client({ name: 'mcp-gen-bench', version: '1.0.0' }, elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: server.args,
    env: baseEnv(server.env),
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: 'ignore',
  });
  const started = performance.now();
  await client.connect(transport);
  return { client, ms: performance.now() - started, pid: transport.pid ?? NaN };
}

interface Pending {
  resolve: (value: { message: { result?: unknown; error?: unknown }; bytes: number; ms: number }) => void;
  started: number;
}

/** A JSON-RPC session over a server's stdin/stdout, one message per line. */
export class RawStdio {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private chunks: Buffer[] = [];

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr?.resume();
  }

  static async start(server: ServerCommand): Promise<RawStdio> {
    const child = spawn(process.execPath, server.args, { env: baseEnv(server.env), cwd: server.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const session = new RawStdio(child);
    const init = await session.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-gen-bench', version: '1.0.0' },
    });
    if (!init.message.result) throw new Error(`initialize failed: ${JSON.stringify(init.message.error)}`);
    session.notify('notifications/initialized');
    return session;
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, i));
      const line = Buffer.concat(this.chunks);
      this.chunks = [];
      start = i + 1;
      this.onLine(line);
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  private onLine(line: Buffer): void {
    const now = performance.now();
    let message: { id?: number; result?: unknown; error?: unknown };
    try {
      message = JSON.parse(line.toString('utf8')) as typeof message;
    } catch {
      return; // not JSON-RPC (a server printing to stdout): ignore
    }
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending || message.id === undefined) return;
    this.pending.delete(message.id);
    pending.resolve({ message, bytes: line.length + 1, ms: now - pending.started });
  }

  /** Sends a request; resolves with the answer, its size on the wire and the time to its last byte. */
  request(method: string, params: unknown = {}): Promise<{ message: { result?: unknown; error?: unknown }; bytes: number; ms: number }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 60 s`)), 60_000);
      this.pending.set(id, {
        started: performance.now(),
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      });
      this.child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  notify(method: string, params: unknown = {}): void {
    this.child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    await stopChild(this.child);
  }
}
