// MCP wiring on the SDK's low-level Server: tools/list answers from the prebuilt table and
// tools/call goes to the executor. Per-connection cost is one small object, whatever the
// size of the API (McpServer.registerTool per tool would cost ~8 µs × tools per instance).

import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { DESCRIBE, describeResult, INVOKE, metaTools, OperationIndex, SEARCH, searchResult } from './dynamic.js';
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
  const direct = table.dynamic ? new Set(table.dynamic.direct) : undefined;
  const listedTool = (t: ToolSpec): Tool => ({
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    inputSchema: executor.inputSchema(t) as Tool['inputSchema'],
    ...(t.output ? { outputSchema: executor.outputSchema(t) as Tool['outputSchema'] } : {}),
    annotations: t.annotations,
  });
  let listed: Tool[] | undefined;
  const tools = (): Tool[] =>
    (listed ??= direct
      ? [...metaTools(table), ...table.tools.filter((t) => direct.has(t.name)).map(listedTool)]
      : table.tools.map(listedTool));
  let index: OperationIndex | undefined;

  return () => {
    const server = new Server(
      { name: table.name, version: table.version, ...(table.title ? { title: table.title } : {}) },
      { capabilities: { tools: {}, logging: {} }, ...(table.instructions ? { instructions: table.instructions } : {}) },
    );
    server.setRequestHandler('tools/list', () => ({ tools: tools() }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name } = request.params;
      const args = request.params.arguments ?? {};
      // A failure inside a call is the tool's failure (isError), never the connection's.
      const call = (tool: ToolSpec, toolArgs: Record<string, unknown>, advertised = true): Promise<CallToolResult> =>
        executor.call(tool, toolArgs, ctx.mcpReq.signal, readCredentials(ctx.http?.req?.headers), { advertised }).catch((error: unknown) => ({
          isError: true,
          content: [{ type: 'text' as const, text: `${tool.name} failed: ${(error as Error)?.message ?? String(error)}` }],
        }));
      if (direct && !direct.has(name)) {
        const operation = typeof args.name === 'string' ? byName.get(args.name) : undefined;
        const unknown = (): CallToolResult => ({
          isError: true,
          content: [{ type: 'text', text: `No operation named ${JSON.stringify(args.name)}; find names with ${SEARCH}` }],
        });
        if (name === SEARCH) {
          if (typeof args.query !== 'string') return { isError: true, content: [{ type: 'text', text: 'Invalid arguments: argument "query" must be a string' }] };
          const limit = typeof args.limit === 'number' && args.limit >= 1 ? Math.min(50, Math.floor(args.limit)) : 10;
          index ??= new OperationIndex(table.tools);
          return searchResult(index.search(String(args.query ?? ''), typeof args.tag === 'string' ? args.tag : undefined, limit));
        }
        if (name === DESCRIBE) return operation ? describeResult(operation, executor.inputSchema(operation)) : unknown();
        if (name === INVOKE) {
          if (!operation) return unknown();
          const given = args.arguments;
          if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
            return { isError: true, content: [{ type: 'text', text: 'Invalid arguments: argument "arguments" must be an object' }] };
          }
          // The operation's outputSchema is not advertised here, so its answer needs no projection against it.
          return server.projectCallToolResult(await call(operation, (given ?? {}) as Record<string, unknown>, false), undefined);
        }
      }
      const tool = byName.get(name);
      if (!tool || (direct && !direct.has(name))) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return server.projectCallToolResult(await call(tool, args), executor.outputSchema(tool));
    });
    return server;
  };
}
