// MCP wiring on the SDK's low-level Server: tools/list answers from the prebuilt table and
// tools/call goes to the executor. Per-connection cost is one small object, whatever the
// size of the API (McpServer.registerTool per tool would cost ~8 µs × tools per instance).

import { ProtocolError, ProtocolErrorCode, Server, type Tool } from '@modelcontextprotocol/server';
import type { RequestCredentials } from './auth.js';
import type { Executor } from './executor.js';
import type { ToolSpec, ToolTable } from './table.js';

export type ServerFactory = () => Server;

/** Reads per-request credentials from the MCP client's HTTP headers, as the operator mapped them. */
export type CredentialReader = (headers: Headers | undefined) => RequestCredentials;

export function credentialReader(mapping: { header: string; scheme: string }[]): CredentialReader {
  if (mapping.length === 0) return () => new Map();
  return (headers) => {
    const found = new Map<string, string>();
    for (const { header, scheme } of mapping) {
      const value = headers?.get(header);
      if (value) found.set(scheme, value);
    }
    return found;
  };
}

export function createServerFactory(table: ToolTable, executor: Executor, readCredentials: CredentialReader = credentialReader([])): ServerFactory {
  const byName = new Map<string, ToolSpec>(table.tools.map((t) => [t.name, t]));
  let listed: Tool[] | undefined;
  const tools = (): Tool[] =>
    (listed ??= table.tools.map((t) => ({
      name: t.name,
      ...(t.title !== undefined ? { title: t.title } : {}),
      description: t.description,
      inputSchema: executor.inputSchema(t) as Tool['inputSchema'],
      ...(t.output ? { outputSchema: executor.outputSchema(t) as Tool['outputSchema'] } : {}),
      annotations: t.annotations,
    })));

  return () => {
    const server = new Server(
      { name: table.name, version: table.version, ...(table.title ? { title: table.title } : {}) },
      { capabilities: { tools: {}, logging: {} }, ...(table.instructions ? { instructions: table.instructions } : {}) },
    );
    server.setRequestHandler('tools/list', () => ({ tools: tools() }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const credentials = readCredentials(ctx.http?.req?.headers);
      const result = await executor.call(tool, request.params.arguments ?? {}, ctx.mcpReq.signal, credentials);
      return server.projectCallToolResult(result, executor.outputSchema(tool));
    });
    return server;
  };
}
