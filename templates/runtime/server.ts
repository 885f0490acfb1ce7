// MCP wiring on the SDK's low-level Server: tools/list answers from the prebuilt table and
// tools/call goes to the executor. Per-connection cost is one small object, whatever the
// size of the API (McpServer.registerTool per tool would cost ~8 µs × tools per instance).

import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { DESCRIBE, describeResult, INVOKE, metaTools, OperationIndex, SEARCH, searchResult } from './dynamic.js';
import type { RequestCredentials } from './auth.js';
import type { Executor } from './executor.js';
import type { ToolSpec, ToolTable } from './table.js';
import { toolsetOf, toolsetSizes } from './toolsets.js';

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

/** Dynamic toolsets: the agent lists toolsets and enables them one by one (per connection). */
export const LIST_TOOLSETS = 'list_toolsets';
export const ENABLE_TOOLSET = 'enable_toolset';

export interface ServerOptions {
  /** Serve toolsets on demand, starting with these enabled. */
  dynamicToolsets?: { initial: string[] };
}

export function createServerFactory(
  table: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader = credentialReader([]),
  options: ServerOptions = {},
): ServerFactory {
  const byName = new Map<string, ToolSpec>(table.tools.map((t) => [t.name, t]));
  const direct = table.dynamic ? new Set(table.dynamic.direct) : undefined;
  const toolsetTools = options.dynamicToolsets ? toolsetMetaTools(table) : undefined;
  const listedCache = new Map<string, Tool>();
  const listedTool = (t: ToolSpec): Tool => listedCache.get(t.name) ?? (listedCache.set(t.name, describeTool(t)), listedCache.get(t.name) as Tool);
  const describeTool = (t: ToolSpec): Tool => ({
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
    // Toolsets this connection has enabled (dynamic toolsets only): one server per connection.
    const enabled = new Set(options.dynamicToolsets?.initial ?? []);
    const served = (tool: ToolSpec) => !toolsetTools || enabled.has(toolsetOf(tool));
    const server = new Server(
      { name: table.name, version: table.version, ...(table.title ? { title: table.title } : {}) },
      { capabilities: { tools: toolsetTools ? { listChanged: true } : {}, logging: {} }, ...(table.instructions ? { instructions: table.instructions } : {}) },
    );
    server.setRequestHandler('tools/list', () => ({
      tools: toolsetTools ? [...toolsetTools, ...table.tools.filter(served).map(listedTool)] : tools(),
    }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name } = request.params;
      const args = request.params.arguments ?? {};
      if (toolsetTools && name === LIST_TOOLSETS) return toolsetList(table, enabled);
      if (toolsetTools && name === ENABLE_TOOLSET) {
        const wanted = typeof args.toolset === 'string' ? args.toolset : '';
        const sizes = toolsetSizes(table);
        if (!sizes.has(wanted)) {
          return { isError: true, content: [{ type: 'text', text: `No toolset named ${JSON.stringify(wanted)}; see ${LIST_TOOLSETS}` }] };
        }
        if (!enabled.has(wanted)) {
          enabled.add(wanted);
          await server.sendToolListChanged().catch(() => undefined);
        }
        return { content: [{ type: 'text', text: `Toolset ${wanted} is enabled: ${sizes.get(wanted)} tools; the tool list has changed.` }] };
      }
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
      if (!tool || (direct && !direct.has(name)) || !served(tool)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return server.projectCallToolResult(await call(tool, args), executor.outputSchema(tool));
    });
    return server;
  };
}

function toolsetMetaTools(table: ToolTable): Tool[] {
  const names = [...toolsetSizes(table).keys()];
  return [
    {
      name: LIST_TOOLSETS,
      title: 'List toolsets',
      description: `List the toolsets of the ${table.title ?? table.name} API, how many tools each has, and which are enabled. Enable one with ${ENABLE_TOOLSET} to get its tools.`,
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: ENABLE_TOOLSET,
      title: 'Enable a toolset',
      description: 'Add the tools of one toolset to this session; the tool list then changes.',
      inputSchema: { type: 'object', properties: { toolset: { type: 'string', enum: names } }, required: ['toolset'], additionalProperties: false },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
  ];
}

function toolsetList(table: ToolTable, enabled: Set<string>): CallToolResult {
  const toolsets = [...toolsetSizes(table)].map(([name, tools]) => ({ name, tools, enabled: enabled.has(name) }));
  const text = toolsets.map((t) => `${t.name}: ${t.tools} tools${t.enabled ? ' (enabled)' : ''}`).join('\n');
  return { content: [{ type: 'text', text }], structuredContent: { toolsets } };
}
