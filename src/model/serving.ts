// The context budget: what a generated server lists by default. Clients cap tools (VS Code,
// Copilot and the OpenAI API refuse more than 128 in a request) and every listed byte is
// context the agent pays for on every turn, so the default tools/list must stay within
// `maxTools` tools and `listBudgetKb` kilobytes, as the portable profile lists it:
//   direct    a tool per operation, when all of them fit;
//   toolsets  else, list_toolsets/enable_toolset, when every toolset fits on its own (a request
//             without a session gets search/describe/invoke instead: every transport serves it);
//   code      else, search_api/execute: two tools whatever the API's size, the agent writing one
//             program that calls several operations and returns only what it needs (measured in
//             bench/tokens.ts: a fifth or less of direct mode's bytes on multi-call tasks, and
//             less than dynamic mode's on each), when most operations answer typed JSON, which
//             is what a program filters;
//   dynamic   else, search/describe/invoke: three tools, each answer reaching the agent whole.
// The mode is only a default: the server can be started in any of them (--tools).

import { createLister, type ListedTool, type Lister } from '../contract/profiles.js';
import { codeTools, metaTools, operationTools } from '../contract/meta-tools.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../contract/table.js';
import { toolsetMetaTools, toolsetsListing } from '../contract/toolsets.js';
import type { ModelOptions, ToolModeOption } from './model-options.js';
import { schemaText } from './listing.js';

type ServedMode = 'direct' | 'toolsets' | 'dynamic' | 'code';

export type ServingBudget = Required<Pick<ModelOptions, 'maxTools' | 'listBudgetKb'>>;

interface ToolsetReport {
  name: string;
  tools: number;
  /** Tools that only read (safe methods): what --read-only leaves. */
  readOnly: number;
  /** tools/list bytes when this toolset alone is enabled (toolsets mode, portable profile). */
  bytes: number;
}

export interface ServingReport {
  mode: ServedMode;
  /** Why this mode, in a sentence (generation summary and README). */
  reason: string;
  /** The default tools/list: tools and bytes (portable profile). */
  listed: { tools: number; bytes: number };
  /** Every operation listed as a tool. */
  direct: { tools: number; bytes: number };
  toolsets: ToolsetReport[];
  budget: ServingBudget;
}

/**
 * The tools each toolset lists once enabled, pinned tools left out (they are listed anyway): its
 * own and those nested in it (a parent tag with no operations of its own is one too, OAS 3.2 tag
 * `parent`), in the order toolsetSizes gives.
 */
function toolsetGroups(table: ToolTable, pinnedNames: Set<string>): Map<string, ToolSpec[]> {
  const groups = new Map<string, ToolSpec[]>();
  for (const tool of table.tools) {
    for (const name of toolsetsListing(table, tool)) {
      const group = groups.get(name) ?? [];
      if (!groups.has(name)) groups.set(name, group);
      if (!pinnedNames.has(tool.name)) group.push(tool);
    }
  }
  return groups;
}

/** Why toolsets do not serve: the first three that are over the budget on their own. */
function tooBigOnTheirOwn(tooBig: ToolsetReport[], kb: (n: number) => string): string {
  const named = tooBig
    .slice(0, 3)
    .map((t) => `${t.name}: ${t.tools} tools, ${kb(t.bytes)}`)
    .join('; ');
  const one = tooBig.length === 1;
  return `${tooBig.length} toolset${one ? '' : 's'} (${named}${tooBig.length > 3 ? '; …' : ''}) would not fit on ${one ? 'its' : 'their'} own`;
}

/** Bytes of a tools/list result listing `tools`, as UTF-8. */
const listBytes = (tools: ListedTool[]) => Buffer.byteLength(JSON.stringify({ tools }));

/**
 * Bytes of listed tools as UTF-8 JSON. The lister lists schemas of the same text as one object
 * (Kubernetes: 381 input and 172 output schemas for 1,014 tools): each is measured once, and a
 * tool as its other members plus its schemas' bytes.
 */
function listedToolBytes(): (tool: ListedTool) => number {
  const measured = new Map<JsonSchema, number>();
  const schemaBytes = (schema: JsonSchema) => {
    let bytes = measured.get(schema);
    if (bytes === undefined) measured.set(schema, (bytes = Buffer.byteLength(JSON.stringify(schema))));
    return bytes;
  };
  return (tool) => {
    const { inputSchema, outputSchema } = tool;
    // each schema written as `0`, one byte, in the tool's text
    const frame = Buffer.byteLength(JSON.stringify({ ...tool, inputSchema: 0, ...(outputSchema ? { outputSchema: 0 } : {}) }));
    return frame - 1 + schemaBytes(inputSchema) + (outputSchema ? schemaBytes(outputSchema) - 1 : 0);
  };
}

/** The default profile's lister (portable), each distinct schema listed once. */
export const portableLister = (table: ToolTable): Lister =>
  createLister(table, 'portable', { input: (t) => t.inputSchema, output: (t) => t.output?.schema }, schemaText);

export function chooseServing(
  table: ToolTable,
  asked: ToolModeOption,
  budget: ServingBudget,
  pinned: string[],
  lister = portableLister(table),
): ServingReport {
  // A list's bytes are the sum of its tools' plus the separators: each tool, and each set of
  // meta-tools (enable_toolset names every toolset), is measured once, not once per list.
  const toolBytes = listedToolBytes();
  const bytesOf = new Map<string, number>(table.tools.map((t) => [t.name, toolBytes(lister.tool(t))]));
  const metaBytes = new Map<ListedTool[], number>();
  const sum = (tools: ToolSpec[], extra: ListedTool[]) => {
    if (!metaBytes.has(extra)) metaBytes.set(extra, listBytes(extra));
    const framing = (metaBytes.get(extra) as number) - (extra.length === 0 && tools.length > 0 ? 1 : 0);
    return tools.reduce((n, t) => n + (bytesOf.get(t.name) ?? 0) + 1, framing);
  };
  const pinnedNames = new Set(pinned);
  const pinnedTools = table.tools.filter((t) => pinnedNames.has(t.name));
  // get_operation_status is listed in every mode when an operation is long-running.
  const statusMeta = operationTools(table);
  const toolsetMeta = [...toolsetMetaTools(table), ...statusMeta].map(lister.adapt);
  const dynamicMeta = [...metaTools(table), ...statusMeta].map(lister.adapt);
  const codeMeta = [...codeTools(table), ...statusMeta].map(lister.adapt);

  const toolsets: ToolsetReport[] = [...toolsetGroups(table, pinnedNames)].map(([name, tools]) => ({
    name,
    tools: tools.length,
    readOnly: tools.filter((t) => t.annotations.readOnlyHint === true).length,
    bytes: sum([...pinnedTools, ...tools], toolsetMeta),
  }));

  // Operations only: the reasons speak of them; get_operation_status adds well under 1 KB.
  const direct = { tools: table.tools.length, bytes: sum(table.tools, []) };
  const listedIn = (mode: ServedMode) =>
    mode === 'direct'
      ? direct
      : mode === 'toolsets'
        ? { tools: toolsetMeta.length + pinnedTools.length, bytes: sum(pinnedTools, toolsetMeta) }
        : mode === 'code'
          ? { tools: codeMeta.length + pinnedTools.length, bytes: sum(pinnedTools, codeMeta) }
          : { tools: dynamicMeta.length + pinnedTools.length, bytes: sum(pinnedTools, dynamicMeta) };
  const budgetBytes = budget.listBudgetKb * 1024;
  const fits = (list: { tools: number; bytes: number }) => list.tools <= budget.maxTools && list.bytes <= budgetBytes;
  const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;
  const limits = `${budget.maxTools} tools and ${kb(budgetBytes)}`;
  const report = (mode: ServedMode, reason: string): ServingReport => ({ mode, reason, listed: listedIn(mode), direct, toolsets, budget });

  if (asked !== 'auto') {
    const over = fits(listedIn(asked))
      ? ''
      : ` (its tools/list, ${listedIn(asked).tools} tools in ${kb(listedIn(asked).bytes)}, is over the budget of ${limits})`;
    return report(asked, `chosen with --tools ${asked}${over}`);
  }
  if (fits(direct)) return report('direct', `all ${direct.tools} tools fit the budget of ${limits} (${kb(direct.bytes)})`);
  const allOverBudget = `${direct.tools} tools in ${kb(direct.bytes)} are over the budget of ${limits}`;
  const tooBig = toolsets.filter((t) => !fits({ tools: t.tools + toolsetMeta.length + pinnedTools.length, bytes: t.bytes }));
  if (toolsets.length > 1 && tooBig.length === 0 && fits(listedIn('toolsets'))) {
    return report('toolsets', `${allOverBudget}; each of the ${toolsets.length} toolsets fits it, so the agent enables the ones it needs`);
  }
  const why = toolsets.length <= 1 ? 'the API has a single toolset' : tooBigOnTheirOwn(tooBig, kb);
  const typed = table.tools.filter((t) => t.output !== undefined).length;
  if (typed * 2 >= table.tools.length) {
    return report(
      'code',
      `${allOverBudget}, and ${why}; ${typed} of ${table.tools.length} operations answer typed JSON, so the agent searches the API's types and runs one program that calls several operations and returns only what it needs, through two tools`,
    );
  }
  return report(
    'dynamic',
    `${allOverBudget}, and ${why}; only ${typed} of ${table.tools.length} operations answer typed JSON (too few for programs to filter), so the agent searches the operations and calls them through three tools`,
  );
}
