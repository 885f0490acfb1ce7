// One generic executor serves every tool in the table. A call is three steps, each a module of
// its own, over the server's shared services (services.ts): prepare the request (prepare-step.ts:
// check the arguments, hooks, build, authenticate), send it and read the answer (send-step.ts:
// the time limit, the tries and pacing, afterResponse hooks), and shape the answer for the client
// (answer-step.ts: result, budget, long-running operations, redaction). This module composes them.

import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../start/config.js';
import type { Hooks } from '../hooks-api.js';
import type { Logger } from '../start/log.js';
import { callObserver, type CallObserver } from '../observe/observe.js';
import type { RequestCredentials } from './request/credentials.js';
import type { UpstreamAnswer, UpstreamRefusal } from './answer/response.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../contract/table.js';
import { OPERATION_STATUS } from '../../contract/meta-tools.js';
import type { Progress } from '../mcp/progress.js';
import { callServices, type CallContext, type CallServices, type Following } from './services.js';
import { checkCall, prepareCall, prepareStatus } from './prepare-step.js';
import { sendPrepared, type Exchanged } from './send-step.js';
import { callOutcome, readOutcome, redacted, shape, thrown, type AnswerOptions } from './answer-step.js';

export interface Executor {
  /** The tool's inputSchema as listed, with the shared `$defs` it references attached. */
  inputSchema(tool: ToolSpec): JsonSchema;
  /** The tool's outputSchema as listed, with its `$defs`, when the spec documents a JSON answer. */
  outputSchema(tool: ToolSpec): JsonSchema | undefined;
  /**
   * `advertised: false` when the answer goes out without the tool's outputSchema (dynamic
   * mode's invoke_operation): then nothing promised a shape, and any good answer is returned.
   * `caller`: the MCP caller's verified token (OAuth), for token exchange and the identity header.
   * `whole`: for a code-mode program, which reads the answer whole: no --max-answer-bytes, and an
   * answer cut at --max-response-bytes is an error rather than the start of one.
   */
  call(
    tool: ToolSpec,
    args: Record<string, unknown>,
    signal: AbortSignal,
    credentials?: RequestCredentials,
    options?: AnswerOptions & { caller?: AuthInfo },
  ): Promise<CallToolResult>;
  /** get_operation_status: the operation a call left running, followed again by its handle (long-running.ts). */
  resume(
    handle: string,
    signal: AbortSignal,
    credentials?: RequestCredentials,
    options?: { caller?: AuthInfo; progress?: Progress },
  ): Promise<CallToolResult>;
  /**
   * The upstream answer to the request a call would make, for resources/read: a successful
   * answer, the upstream's refusal (status ≥ 400), or the tool error that stopped the request.
   */
  read(
    tool: ToolSpec,
    args: Record<string, unknown>,
    signal: AbortSignal,
    credentials?: RequestCredentials,
    options?: { caller?: AuthInfo },
  ): Promise<{ answer: UpstreamAnswer } | { refused: UpstreamRefusal } | { failure: CallToolResult }>;
  /** Arguments of a tool that is not an operation (the meta-tools) against its schema: why they do not fit, or undefined. */
  checkArguments(schema: JsonSchema, args: Record<string, unknown>): Promise<string | undefined>;
  /** A call's arguments checked as call() checks them first: the arguments it would send, or the tool error's text. */
  checkCall(tool: ToolSpec, args: Record<string, unknown>): Promise<{ args: Record<string, unknown> } | { problem: string }>;
}

const NO_CREDENTIALS: RequestCredentials = new Map();

export function createExecutor(
  table: ToolTable,
  config: ServerConfig,
  hooks: Hooks,
  log: Logger,
  observer: CallObserver = callObserver({ logCalls: false }),
): Executor {
  const services: CallServices = callServices(table, config, hooks, log, observer, () => loadFollowing(services));
  return {
    inputSchema: services.schemas.listedInput,
    outputSchema: services.schemas.listedOutput,
    checkArguments: (schema, args) => services.checks.schema(schema, args),
    checkCall: (tool, args) => checkCall(services, tool, args),
    async read(tool, args, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call = callFor(credentials, options.caller);
      try {
        return readOutcome(services, await observer.operation(tool, () => exchange(services, tool, args, signal, call)), call);
      } catch (error) {
        return { failure: redacted(services, thrown(tool.name, error), call) };
      }
    },
    async call(tool, args, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call = { ...callFor(credentials, options.caller, options.progress), ...readingOf(options) };
      try {
        const outcome = await observer.operation(tool, () => exchange(services, tool, args, signal, call));
        return await callOutcome(services, tool, outcome, args, signal, call, options);
      } catch (error) {
        // A failure inside a call is the tool's failure (isError), never the connection's.
        return redacted(services, thrown(tool.name, error), call);
      }
    },
    async resume(handle, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call = callFor(credentials, options.caller);
      try {
        const following = await services.following.get();
        const result = await following.resume(handle, { signal, call, advertised: false, progress: options.progress });
        return result.isError ? redacted(services, result, call) : result;
      } catch (error) {
        return redacted(services, thrown(OPERATION_STATUS, error), call);
      }
    },
  };
}

const callFor = (credentials: RequestCredentials, caller: AuthInfo | undefined, progress?: Progress): CallContext => ({
  credentials,
  caller,
  secrets: [],
  ...(progress ? { progress } : {}),
});

/** What of the caller's choices the reading of the answer needs: a task's lifetime, a program's whole answer. */
const readingOf = (options: AnswerOptions): Pick<CallContext, 'lifetimeMs' | 'whole'> => ({
  ...(options.lifetimeMs !== undefined ? { lifetimeMs: options.lifetimeMs } : {}),
  ...(options.whole === true ? { whole: true } : {}),
});

/** The request a call of `tool` makes, sent: the upstream's answer, or the tool error that stopped it. */
async function exchange(
  services: CallServices,
  tool: ToolSpec,
  given: Record<string, unknown>,
  signal: AbortSignal,
  call: CallContext,
): Promise<Exchanged> {
  const ready = await prepareCall(services, tool, given, call);
  return 'failure' in ready ? ready : sendPrepared(services, tool, ready, call, signal);
}

/** A status request of a long-running operation (prepare-step.ts says with what), sent. */
async function getStatus(services: CallServices, tool: ToolSpec, url: string, signal: AbortSignal, call: CallContext): Promise<Exchanged> {
  const ready = prepareStatus(services, tool, url, call);
  return 'failure' in ready ? ready : sendPrepared(services, tool, ready, call, signal);
}

/** long-running.ts, loaded on first need, with this server's steps to call and read operations with. */
async function loadFollowing(services: CallServices): Promise<Following> {
  const { longRunningCalls, tracked } = await import('../long-running/long-running.js');
  const { openOperationStore } = await import('../long-running/operation-store.js');
  const { config } = services;
  const store = openOperationStore(config.operationStore, services.table.name, services.log);
  const calls = longRunningCalls<CallContext>(
    services.table,
    config.operationWaitMs,
    {
      get: (tool, url, signal, call) => getStatus(services, tool, url, signal, call),
      base: (tool) => services.baseOf(tool),
      call: (tool, args, signal, call) => exchange(services, tool, args, signal, call),
      shape: (tool, answer, args, advertised) => shape(services, tool, answer, args, advertised),
    },
    store,
  );
  return { ...calls, tracked };
}
