// Following a long-running operation (ToolSpec.longRunning, from mcp-gen's
// src/model/long-running.ts) from its first answer to its end: a 202's status URL
// (Azure-AsyncOperation, else Operation-Location, else Location), the status operation a link
// names, or a Google Operation's `GET /v1/{name}`, polled with GET as Retry-After asks (else
// every second, growing), until the operation ends or the call's wait (--operation-wait) is
// over. Past the wait the state stays here, under a random handle that get_operation_status
// takes: the status URL never reaches the agent, so that a handle cannot make the server
// fetch another URL with the API's credentials.

import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { Progress } from '../mcp/progress.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { UpstreamAnswer } from '../call/answer/response.js';
import type { UpstreamResponse } from '../call/send/upstream-response.js';
import { OPERATION_STATUS } from '../../contract/meta-tools.js';
import type { ToolSpec, ToolTable } from '../../contract/table.js';
import { noteProgress } from '../observe/observe.js';
import { toolError } from '../mcp/output.js';
import { sha256, toBase64Url } from '../start/crypto.js';
import { retryAfterMs as readRetryAfter } from '../call/send/retry.js';
import type { OperationStore } from './operation-store.js';
import type { OperationHeaders, Poll, TrackedAnswer, Tracking } from './tracking.js';

export type { TrackedAnswer, Tracking } from './tracking.js';

/** The answer, tracked: what following its operation needs of the response and the request. `credentialQuery`: query parameters that carry credentials. */
export function tracked(
  answer: UpstreamAnswer,
  response: Pick<UpstreamResponse, 'header' | 'status'>,
  request: { method: string; url: string },
  credentialQuery: ReadonlySet<string>,
): TrackedAnswer {
  const url = new URL(request.url);
  for (const name of credentialQuery) url.searchParams.delete(name);
  const operation = operationHeaders(response, request.url);
  return { ...answer, ...(operation ? { operation } : {}), request: { method: request.method, url: url.href } };
}

type Polled = { answer: TrackedAnswer } | { failure: CallToolResult };

/** The requests of one call's polling: made as the tool's own, its credentials on the API's origin only. */
interface OperationIo {
  /** GET `url` for `tool`: authenticated when it is on the tool's API origin, else sent bare. */
  get(tool: ToolSpec, url: string, signal: AbortSignal): Promise<Polled>;
  /** GET the API's `path` for `tool`, authenticated (a Google Operation). */
  getPath(tool: ToolSpec, path: string, signal: AbortSignal): Promise<Polled>;
  /** The linked status operation's call. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Polled>;
}

/** What following operations needs of the executor, for a call context `C` (its caller and credentials). */
export interface ExecutorIo<C> {
  /** GET `url` as `tool`'s request: with its credentials on the tool's API origin, bare elsewhere. */
  get(tool: ToolSpec, url: string, signal: AbortSignal, call: C): Promise<Polled>;
  /** The tool's base URL, or why there is none. */
  base(tool: ToolSpec): { base: string } | { problem: string };
  /** A tool's call, all checks included: the linked status operation. */
  call(tool: ToolSpec, args: Record<string, unknown>, signal: AbortSignal, call: C): Promise<Polled>;
  /** An answer as `tool`'s result. */
  shape(tool: ToolSpec, answer: UpstreamAnswer, args: Record<string, unknown>, advertised: boolean): CallToolResult;
}

interface FollowOptions<C> {
  signal: AbortSignal;
  call: C;
  /** Whether the tool's outputSchema was listed for this call (a pending answer then has to be an error, or fit it). */
  advertised: boolean;
  progress?: Progress;
  /** How long this call may wait, when not --operation-wait (a task waits as long as it is kept). */
  waitMs?: number;
}

/**
 * The executor's long-running steps: `follow` a first answer to its end (or to a handle), and
 * `resume` by a handle, kept in `store` (operation-store.ts: this process's memory, or a store
 * the replicas share).
 */
export function longRunningCalls<C extends { caller: AuthInfo | undefined; credentials: RequestCredentials }>(
  table: ToolTable,
  waitMs: number,
  io: ExecutorIo<C>,
  store: OperationStore,
) {
  const byName = new Map(table.tools.map((t) => [t.name, t]));
  const callIo = (call: C): OperationIo => ({
    get: (tool, url, signal) => io.get(tool, url, signal, call),
    getPath: async (tool, path, signal) => {
      const target = io.base(tool);
      if ('problem' in target) return { failure: toolError(target.problem) };
      return io.get(tool, target.base.replace(/\/+$/, '') + path, signal, call);
    },
    call: async (name, args, signal) => {
      const tool = byName.get(name);
      return tool ? io.call(tool, args, signal, call) : { failure: toolError(`${name}: no such status operation`) };
    },
  });

  async function settle(tool: ToolSpec, tracking: Tracking, options: FollowOptions<C>): Promise<CallToolResult> {
    const followed = await followOperation(tool, tracking, callIo(options.call), { ...options, waitMs: options.waitMs ?? waitMs });
    if ('failure' in followed) return followed.failure;
    if ('failed' in followed) return toolError(`${tool.name}: the operation ended without success: ${followed.failed}`);
    if ('answer' in followed) return io.shape(tool, followed.answer, tracking.args, options.advertised);
    const saved: { handle: string } | { problem: string } = await store
      .save(tracking, ownerOf(options.call.caller, options.call.credentials))
      .then(
        (handle) => (handle === undefined ? { problem: noRoomForHandle(tool, tracking, store.capacity) } : { handle }),
        (error: unknown) => ({ problem: storeFailed(tool, tracking, error) }),
      );
    if ('problem' in saved) return toolError(saved.problem);
    const handle = saved.handle;
    const shaped = tracking.last ? io.shape(tool, tracking.last, tracking.args, options.advertised) : undefined;
    return pendingResult(tool, tracking, handle, shaped, options.advertised && tool.output !== undefined);
  }

  return {
    /** The first answer of a long-running tool, followed until the operation ends or the wait is over. */
    follow(tool: ToolSpec, answer: TrackedAnswer, args: Record<string, unknown>, options: FollowOptions<C>): Promise<CallToolResult> {
      const tracking = startTracking(tool, answer, args);
      return tracking === undefined ? Promise.resolve(io.shape(tool, answer, args, options.advertised)) : settle(tool, tracking, options);
    },
    /** The operation a handle names, followed again for as long. */
    async resume(handle: string, options: FollowOptions<C>): Promise<CallToolResult> {
      const taken = await store.take(handle, ownerOf(options.call.caller, options.call.credentials));
      if ('problem' in taken) return toolError(taken.problem);
      const tool = byName.get(taken.tracking.tool);
      if (tool === undefined) return toolError(`${OPERATION_STATUS}: the operation's tool is gone`);
      return settle(tool, taken.tracking, options);
    },
  };
}

export type Followed =
  | { answer: TrackedAnswer }
  | { failure: CallToolResult }
  /** The operation ended in failure although its status answer was a success (`status: Failed`, an Operation's `error`). */
  | { failed: string }
  | { pending: Tracking };

const FIRST_INTERVAL_MS = 1_000;
const MAX_INTERVAL_MS = 10_000;
/** The least wait between two polls, whatever Retry-After says (0 would poll in a loop). */
const MIN_INTERVAL_MS = 50;
/** The longest Retry-After honoured: an upstream asking for more is asked again after this. */
const MAX_RETRY_AFTER_MS = 300_000;
const SUCCEEDED = new Set(['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished']);
const FAILED = new Set(['failed', 'failure', 'error', 'canceled', 'cancelled', 'aborted', 'rejected']);
const decoder = new TextDecoder();

/** The operation headers of an upstream response; `base`: the request's URL, against which relative ones resolve. */
function operationHeaders(response: Pick<UpstreamResponse, 'header' | 'status'>, base: string): OperationHeaders | undefined {
  const resolve = (value: string | null): string | undefined => {
    if (value === null) return undefined;
    try {
      const url = new URL(value, base);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
    } catch {
      return undefined;
    }
  };
  const monitor = resolve(response.header('azure-asyncoperation')) ?? resolve(response.header('operation-location'));
  const location = resolve(response.header('location'));
  const retryAfterMs = readRetryAfter(response.header('retry-after'));
  if (monitor === undefined && location === undefined && retryAfterMs === undefined) return undefined;
  return { ...(monitor ? { monitor } : {}), ...(location ? { location } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/**
 * How the first answer of a long-running tool goes on, or undefined when it is already the
 * result (an answer without a status URL, an Operation already done, an error).
 */
function startTracking(tool: ToolSpec, answer: TrackedAnswer, args: Record<string, unknown>): Tracking | undefined {
  const spec = tool.longRunning;
  if (spec === undefined || answer.status >= 300 || answer.request === undefined) return undefined;
  const headers = answer.operation;
  const base = {
    tool: tool.name,
    args,
    method: answer.request.method,
    requestUrl: answer.request.url,
    ...(headers?.location ? { location: headers.location } : {}),
    ...(spec.finalStateVia ? { finalStateVia: spec.finalStateVia } : {}),
    polls: 0,
    intervalMs: FIRST_INTERVAL_MS,
    nextPollAt: Date.now() + nextWait(headers?.retryAfterMs, FIRST_INTERVAL_MS),
  };
  if (headers?.monitor !== undefined) return { ...base, poll: { kind: 'url', url: headers.monitor, monitor: true } };
  if (answer.status === 202 && headers?.location !== undefined)
    return { ...base, poll: { kind: 'url', url: headers.location, monitor: false } };
  if (answer.status === 202 && spec.statusTool !== undefined) {
    const args = linkArguments(spec.statusTool.args, answer);
    return args === undefined ? undefined : { ...base, poll: { kind: 'tool', tool: spec.statusTool.name, args } };
  }
  // A GET answered 202 without a status URL ("still computing, ask again", as GitHub's statistics do) is asked again.
  if (answer.status === 202 && /^(GET|HEAD)$/i.test(base.method))
    return { ...base, poll: { kind: 'url', url: base.requestUrl, monitor: false } };
  const operation = jsonOf(answer);
  if (spec.operation !== undefined && isRecord(operation) && operation.done !== true && typeof operation.name === 'string') {
    return {
      ...base,
      poll: { kind: 'operation', path: spec.operation.statusPath.replace('{name}', operationPath(operation.name)) },
      last: answer,
    };
  }
  return undefined;
}

/** A Google operation name as a path: each segment encoded, the slashes kept (`{+name}`, RFC 6570 reserved expansion). */
function operationPath(name: string): string {
  return name
    .split('/')
    .filter((s) => s !== '' && s !== '.' && s !== '..')
    .map(encodeURIComponent)
    .join('/');
}

/** A link's parameters from the answer (OAS 3.1.1 §4.8.20.4 runtime expressions): the body by JSON pointer, a header; else a constant. */
function linkArguments(expressions: Record<string, string>, answer: TrackedAnswer): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(expressions)) {
    const value = expression.startsWith('$response.body')
      ? atPointer(jsonOf(answer), expression.slice('$response.body'.length))
      : expression;
    if (value === undefined || (typeof value === 'string' && value.startsWith('$'))) return undefined;
    args[name] = value;
  }
  return args;
}

function atPointer(json: unknown, fragment: string): unknown {
  if (fragment === '' || fragment === '#') return json;
  if (!fragment.startsWith('#/')) return undefined;
  let node = json;
  for (const raw of fragment.slice(2).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node;
}

/**
 * Polls until the operation ends, the wait is over (then `pending`, to be taken up again), or
 * the call is cancelled. `waitMs`: how long this call may wait.
 */
async function followOperation(
  tool: ToolSpec,
  tracking: Tracking,
  io: OperationIo,
  options: { waitMs: number; signal: AbortSignal; progress?: Progress },
): Promise<Followed> {
  const until = Date.now() + options.waitMs;
  for (;;) {
    if (tracking.nextPollAt > until) return { pending: tracking };
    if (!(await sleep(Math.max(0, tracking.nextPollAt - Date.now()), options.signal))) return { failure: cancelled(tool) };
    const polled = await poll(tool, tracking, io, options.signal);
    if ('failure' in polled) return polled;
    tracking.polls++;
    const state = judge(tracking.poll, polled.answer);
    if (state.kind === 'failed') return state.answer ? { answer: state.answer } : { failed: state.why };
    if (state.kind === 'succeeded') return finalAnswer(tool, tracking, polled.answer, io, options.signal);
    if (state.word !== undefined) tracking.state = state.word;
    if (tracking.poll.kind === 'operation') tracking.last = polled.answer;
    const said = `${tool.name}: ${tracking.state ?? 'running'} (status check ${tracking.polls})`;
    options.progress?.(tracking.polls, said);
    noteProgress(said);
    tracking.intervalMs = Math.min(Math.round(tracking.intervalMs * 1.5), MAX_INTERVAL_MS);
    tracking.nextPollAt = Date.now() + nextWait(polled.answer.operation?.retryAfterMs, tracking.intervalMs);
    if (tracking.poll.kind === 'url' && !tracking.poll.monitor && polled.answer.operation?.location !== undefined) {
      // A 202 may move the operation on to another status URL (RFC 9110 §15.3.3 leaves it to the API).
      tracking.poll = { ...tracking.poll, url: polled.answer.operation.location };
    }
  }
}

/** Retry-After when the upstream said it (within bounds), else the interval. */
function nextWait(retryAfterMs: number | undefined, intervalMs: number): number {
  return retryAfterMs !== undefined ? Math.min(Math.max(retryAfterMs, MIN_INTERVAL_MS), MAX_RETRY_AFTER_MS) : intervalMs;
}

function poll(tool: ToolSpec, tracking: Tracking, io: OperationIo, signal: AbortSignal) {
  const target = tracking.poll;
  if (target.kind === 'url') return io.get(tool, target.url, signal);
  if (target.kind === 'tool') return io.call(target.tool, target.args, signal);
  return io.getPath(tool, target.path, signal);
}

type State =
  | { kind: 'running'; word?: string }
  | { kind: 'succeeded' }
  /** `answer`: an error answer to return as it is; else `why`, from a status body. */
  | { kind: 'failed'; answer?: TrackedAnswer; why: string };

/** What a status answer says of the operation. */
function judge(target: Poll, answer: TrackedAnswer): State {
  if (answer.status >= 400) return { kind: 'failed', answer, why: '' };
  if (answer.status === 202) return { kind: 'running' };
  if (target.kind === 'url' && !target.monitor) return { kind: 'succeeded' };
  const body = jsonOf(answer);
  if (!isRecord(body)) return target.kind === 'operation' ? { kind: 'running' } : { kind: 'succeeded' };
  if (typeof body.done === 'boolean') {
    if (!body.done) return { kind: 'running' };
    return body.error !== undefined && body.error !== null ? { kind: 'failed', why: describe(body.error) } : { kind: 'succeeded' };
  }
  const word = [body.status, body.state].find((v): v is string => typeof v === 'string');
  if (word === undefined) return target.kind === 'operation' ? { kind: 'running' } : { kind: 'succeeded' };
  const normal = word.toLowerCase().replace(/[^a-z]/g, '');
  if (SUCCEEDED.has(normal)) return { kind: 'succeeded' };
  if (FAILED.has(normal)) return { kind: 'failed', why: `${word}${body.error !== undefined ? `: ${describe(body.error)}` : ''}` };
  return { kind: 'running', word: word.slice(0, 40) };
}

/**
 * The operation's result once it has succeeded: Azure's final-state-via says where (absent: the
 * original URL for PUT and PATCH, the status body's resourceLocation, Location for POST, else
 * the status answer itself); an Operation and a status answer are their own result.
 */
async function finalAnswer(
  tool: ToolSpec,
  tracking: Tracking,
  status: TrackedAnswer,
  io: OperationIo,
  signal: AbortSignal,
): Promise<Followed> {
  if (tracking.poll.kind !== 'url' || !tracking.poll.monitor) return { answer: status };
  const url = resultUrl(tracking, jsonOf(status));
  if (url === undefined) return { answer: status };
  try {
    return await io.get(tool, new URL(url, tracking.requestUrl).href, signal);
  } catch {
    return { answer: status };
  }
}

function resultUrl(tracking: Tracking, body: unknown): string | undefined {
  const via = tracking.finalStateVia;
  if (via === 'original-uri') return tracking.requestUrl;
  if (via === 'location') return tracking.location;
  if (via !== undefined) return undefined;
  const method = tracking.method.toUpperCase();
  if (method === 'PUT' || method === 'PATCH') return tracking.requestUrl;
  if (isRecord(body) && typeof body.resourceLocation === 'string') return body.resourceLocation;
  return method === 'POST' ? tracking.location : undefined;
}

function jsonOf(answer: UpstreamAnswer): unknown {
  if (answer.truncated || answer.bytes.length === 0 || !/json/i.test(answer.contentType)) return undefined;
  try {
    return JSON.parse(decoder.decode(answer.bytes)) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An error value of a status body in a line: its message when it has one. */
function describe(error: unknown): string {
  if (isRecord(error) && typeof error.message === 'string') return error.message.slice(0, 1_000);
  return JSON.stringify(error)?.slice(0, 1_000) ?? 'unknown error';
}

/** Waits `ms`; false when the call was cancelled first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      resolve(ok);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

const cancelled = (tool: ToolSpec): CallToolResult =>
  toolError(`${tool.name}: cancelled by the client while waiting for the operation to finish`);

/** Whose operation a handle is: the OAuth caller and the credentials the client sent, as a digest. */
export function ownerOf(caller: AuthInfo | undefined, credentials: RequestCredentials): string {
  const subject = caller?.extra?.subject;
  const who = caller === undefined ? '' : typeof subject === 'string' ? `sub:${subject}` : `client:${caller.clientId}`;
  let text = who;
  for (const [scheme, value] of [...credentials].sort(([a], [b]) => a.localeCompare(b))) text += `\0${scheme}\0${value}`;
  return toBase64Url(sha256(text));
}

/** Why a call whose operation is still running got no handle. */
function noRoomForHandle(tool: ToolSpec, tracking: Tracking, capacity: number): string {
  return (
    `${tool.name}: the operation is still running (${tracking.state ?? 'no result yet'} after ${tracking.polls} status checks), ` +
    `and this server already follows ${capacity.toLocaleString('en')} operations for other callers, so it keeps no handle for this one: ` +
    'its result cannot be fetched through this server. Check with the API itself, or try later.'
  );
}

/** Why a call whose operation is still running got no handle: the shared store failed (its message names no secret). */
function storeFailed(tool: ToolSpec, tracking: Tracking, error: unknown): string {
  return (
    `${tool.name}: the operation is still running (${tracking.state ?? 'no result yet'} after ${tracking.polls} status checks), ` +
    `but this server could not keep its handle: ${error instanceof Error ? error.message : String(error)}. ` +
    'Its result cannot be fetched through this server: check with the API itself.'
  );
}

/** The answer of a call whose operation is still running: the handle, and what is known. */
function pendingResult(
  tool: ToolSpec,
  tracking: Tracking,
  handle: string,
  shaped: CallToolResult | undefined,
  needsStructure: boolean,
): CallToolResult {
  const text =
    `${tool.name}: the operation is still running (${tracking.state ?? 'no result yet'} after ${tracking.polls} status checks). ` +
    `Call ${OPERATION_STATUS} with ${JSON.stringify({ handle })} to wait for its result.`;
  const meta = { 'io.github.mcp-gen/operation': { handle, status: 'working' } };
  if (shaped !== undefined && !shaped.isError) return { ...shaped, content: [...shaped.content, { type: 'text', text }], _meta: meta };
  // A client checks a success against the listed outputSchema, which a running operation has nothing for.
  return { content: [{ type: 'text', text }], _meta: meta, ...(needsStructure ? { isError: true } : {}) };
}
