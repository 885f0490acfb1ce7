// `mcp-gen diff old new`: what a spec change does to the MCP tools an agent sees, each
// change classed breaking or not — at the level of tools and arguments, not HTTP.
// Breaking means: a call that worked before can now fail (tool gone, argument gone or
// newly required, its type or enum narrowed) or an answer field a client read is gone.

import { modelFromOptions } from './generate.js';
import type { UserOptions } from './options.js';
import type { JsonSchema, ToolSpec, ToolTable } from './contract/table.js';

export interface Change {
  tool: string;
  breaking: boolean;
  what: string;
}

type Resolver = (schema: JsonSchema | undefined) => JsonSchema | undefined;

function resolver(table: ToolTable): Resolver {
  return (schema) => {
    let s = schema;
    for (let i = 0; s && typeof s.$ref === 'string' && i < 20; i++) s = table.defs[s.$ref.slice('#/$defs/'.length)];
    return s;
  };
}

const typesOf = (schema: JsonSchema | undefined): Set<string> | undefined => {
  if (!schema || schema.type === undefined) return undefined;
  const list = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const set = new Set(list);
  if (set.has('number')) set.add('integer'); // a number accepts integers
  return set;
};

function compareProperties(
  tool: string,
  label: string,
  before: JsonSchema | undefined,
  after: JsonSchema | undefined,
  resolveOld: Resolver,
  resolveNew: Resolver,
  changes: Change[],
  depth: number,
): void {
  const oldProps = (resolveOld(before)?.properties ?? {}) as Record<string, JsonSchema>;
  const newProps = (resolveNew(after)?.properties ?? {}) as Record<string, JsonSchema>;
  const oldRequired = new Set((resolveOld(before)?.required as string[] | undefined) ?? []);
  const newRequired = new Set((resolveNew(after)?.required as string[] | undefined) ?? []);
  for (const name of Object.keys(oldProps)) {
    if (!(name in newProps)) changes.push({ tool, breaking: true, what: `${label} "${name}" removed` });
  }
  for (const name of Object.keys(newProps)) {
    const where = `${label} "${name}"`;
    if (!(name in oldProps)) {
      const required = newRequired.has(name);
      changes.push({ tool, breaking: required, what: `${where} added${required ? ' as required' : ''}` });
      continue;
    }
    if (newRequired.has(name) && !oldRequired.has(name)) changes.push({ tool, breaking: true, what: `${where} made required` });
    if (!newRequired.has(name) && oldRequired.has(name)) changes.push({ tool, breaking: false, what: `${where} made optional` });
    const a = resolveOld(oldProps[name]);
    const b = resolveNew(newProps[name]);
    compareValues(tool, where, a, b, changes);
    if (a?.items || b?.items)
      compareValues(tool, `${where} items`, resolveOld(a?.items as JsonSchema), resolveNew(b?.items as JsonSchema), changes);
    if (depth < 2 && (a?.properties || b?.properties))
      compareProperties(tool, `${where} property`, a, b, resolveOld, resolveNew, changes, depth + 1);
  }
}

/** Type and enum of one value: narrowing either breaks callers that sent the old values. */
function compareValues(tool: string, where: string, a: JsonSchema | undefined, b: JsonSchema | undefined, changes: Change[]): void {
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta && tb) {
    const lost = [...ta].filter((t) => !tb.has(t));
    const gained = [...tb].filter((t) => !ta.has(t));
    if (lost.length) changes.push({ tool, breaking: true, what: `${where} type narrowed: ${[...ta].join('|')} → ${[...tb].join('|')}` });
    else if (gained.length)
      changes.push({ tool, breaking: false, what: `${where} type widened: ${[...ta].join('|')} → ${[...tb].join('|')}` });
  }
  const same = (v: unknown, list: unknown[]) => list.some((w) => JSON.stringify(w) === JSON.stringify(v));
  const ea = a?.enum as unknown[] | undefined;
  const eb = b?.enum as unknown[] | undefined;
  if (eb && (!ea || ea.some((v) => !same(v, eb)))) {
    const removed = ea ? ea.filter((v) => !same(v, eb)) : [];
    changes.push({
      tool,
      breaking: true,
      what: `${where} enum narrowed${removed.length ? `: ${removed.map((v) => JSON.stringify(v)).join(', ')} no longer allowed` : ''}`,
    });
  } else if (ea && eb && eb.length > ea.length) {
    changes.push({ tool, breaking: false, what: `${where} enum widened` });
  } else if (ea && !eb) {
    changes.push({ tool, breaking: false, what: `${where} enum removed (any value allowed)` });
  }
}

export function diffTables(before: ToolTable, after: ToolTable): Change[] {
  const changes: Change[] = [];
  const oldTools = new Map(before.tools.map((t) => [t.name, t]));
  const newTools = new Map(after.tools.map((t) => [t.name, t]));
  const resolveOld = resolver(before);
  const resolveNew = resolver(after);
  for (const [name] of oldTools) if (!newTools.has(name)) changes.push({ tool: name, breaking: true, what: 'tool removed' });
  for (const [name, b] of newTools) {
    const a = oldTools.get(name);
    if (!a) {
      changes.push({ tool: name, breaking: false, what: 'tool added' });
      continue;
    }
    const listedBefore = withoutNowHidden(a, b, changes);
    compareProperties(name, 'argument', listedBefore, b.inputSchema, resolveOld, resolveNew, changes, 0);
    compareOutput(name, a, b, resolveOld, resolveNew, changes);
    if (a.http.method !== b.http.method || a.http.path !== b.http.path) {
      changes.push({
        tool: name,
        breaking: false,
        what: `now calls ${b.http.method} ${b.http.path} (was ${a.http.method} ${a.http.path})`,
      });
    }
  }
  compareCredentials(before, after, changes);
  compareArgumentVariables(before, after, changes);
  return changes.sort((x, y) => (x.tool < y.tool ? -1 : x.tool > y.tool ? 1 : Number(y.breaking) - Number(x.breaking)));
}

/**
 * The environment variables the server reads credentials from: a deployment that sets the
 * old name stops authenticating when it goes (a new title renames them all, since they carry
 * the API's prefix; --env-prefix pins them).
 */
function compareCredentials(before: ToolTable, after: ToolTable, changes: Change[]): void {
  const variables = (table: ToolTable) => new Set(Object.values(table.auth).flatMap((scheme) => Object.values(scheme.env) as string[]));
  const [was, now] = [variables(before), variables(after)];
  const gone = [...was].filter((v) => !now.has(v));
  const added = [...now].filter((v) => !was.has(v));
  if (gone.length)
    changes.push({
      tool: '(credentials)',
      breaking: true,
      what: `no longer read: ${gone.join(', ')}${added.length ? `; now read: ${added.join(', ')}` : ''}`,
    });
  else if (added.length) changes.push({ tool: '(credentials)', breaking: false, what: `now also read: ${added.join(', ')}` });
}

/**
 * `before`'s inputSchema without the arguments the config file now hides, each told as no change
 * a model can break on: the server sends it on every call, and the model no longer sees it.
 */
function withoutNowHidden(before: ToolSpec, after: ToolSpec, changes: Change[]): JsonSchema {
  const properties = { ...((before.inputSchema.properties ?? {}) as Record<string, JsonSchema>) };
  for (const arg of Object.keys(after.hidden ?? {})) {
    if (!Object.hasOwn(properties, arg)) continue;
    delete properties[arg];
    changes.push({ tool: after.name, breaking: false, what: `argument "${arg}" hidden: the server now sends it` });
  }
  return { ...before.inputSchema, properties };
}

/** Variables hidden arguments are read from: a deployment without a new one has its calls refused. */
function compareArgumentVariables(before: ToolTable, after: ToolTable, changes: Change[]): void {
  const variables = (table: ToolTable) =>
    new Set(table.tools.flatMap((tool) => Object.values(tool.hidden ?? {}).flatMap((h) => ('env' in h ? [h.env] : []))));
  const was = variables(before);
  const added = [...variables(after)].filter((v) => !was.has(v));
  if (added.length) changes.push({ tool: '(arguments)', breaking: true, what: `hidden arguments now read: ${added.join(', ')}` });
}

function compareOutput(name: string, a: ToolSpec, b: ToolSpec, resolveOld: Resolver, resolveNew: Resolver, changes: Change[]): void {
  if (a.output && !b.output) changes.push({ tool: name, breaking: true, what: 'output schema removed' });
  else if (!a.output && b.output) changes.push({ tool: name, breaking: false, what: 'output schema added' });
  else if (a.output && b.output) {
    const oldProps = Object.keys((resolveOld(a.output.schema)?.properties ?? {}) as object);
    const newProps = new Set(Object.keys((resolveNew(b.output.schema)?.properties ?? {}) as object));
    for (const p of oldProps) if (!newProps.has(p)) changes.push({ tool: name, breaking: true, what: `output field "${p}" removed` });
    for (const p of newProps) if (!oldProps.includes(p)) changes.push({ tool: name, breaking: false, what: `output field "${p}" added` });
  }
}

/**
 * Models both sides with the same options as `generate` (the config file's selection, overrides
 * and names included), so the diff speaks of the tools the server really serves; a side of
 * several APIs is joined as generate joins it, its tools named `<namespace>_…`.
 */
export async function diffSides(before: UserOptions, after: UserOptions): Promise<Change[]> {
  const [a, b] = await Promise.all([modelFromOptions(before, 'generate'), modelFromOptions(after, 'generate')]);
  return diffTables(a.model.table, b.model.table);
}

/** Two specs of one API compared with the same options. */
export const diffSpecs = (oldSpec: string, newSpec: string, options: UserOptions = {}): Promise<Change[]> =>
  diffSides({ ...options, spec: oldSpec }, { ...options, spec: newSpec });
