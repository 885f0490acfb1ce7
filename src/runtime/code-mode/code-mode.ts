// Code mode (--tools code): search_api answers operations as TypeScript declarations of `api`,
// and execute runs the agent's program in the QuickJS sandbox (sandbox.ts, in a worker thread of
// sandbox-worker.ts, or on workerd in the isolate by sandbox-inline.ts, loaded on the first execute), where `api.<operation>(args)` is the only way out. Each such call is made exactly as
// invoke_operation makes it: the operation must be served and visible to the caller, and its
// arguments, credentials, hooks, limits and redaction are the executor's.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ProgramCall } from '../confirm/confirm.js';
import { apiMembers, apiPath, declarationOf } from './declarations.js';
import { queryWords, type MetaContext } from '../mcp/operation-index.js';
import { toolError } from '../mcp/output.js';
import type { SandboxLimits } from './sandbox.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../contract/limits.js';
import { platform } from '../start/platform.js';
import { boundToCall } from '../observe/observe.js';
import { EXECUTE, SEARCH_API } from '../../contract/meta-tools.js';
import type { ListedTool } from '../../contract/profiles.js';
import type { JsonSchema, ToolSpec } from '../../contract/table.js';

/** What search_api answers at most: declarations past it are counted, not printed. */
const SEARCH_BUDGET_BYTES = 12_000;
/**
 * How long one program may wait for people's answers (confirmations), all its questions together:
 * not CPU time, so not --code-time-ms, but not endless either; its worker is lent meanwhile.
 */
const PERSON_WAIT_MS = 300_000;

export interface CodeContext extends MetaContext {
  outputSchema(tool: ToolSpec): JsonSchema | undefined;
  limits: SandboxLimits;
  signal: AbortSignal;
  /** Who calls: the pool of workers is shared fairly among callers. */
  caller: string;
}

export async function callCodeTool(meta: ListedTool, given: Record<string, unknown>, ctx: CodeContext): Promise<CallToolResult> {
  const args = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null));
  const words = meta.name === SEARCH_API && typeof args.query === 'string' ? queryWords(args.query) : [];
  if (!Array.isArray(words)) return toolError(`Invalid arguments for ${SEARCH_API}: ${words.problem}`);
  const problem = await ctx.checkArguments(meta.inputSchema as JsonSchema, args);
  if (problem) return toolError(`Invalid arguments for ${meta.name}: ${problem}`);
  if (meta.name === SEARCH_API) return searchApi(ctx, words, (args.limit as number | undefined) ?? 8);
  return execute(ctx, args.code as string);
}

function searchApi(ctx: CodeContext, words: string[], limit: number): CallToolResult {
  const found = ctx.index().search(words, undefined, limit, ctx.visible);
  if (found.length === 0) return { content: [{ type: 'text', text: 'No operation matches; try other words.' }] };
  const printed: { tool: ToolSpec; declaration: string }[] = [];
  let bytes = 0;
  for (const tool of found) {
    const declaration = declarationOf(tool, ctx.inputSchema(tool), ctx.outputSchema(tool), tool.output?.wrap === true);
    bytes += Buffer.byteLength(declaration) + 1;
    if (bytes > SEARCH_BUDGET_BYTES && printed.length > 0) break;
    printed.push({ tool, declaration });
  }
  const more = found.length - printed.length;
  const rest = more > 0 ? `\n// …and ${more} more: search with more precise words` : '';
  const text = `// api, as ${EXECUTE} programs receive it\ninterface Api {\n${apiMembers(printed)}\n}${rest}`;
  return { content: [{ type: 'text', text }] };
}

async function execute(ctx: CodeContext, code: string): Promise<CallToolResult> {
  const { run, lend } = await sandboxRunner();
  const program = programCall(lend);
  const byPath = new Map(ctx.table.tools.filter((tool) => ctx.visible(tool)).map((tool) => [apiPath(tool), tool]));
  const outcome = await run(
    code,
    {
      names: [...byPath.keys()],
      // Bound to this call's async context: the worker's messages arrive outside it, and the
      // operations' spans and log entries belong to this execute.
      call: boundToCall((path: string, args: unknown) => callOperation(ctx, byPath.get(path), path, args, program)),
    },
    ctx.limits,
    ctx.signal,
    ctx.caller,
  );
  const logs = outcome.logs === '' ? '' : `\n\nconsole:\n${outcome.logs}`;
  if (!outcome.ok) return toolError(`${EXECUTE} failed after ${outcome.calls} api calls: ${outcome.error}${logs}`);
  const text = JSON.stringify(outcome.value) ?? 'null';
  return {
    content: [{ type: 'text', text: `${text}${logs}` }],
    structuredContent: { result: outcome.value as unknown, calls: outcome.calls, ...(outcome.logs !== '' ? { logs: outcome.logs } : {}) },
  };
}

/** This platform's runner: a pool of worker threads, or the isolate itself where there are none (workerd). */
async function sandboxRunner() {
  if (platform().sandbox === 'in-process') {
    const { runInProcess, lendingPlace } = await import('./sandbox-inline.js');
    return { run: runInProcess, lend: lendingPlace };
  }
  const { runInWorker, lendingWorker } = await import('./sandbox-worker.js');
  return { run: runInWorker, lend: lendingWorker };
}

/** A program's way to ask people: its waits together within PERSON_WAIT_MS, its worker lent meanwhile. */
function programCall(lend: <T>(wait: () => Promise<T>) => Promise<T>): ProgramCall {
  let waitedMs = 0;
  return {
    async askPerson(ask) {
      const left = PERSON_WAIT_MS - waitedMs;
      if (left <= 0) throw new Error(`the program already waited ${PERSON_WAIT_MS / 1000} s for answers, its limit`);
      const started = Date.now();
      try {
        return await lend(() => ask(left));
      } finally {
        waitedMs += Date.now() - started;
      }
    },
  };
}

/** A streamed answer's `{ items, omitted, ended, … }` (send/streamed-answer.ts), as a value. */
function isStreamRead(value: Record<string, unknown> | undefined): value is { items: unknown[]; omitted: number; ended: string } {
  return value !== undefined && Array.isArray(value.items) && typeof value.omitted === 'number' && typeof value.ended === 'string';
}

/**
 * What a program gets of a streamed answer: its items, as it would loop over them. The stream is
 * read whole up to --max-response-bytes: past it, the call throws rather than hand over part
 * of it unaware, as for any answer a program reads.
 */
function streamedItems(name: string, read: { items: unknown[]; omitted: number }): unknown[] {
  if (read.omitted > 0)
    throw new Error(
      `api.${name}: the stream held more than --max-response-bytes; ${read.items.length} items were read, ${read.omitted} more were left out`,
    );
  return read.items;
}

/** One api.<name>(args) of a program (`name` its path under `api`): the answer's JSON, or an Error the program sees. */
async function callOperation(
  ctx: CodeContext,
  tool: ToolSpec | undefined,
  name: string,
  args: unknown,
  program: ProgramCall,
): Promise<unknown> {
  if (tool === undefined || !ctx.visible(tool))
    throw new Error(`no operation named ${JSON.stringify(name)}; find names with ${SEARCH_API}`);
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new Error(`api.${name} takes one object of arguments`);
  }
  // A program cannot return a question halfway: one that needs the user's yes asks now or throws (confirm.ts).
  const result = await ctx.invoke(tool, (args ?? {}) as Record<string, unknown>, program);
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  if (result.isError) throw new Error(text.slice(0, 2_000));
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (tool.sequence !== undefined && isStreamRead(structured)) return streamedItems(name, structured);
  if (structured !== undefined) return tool.output?.wrap === true ? structured.result : structured;
  // JSON-looking text of another media type, bounded as JSON answers are (response.ts)
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
