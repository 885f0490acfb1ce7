// A generated server's runtime, built from a tool table in this process and reached by the
// official SDK client over an in-memory transport: the MCP wiring tested without a build.
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../src/runtime/start/config.js';
import { readConfig } from '../src/runtime/start/command-line.js';
import { createExecutor } from '../src/runtime/call/executor.js';
import type { Hooks } from '../src/runtime/hooks-api.js';
import { createLogger } from '../src/runtime/start/log.js';
import { createServerFactory, type ServerOptions } from '../src/runtime/mcp/server.js';
import type { ToolTable } from '../src/contract/table.js';

const DIRECT: ServerOptions = { mode: 'direct', profile: 'portable', initialToolsets: [] };

/** A connected client of a server for `table`, with the serving options, hooks and command-line settings given. */
export async function connectInMemory(
  table: ToolTable,
  options: Partial<ServerOptions> = {},
  hooks: Hooks = {},
  argv: string[] = [],
): Promise<Client> {
  const executor = createExecutor(table, readConfig(argv, {}) as ServerConfig, hooks, createLogger(table.name, 'silent'));
  const server = createServerFactory(table, executor, undefined, { ...DIRECT, ...options, hooks })();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}
