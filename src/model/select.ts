// Which operations become tools: the selection flags, the config file's per-operation
// overrides, and the spec's own `x-mcp` extension (operation > path item > root).

import { isObject, type Json } from '../parse/pointer.js';
import type { Selection, ToolOverride } from './model-options.js';
import { globsMatch, type OperationRef } from './rules.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { didYouMean } from '../contract/did-you-mean.js';
import { isSafeMethod, methodOnTheWire } from '../contract/http-methods.js';

export type Verdict =
  | {
      keep: true;
      name?: string;
      description?: string;
      /** The toolset named for this operation in the config file's `tools`. */
      toolset?: string;
      /** The toolset named by the spec's `x-mcp` (operation, else path item). */
      specToolset?: string;
      /** Whether a call needs the user's yes (ToolSpec.confirm): the config file's, else x-mcp's. */
      confirm?: boolean;
      /** The config file's `apps: false` (ToolSpec.apps). */
      apps?: false;
    }
  | { keep: false; reason: string };

/** `x-mcp: false`, or `{ exclude, name, description, toolset, confirm }`. */
function xMcp(node: Json | undefined): ToolOverride | undefined {
  const value = node;
  if (value === false) return { exclude: true };
  if (value === true) return { exclude: false };
  if (!isObject(value)) return undefined;
  const out: ToolOverride = {};
  if (typeof value.exclude === 'boolean') out.exclude = value.exclude;
  if (typeof value.name === 'string') out.name = value.name;
  if (typeof value.description === 'string') out.description = value.description;
  if (typeof value.toolset === 'string') out.toolset = value.toolset;
  if (typeof value.confirm === 'boolean') out.confirm = value.confirm;
  return out;
}

/** Whether the config file overrides any operation: most override none, and then no operation's keys need be made or looked up. */
export const overridesAny = (overrides: Record<string, ToolOverride>): boolean => Object.keys(overrides).length > 0;

/** The config file's override of an operation and its key there: by operationId, else by `METHOD /path`. */
export function overrideOf(
  ref: OperationRef,
  overrides: Record<string, ToolOverride>,
): { key: string; override: ToolOverride } | undefined {
  if (!overridesAny(overrides)) return undefined;
  for (const key of [ref.operationId, `${methodOnTheWire(ref.method)} ${ref.path}`]) {
    const override = key !== undefined && Object.hasOwn(overrides, key) ? overrides[key] : undefined;
    if (key !== undefined && override !== undefined) return { key, override };
  }
  return undefined;
}

/**
 * A warning for each override key that named no operation, with the operationId it may have
 * meant; `searched` (` in shop or zoo`) names the APIs looked in, over several.
 */
export function unmatchedOverrides(
  keys: readonly string[],
  matched: ReadonlySet<string>,
  operationIds: readonly string[],
  placeOf: (key: string) => string,
  searched = '',
): GenerationWarning[] {
  return keys.flatMap((key) => {
    if (matched.has(key)) return [];
    const typo = didYouMean(key, operationIds, (id) => JSON.stringify(id));
    return [warning('unmatched-override', `${placeOf(key)} matches no operation${searched}${typo} (use an operationId or "METHOD /path")`)];
  });
}

export function selectOperation(ref: OperationRef, selection: Selection, overrides: Record<string, ToolOverride>): Verdict {
  const configured = overrideOf(ref, overrides)?.override;
  const fromSpec = [xMcp(ref.doc['x-mcp']), xMcp(ref.item['x-mcp']), xMcp(ref.op['x-mcp'])];
  let exclude: boolean | undefined;
  for (const level of fromSpec) if (level?.exclude !== undefined) exclude = level.exclude;
  if (configured?.exclude !== undefined) exclude = configured.exclude;
  if (exclude === true) return { keep: false, reason: configured?.exclude ? 'excluded in the config file' : 'x-mcp: excluded by the spec' };

  const method = ref.method.toUpperCase();
  // safe as IANA's method registry says (PROPFIND, REPORT and SEARCH too), spelled as sent
  if (selection.readOnly && !isSafeMethod(methodOnTheWire(ref.method))) return { keep: false, reason: '--read-only' };
  if (selection.methods?.length && !selection.methods.some((m) => m.toUpperCase() === method))
    return { keep: false, reason: 'method not in --methods' };
  if (selection.includeTags?.length && !ref.tags.some((t) => selection.includeTags?.includes(t)))
    return { keep: false, reason: 'no tag in --include-tags' };
  if (selection.excludeTags?.length && ref.tags.some((t) => selection.excludeTags?.includes(t)))
    return { keep: false, reason: 'tag in --exclude-tags' };
  if (selection.includeOperations?.length && !globsMatch(selection.includeOperations, ref.operationId))
    return { keep: false, reason: 'operationId not in --include-operations' };
  if (selection.excludeOperations?.length && globsMatch(selection.excludeOperations, ref.operationId))
    return { keep: false, reason: 'operationId in --exclude-operations' };
  if (selection.includePaths?.length && !globsMatch(selection.includePaths, ref.path))
    return { keep: false, reason: 'path not in --include-paths' };
  if (selection.excludePaths?.length && globsMatch(selection.excludePaths, ref.path))
    return { keep: false, reason: 'path in --exclude-paths' };

  const name = configured?.name ?? fromSpec[2]?.name;
  const description = configured?.description ?? fromSpec[2]?.description;
  const toolset = configured?.toolset;
  const specToolset = fromSpec[2]?.toolset ?? fromSpec[1]?.toolset;
  // Like exclude: the operation's x-mcp over its path's over the root's, the config file over all.
  const confirm = configured?.confirm ?? fromSpec[2]?.confirm ?? fromSpec[1]?.confirm ?? fromSpec[0]?.confirm;
  return {
    keep: true,
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(toolset !== undefined ? { toolset } : {}),
    ...(specToolset !== undefined ? { specToolset } : {}),
    ...(confirm !== undefined ? { confirm } : {}),
    ...(configured?.apps === false ? { apps: false as const } : {}),
  };
}
