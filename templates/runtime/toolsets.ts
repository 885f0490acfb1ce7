// Which tools this server serves, chosen when it starts: toolsets (--toolsets issues,repos)
// and read-only serving (--read-only). Clients cap tools (VS Code and the OpenAI API refuse
// more than 128), so a big API is served a part at a time; the generated project is the same.

import type { ToolSpec, ToolTable } from './table.js';

/** A tool's toolset: its first tag, else the first segment of its path (`/repos/{owner}` → repos). */
export function toolsetOf(tool: ToolSpec): string {
  const source = tool.tags?.[0] ?? tool.http.path.split('/').find((part) => part !== '' && !part.startsWith('{')) ?? 'root';
  return (
    source
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'root'
  );
}

/** Toolset names with their number of tools, in order of first appearance. */
export function toolsetSizes(table: ToolTable): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const tool of table.tools) sizes.set(toolsetOf(tool), (sizes.get(toolsetOf(tool)) ?? 0) + 1);
  return sizes;
}

export class ToolsetError extends Error {}

/** The table as served: only the chosen toolsets ([] or `all`: every one), only read-only tools if asked. */
export function servedTable(table: ToolTable, choice: { toolsets: string[]; readOnly: boolean }): ToolTable {
  const wanted = choice.toolsets.filter((t) => t !== 'all');
  if (wanted.length === 0 && !choice.readOnly) return table;
  const known = toolsetSizes(table);
  const unknown = wanted.filter((t) => !known.has(t));
  if (unknown.length) {
    throw new ToolsetError(`--toolsets: no toolset ${unknown.map((t) => JSON.stringify(t)).join(', ')} (known: ${[...known].map(([name, n]) => `${name} (${n})`).join(', ')})`);
  }
  const tools = table.tools.filter((t) => (wanted.length === 0 || wanted.includes(toolsetOf(t))) && (!choice.readOnly || t.annotations.readOnlyHint === true));
  const names = new Set(tools.map((t) => t.name));
  return { ...table, tools, ...(table.dynamic ? { dynamic: { ...table.dynamic, direct: table.dynamic.direct.filter((n) => names.has(n)) } } : {}) };
}
