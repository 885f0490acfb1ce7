// Which tools this server serves, chosen when it starts: toolsets (--toolsets issues,repos)
// and read-only serving (--read-only). Clients cap tools (VS Code and the OpenAI API refuse
// more than 128), so a big API is served a part at a time; the generated project is the same.

import type { ListedTool } from './profiles.js';
import { ownValue, type ToolSpec, type ToolTable } from './table.js';
import { didYouMean } from './did-you-mean.js';

/** Slugs made, by text: a spec's operations repeat a few tags (10,000 operations, two slugs each). */
const slugs = new Map<string, string>();

/** A name as toolsets are named: lower-case ASCII words joined by `-`. */
export function toolsetSlug(text: string): string {
  let slug = slugs.get(text);
  if (slug === undefined) {
    if (slugs.size >= 10_000) slugs.clear(); // bounded: paths' parts are many
    slugs.set(
      text,
      (slug = text
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')),
    );
  }
  return slug;
}

/** Path parts that say nothing about what an operation is for (`/v1/customers` → customers). */
const NOISE_SEGMENT = /^(v\d+([._-]\d+)*[a-z]*\d*|api|apis|rest)$/i;

/**
 * The toolset a tool belongs to when nothing chose one: its first tag, else the first part of
 * its path that is neither a parameter nor a version (`/v1/repos/{owner}` → repos).
 */
export function defaultToolset(tags: string[] | undefined, path: string): string {
  const parts = path.split('/').filter((part) => part !== '' && !part.includes('{'));
  const source =
    tags?.find((t) => toolsetSlug(t) !== '') ?? parts.find((part) => !NOISE_SEGMENT.test(part) && toolsetSlug(part) !== '') ?? 'root';
  return toolsetSlug(source) || 'root';
}

/** A tool's toolset: as generated (config, x-mcp or default), or the default rule for older tables. */
export function toolsetOf(tool: ToolSpec): string {
  return tool.toolset ?? defaultToolset(tool.tags, tool.http.path);
}

/**
 * Toolset names with the number of tools enabling each lists, in order of first appearance: a
 * toolset's own tools and those of the toolsets nested in it (OAS 3.2 tag `parent`), so a parent
 * with no tools of its own is one too.
 */
export function toolsetSizes(table: ToolTable): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const tool of table.tools) {
    for (const name of toolsetsListing(table, tool)) sizes.set(name, (sizes.get(name) ?? 0) + 1);
  }
  return sizes;
}

/** The toolsets whose enabling lists the tool: its own, and those it is nested in, nearest first. */
export const toolsetsListing = (table: ToolTable, tool: ToolSpec): string[] => withParents(table, toolsetOf(tool));

/** The toolset and those it is nested in, nearest first (a loop, which OAS 3.2 forbids, ends where it closes). */
function withParents(table: ToolTable, toolset: string): string[] {
  const chain = [toolset];
  for (let parent = ownValue(table.toolsetParents, toolset); parent !== undefined && !chain.includes(parent);) {
    chain.push(parent);
    parent = ownValue(table.toolsetParents, parent);
  }
  return chain;
}

/** The toolsets enabling `names` enables: each, and every toolset nested in it at any depth. */
export function withNested(table: ToolTable, names: Iterable<string>): Set<string> {
  const enabled = new Set(names);
  if (!table.toolsetParents) return enabled;
  for (const child of Object.keys(table.toolsetParents)) {
    if (withParents(table, child).some((name) => enabled.has(name))) enabled.add(child);
  }
  return enabled;
}

/** The tools enabling `toolset` lists: its own and those of the toolsets nested in it. */
export function toolsIn(table: ToolTable, toolset: string): ToolSpec[] {
  const nested = withNested(table, [toolset]);
  return table.tools.filter((tool) => nested.has(toolsetOf(tool)));
}

export class ToolsetError extends Error {}

/** Throws when a toolset asked for is not one of `known` (names with their number of tools). */
export function checkToolsets(known: Iterable<[name: string, tools: number]>, wanted: string[]): void {
  const sizes = new Map(known);
  const unknown = wanted.filter((t) => t !== 'all' && !sizes.has(t));
  if (unknown.length) {
    throw new ToolsetError(
      `--toolsets: no toolset ${unknown.map((t) => JSON.stringify(t) + didYouMean(t, sizes.keys(), (name) => JSON.stringify(name))).join(', ')} (known: ${[...sizes].map(([name, n]) => `${name} (${n})`).join(', ')})`,
    );
  }
}

/** The table as served: only the chosen toolsets ([] or `all`: every one), only read-only tools if asked. */
export function servedTable(table: ToolTable, choice: { toolsets: string[]; readOnly: boolean }): ToolTable {
  const wanted = choice.toolsets.filter((t) => t !== 'all');
  if (wanted.length === 0 && !choice.readOnly) return table;
  checkToolsets(toolsetSizes(table), wanted);
  const nested = withNested(table, wanted);
  const tools = table.tools.filter(
    (t) => (wanted.length === 0 || nested.has(toolsetOf(t))) && (!choice.readOnly || t.annotations.readOnlyHint === true),
  );
  const names = new Set(tools.map((t) => t.name));
  return { ...table, tools, ...(table.serve ? { serve: { ...table.serve, pinned: table.serve.pinned.filter((n) => names.has(n)) } } : {}) };
}

/** Toolsets on demand: the agent lists toolsets and enables them one by one (per connection). */
export const LIST_TOOLSETS = 'list_toolsets';
export const ENABLE_TOOLSET = 'enable_toolset';

export function toolsetMetaTools(table: ToolTable): ListedTool[] {
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
      inputSchema: {
        type: 'object',
        properties: { toolset: { type: 'string', enum: names } },
        required: ['toolset'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
  ];
}
