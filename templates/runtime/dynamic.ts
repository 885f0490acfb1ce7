// Dynamic mode for large APIs: instead of one tool per operation (a tools/list of hundreds of
// KB drowns an agent), three meta-tools let the agent search the operations, read one's
// full input schema, and invoke it. Arguments are checked against the same schema as in
// direct mode, so errors still name the argument.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { toolError } from './output.js';
import type { ListedTool } from './profiles.js';
import type { JsonSchema, ToolSpec, ToolTable } from './table.js';

export const SEARCH = 'search_operations';
export const DESCRIBE = 'describe_operation';
export const INVOKE = 'invoke_operation';

export function metaTools(table: ToolTable): ListedTool[] {
  const api = table.title ?? table.name;
  return [
    {
      name: SEARCH,
      title: `Search ${api} operations`,
      description: `Find operations of the ${api} API (${table.tools.length} in all) by words and tags. Returns names to pass to ${DESCRIBE} and ${INVOKE}.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for in names, paths, summaries and tags, e.g. "list repository issues".' },
          tag: { type: 'string', description: 'Only operations with this tag.' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Most results to return.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: DESCRIBE,
      title: `Describe a ${api} operation`,
      description: `The full description and input schema of one operation, by the name ${SEARCH} returned.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'Operation name.' } },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: INVOKE,
      title: `Call a ${api} operation`,
      description: `Call one operation with arguments that match the input schema ${DESCRIBE} returned. Makes the real HTTP request.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Operation name.' },
          arguments: {
            type: 'object',
            description: 'Arguments, as the operation\u2019s input schema describes them.',
            additionalProperties: true,
          },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { openWorldHint: true },
    },
  ];
}

/** Words, lower-cased, camelCase split, plurals folded (`Repositories` → `repository`). */
const tokenize = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1)
    .map((t) =>
      t.length > 4 && t.endsWith('ies') ? t.slice(0, -3) + 'y' : t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t,
    );

interface Entry {
  tool: ToolSpec;
  strong: Set<string>;
  title: Set<string>;
  weak: Set<string>;
}

export class OperationIndex {
  private readonly entries: Entry[];

  constructor(tools: ToolSpec[]) {
    this.entries = tools.map((tool) => ({
      tool,
      strong: new Set([...tokenize(tool.name), ...tokenize(tool.http.path), ...(tool.tags ?? []).flatMap(tokenize)]),
      title: new Set(tokenize(tool.title ?? '')),
      weak: new Set(tokenize(tool.description.slice(0, 400))),
    }));
  }

  search(query: string, tag: string | undefined, limit: number): ToolSpec[] {
    const words = tokenize(query);
    const scored: { tool: ToolSpec; score: number }[] = [];
    for (const entry of this.entries) {
      if (tag !== undefined && !(entry.tool.tags ?? []).some((t) => t.toLowerCase() === tag.toLowerCase())) continue;
      let score = 0;
      let titleHits = 0;
      for (const word of words) {
        if (entry.title.has(word)) titleHits++;
        if (entry.strong.has(word)) score += 3;
        else if (entry.title.has(word)) score += 2;
        else if (entry.weak.has(word)) score += 1;
        else if ([...entry.strong].some((t) => t.startsWith(word) || word.startsWith(t))) score += 1;
      }
      // A summary that says just what was asked ("Get a repository") beats one that merely mentions it.
      if (entry.title.size > 0) score += (3 * titleHits) / entry.title.size;
      if (score > 0 || words.length === 0) scored.push({ tool: entry.tool, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
    return scored.slice(0, limit).map((s) => s.tool);
  }
}

export function searchResult(found: ToolSpec[]): CallToolResult {
  const results = found.map((t) => ({
    name: t.name,
    operation: `${t.http.method} ${t.http.path}`,
    summary: (t.title ?? t.description.split('\n')[0] ?? '').slice(0, 200),
    ...(t.tags?.length ? { tags: t.tags } : {}),
  }));
  const text = results.length
    ? results.map((r) => `${r.name} — ${r.operation} — ${r.summary}`).join('\n')
    : 'No operation matches; try other words or no tag.';
  return { content: [{ type: 'text', text }], structuredContent: { results } };
}

export function describeResult(tool: ToolSpec, inputSchema: JsonSchema): CallToolResult {
  const described = {
    name: tool.name,
    operation: `${tool.http.method} ${tool.http.path}`,
    description: tool.description,
    inputSchema,
    annotations: tool.annotations,
  };
  return { content: [{ type: 'text', text: JSON.stringify(described) }], structuredContent: described };
}

/** What a meta-tool call needs from the server around it. */
export interface MetaContext {
  table: ToolTable;
  byName: ReadonlyMap<string, ToolSpec>;
  /** The operation's input schema as describe_operation shows it. */
  inputSchema(tool: ToolSpec): JsonSchema;
  /** Checks arguments against a schema with the executor's validator: why they do not fit, or undefined. */
  checkArguments(schema: JsonSchema, args: Record<string, unknown>): Promise<string | undefined>;
  /** Calls an operation for invoke_operation (its outputSchema is not advertised there). */
  invoke(tool: ToolSpec, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The search index, built on first use. */
  index(): OperationIndex;
}

/**
 * A call of search_operations, describe_operation or invoke_operation; undefined for any other
 * name. Its arguments are checked by ajv against the meta-tool's own schema, as every tool's are.
 */
export async function callMetaTool(name: string, given: Record<string, unknown>, ctx: MetaContext): Promise<CallToolResult | undefined> {
  const meta = metaTools(ctx.table).find((t) => t.name === name);
  if (meta === undefined) return undefined;
  // Strict profiles list every property and send null for the ones not meant; absent is what they mean.
  const args = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null));
  // Profiles that cannot list a free-form object (openai-strict, gemini) ask for the operation's arguments as JSON text.
  if (name === INVOKE && typeof args.arguments === 'string') {
    try {
      args.arguments = JSON.parse(args.arguments) as unknown;
    } catch {
      return toolError(`Invalid arguments for ${INVOKE}: argument "arguments" is text but not JSON`);
    }
  }
  const problem = await ctx.checkArguments(meta.inputSchema as JsonSchema, args);
  if (problem) return toolError(`Invalid arguments for ${name}: ${problem}`);
  if (name === SEARCH) {
    return searchResult(ctx.index().search(args.query as string, args.tag as string | undefined, (args.limit as number | undefined) ?? 10));
  }
  const operation = ctx.byName.get(args.name as string);
  if (!operation) return toolError(`No operation named ${JSON.stringify(args.name)}; find names with ${SEARCH}`);
  if (name === DESCRIBE) return describeResult(operation, ctx.inputSchema(operation));
  return ctx.invoke(operation, (args.arguments ?? {}) as Record<string, unknown>);
}
