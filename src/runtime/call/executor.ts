// One generic executor serves every tool in the table. A call is five steps, each in its own
// module: check the arguments (checks.ts), build the request (outgoing.ts), authenticate it
// (outgoing.ts, auth.ts; for the OAuth caller, on-behalf.ts and token-exchange.ts), send it
// and read the answer (exchange.ts, upstream.ts), and shape the answer for the client
// (shape.ts, response.ts).

import { platform } from '../start/platform.js';
import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../start/config.js';
import { toolHooks, type Hooks, type OutgoingRequest } from '../hooks-api.js';
import { keepLink, markLinkRequired, type LinkRequired } from './answer/link-mark.js';
import type { Logger } from '../start/log.js';
import { callObserver, type CallObserver } from '../observe/observe.js';
import { Authenticator, type RequestCredentials } from './request/credentials.js';
import { abortSignalOf, type Cancellation } from './send/call-limit.js';
import { createChecks } from './request/checks.js';
import { deadline, networkFailure, readAnswer, requestLabel } from './send/exchange.js';
import { apiBase, authenticate, buildOutgoing, upstreamBase } from './request/outgoing.js';
import { setHeader } from './request/request.js';
import type { OnBehalf } from '../oauth/upstream-accounts/on-behalf.js';
import { toolError } from '../mcp/output.js';
import { toToolResult, type UpstreamAnswer, type UpstreamRefusal } from './answer/response.js';
import { afterResponse, type AfterResponse } from './answer/response-hooks.js';
import { refusal, structureFor } from './answer/shape.js';
import { serverRedactor } from './answer/redact.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../contract/table.js';
import { OPERATION_STATUS } from '../../contract/meta-tools.js';
import { perTool, toolSchemas } from '../mcp/tool-schemas.js';
import type { AnswerBudget } from './answer/answer-budget.js';
import { credentialPlaces, sendFollowingRedirects } from './send/upstream.js';
import { followsOperations } from '../start/optional-features.js';
import { Lazy } from '../start/lazy.js';
import type { Progress, TrackedAnswer } from '../long-running/long-running.js';
import { createSending, withNote, type CallAttempts } from './send/retry.js';

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
    options?: { advertised?: boolean; caller?: AuthInfo; progress?: Progress; operationWaitMs?: number; whole?: boolean },
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

/** `note`: what the retries have to say about an error answer (retry.ts). */
type Exchanged = { answer: TrackedAnswer; note?: string } | { failure: CallToolResult };
/**
 * A request ready to send; whether a token was fetched for it, and whether a token was
 * exchanged for its caller (a 401 is then worth one fresh try).
 */
type Prepared = { request: OutgoingRequest; usedTokenFetch: boolean; exchanged: boolean };
/** Who a call is for (OAuth) and the secrets it came to use: what the redaction takes out. */
interface CallContext {
  credentials: RequestCredentials;
  caller: AuthInfo | undefined;
  secrets: string[];
}
const failure = (text: string, link?: LinkRequired): { failure: CallToolResult } => ({
  failure: link === undefined ? toolError(text) : markLinkRequired(toolError(text), link),
});

// eslint-disable-next-line max-lines-per-function -- one server's caches shared by its local steps; splitting them into module-level prepare/send/answer steps is the part of #39 left open
export function createExecutor(
  table: ToolTable,
  config: ServerConfig,
  hooks: Hooks,
  log: Logger,
  observer: CallObserver = callObserver({ logCalls: false }),
): Executor {
  const schemas = toolSchemas(table);
  const checks = createChecks(table, schemas, log);
  const auth = new Authenticator(table, platform().env, log, config.timeoutMs);
  const defaultBase = apiBase(table, config.baseUrl);
  const send = observer.sender(upstreamSender(table, config));
  const sending = createSending(config.sending, log);
  const redactor = serverRedactor(table, config.staticHeaders);
  const onBehalf = onBehalfOf(table, config, log);
  const thrown = (tool: ToolSpec, error: unknown) => toolError(`${tool.name} failed: ${(error as Error)?.message ?? String(error)}`);
  const credentialQuery = credentialPlaces(table).query;
  // What following an operation needs of an answer (its request, its operation headers), only where one may be followed.
  const tracks = followsOperations(table);
  const advertisedStructure = perTool((tool) => structureFor(tool, true, checks.output));
  // long-running.ts, loaded on first need: only a table with a long-running operation has one.
  const following = new Lazy(async () => {
    const { longRunningCalls, tracked } = await import('../long-running/long-running.js');
    const calls = longRunningCalls<CallContext>(table, config.operationWaitMs, {
      get: (tool, url, signal, call) => getStatus(tool, url, signal, call),
      base: (tool) => upstreamBase(tool, config.baseUrl, defaultBase),
      call: (tool, args, signal, call) => exchange(tool, args, signal, call),
      shape: (tool, answer, args, advertised) => shape(tool, answer, args, advertised),
    });
    return { ...calls, tracked };
  });

  return {
    inputSchema: schemas.listedInput,
    outputSchema: schemas.listedOutput,
    checkArguments: (schema, args) => checks.schema(schema, args),
    checkCall,
    async read(tool, args, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call: CallContext = { credentials, caller: options.caller, secrets: [] };
      try {
        const outcome = await observer.operation(tool, () => exchange(tool, args, signal, call));
        if ('failure' in outcome)
          return { failure: keepLink(outcome.failure, redactor.result(outcome.failure, credentials, call.secrets)) };
        if (outcome.answer.status < 400) return outcome;
        return { refused: refusal(outcome.answer, (text) => redactor.text(text, credentials, call.secrets)) };
      } catch (error) {
        return { failure: redactor.result(thrown(tool, error), credentials, call.secrets) };
      }
    },
    async call(tool, args, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call: CallContext = { credentials, caller: options.caller, secrets: [] };
      try {
        const outcome = await observer.operation(tool, () => exchange(tool, args, signal, call));
        if ('failure' in outcome) return keepLink(outcome.failure, redactor.result(outcome.failure, credentials, call.secrets));
        const advertised = options.advertised !== false;
        if (options.whole && outcome.answer.status < 400 && outcome.answer.truncated) return notWhole(tool);
        const result = tool.longRunning
          ? await (await following.get()).follow(tool, outcome.answer, args, { signal, call, advertised, ...followOptions(options) })
          : shape(tool, outcome.answer, args, advertised, options.whole);
        return result.isError ? redactor.result(withNote(result, outcome.note), credentials, call.secrets) : result;
      } catch (error) {
        // A failure inside a call is the tool's failure (isError), never the connection's.
        return redactor.result(thrown(tool, error), credentials, call.secrets);
      }
    },
    async resume(handle, signal, credentials = NO_CREDENTIALS, options = {}) {
      const call: CallContext = { credentials, caller: options.caller, secrets: [] };
      try {
        const result = await (await following.get()).resume(handle, { signal, call, advertised: false, progress: options.progress });
        return result.isError ? redactor.result(result, credentials, call.secrets) : result;
      } catch (error) {
        return redactor.result(
          toolError(`${OPERATION_STATUS} failed: ${(error as Error)?.message ?? String(error)}`),
          credentials,
          call.secrets,
        );
      }
    },
  };

  /** A good or failed upstream answer as the tool's result; `whole`: for a program, not held to --max-answer-bytes. */
  function shape(
    tool: ToolSpec,
    answer: UpstreamAnswer,
    args: Record<string, unknown>,
    advertised: boolean,
    whole = false,
  ): CallToolResult {
    const structure = advertised ? advertisedStructure(tool) : structureFor(tool, false, checks.output);
    return toToolResult(answer, structure, whole ? undefined : answerBudget(tool, args, config.maxAnswerBytes), tool.name);
  }

  /**
   * A program reads an answer whole: one cut at the upstream read limit is an error, since the
   * program would otherwise parse the start of it (or get a string) unaware.
   */
  function notWhole(tool: ToolSpec): CallToolResult {
    return toolError(
      `${tool.name}: the API's answer is larger than --max-response-bytes (${config.maxResponseBytes} bytes) and was not read whole; ask for less (a smaller page) or raise the limit`,
    );
  }

  /**
   * A status request of a long-running operation: a GET of `url` as `tool`'s own request when
   * it is on the tool's origin; elsewhere without credentials, static headers or hooks, which
   * are for the API's origin only.
   */
  async function getStatus(tool: ToolSpec, url: string, signal: AbortSignal, call: CallContext): Promise<Exchanged> {
    const target = upstreamBase(tool, config.baseUrl, defaultBase);
    if ('problem' in target) return failure(target.problem);
    const request: OutgoingRequest = { tool: tool.name, method: 'GET', url, headers: { accept: 'application/json' } };
    if (new URL(url).origin !== new URL(target.base).origin) {
      return sendPrepared(tool, async () => ({ request, usedTokenFetch: false, exchanged: false }), call, signal, [hooks.afterResponse]);
    }
    for (const [name, value] of config.staticHeaders) setHeader(request.headers, name, value);
    const prepare = (limit: Cancellation) => authorize(tool, { ...request, headers: { ...request.headers } }, call, limit);
    return sendPrepared(tool, prepare, call, signal, [hooks.afterResponse]);
  }

  async function checkCall(tool: ToolSpec, given: Record<string, unknown>) {
    const checked = await checks.arguments(tool, given);
    return 'problem' in checked ? { problem: `Invalid arguments for ${tool.name}: ${checked.problem}` } : checked;
  }

  /** The request a call of `tool` makes, sent: the upstream's answer, or the tool error that stopped it. */
  async function exchange(tool: ToolSpec, given: Record<string, unknown>, signal: AbortSignal, call: CallContext): Promise<Exchanged> {
    const checked = await checkCall(tool, given);
    if ('problem' in checked) return failure(checked.problem);
    const own = toolHooks(hooks, tool.name);
    const hooked = own?.beforeRequest ? ((await own.beforeRequest(checked.args)) ?? checked.args) : checked.args;
    const args = sending.keyed(tool, hooked);
    const target = upstreamBase(tool, config.baseUrl, defaultBase);
    if ('problem' in target) return failure(target.problem);
    return sendPrepared(tool, (limit) => prepareRequest(tool, args, target.base, call, limit), call, signal, [
      own?.afterResponse,
      hooks.afterResponse,
    ]);
  }

  /** Prepares and sends a request within the call's time limit: the answer, or the tool error that stopped it. */
  async function sendPrepared(
    tool: ToolSpec,
    prepareWithin: (limit: Cancellation) => Promise<Prepared | { failure: CallToolResult }>,
    call: CallContext,
    signal: AbortSignal,
    hooksAfter: (AfterResponse | undefined)[],
  ): Promise<Exchanged> {
    const limit = deadline(signal, config.timeoutMs);
    // The limit itself, not limit.signal: that would make the AbortSignal the limit avoids.
    const attempts = sending.forCall(tool, { signal: limit, endsAt: limit.endsAt });
    try {
      // Built afresh for a retry: a fetched token may have been refreshed in between.
      const prepare = () => prepareWithin(limit);
      const prepared = await prepare();
      if ('failure' in prepared) return prepared;
      const named = requestLabel(prepared.request);
      try {
        return await transmit(prepared, prepare, call, attempts, hooksAfter, named);
      } catch (error) {
        return failure(networkFailure(error, named.label, limit.timedOut(), signal, config.timeoutMs));
      }
    } finally {
      attempts.done();
      limit.done();
    }
  }

  /**
   * Sends the request (retried as retry.ts allows; once more with a fresh token after a 401), lets
   * the afterResponse hooks see the answer, and reads it.
   */
  async function transmit(
    prepared: Prepared,
    prepare: () => Promise<Prepared | { failure: CallToolResult }>,
    call: CallContext,
    attempts: CallAttempts,
    hooksAfter: (AfterResponse | undefined)[],
    named: { label: string; uri: string },
  ): Promise<Exchanged> {
    let sent = await attempts.send(prepared.request, send);
    let response = sent.response;
    if (response.status === 401 && (prepared.usedTokenFetch || prepared.exchanged)) {
      // RFC 6750 §3.1: the token may have been revoked or expired early; one fresh try.
      response.discard();
      if (prepared.usedTokenFetch) auth.invalidate();
      if (prepared.exchanged && call.caller !== undefined) await (await onBehalf?.())?.forget(call.caller);
      const again = await prepare();
      if ('failure' in again) return again;
      prepared = again;
      sent = await attempts.send(prepared.request, send);
      response = sent.response;
    }
    if (hooksAfter.some((hook) => hook !== undefined)) response = await afterResponse(response, prepared.request, hooksAfter);
    const read = await readAnswer(response, named, config.maxResponseBytes);
    log.debug(`${named.label} → ${response.status}`);
    const answer = tracks ? (following.value ?? (await following.get())).tracked(read, response, prepared.request, credentialQuery) : read;
    return sent.note === undefined ? { answer } : { answer, note: sent.note };
  }

  /** The request built and authorized; or the tool error that stops it. */
  async function prepareRequest(
    tool: ToolSpec,
    args: Record<string, unknown>,
    base: string,
    call: CallContext,
    signal: Cancellation,
  ): Promise<Prepared | { failure: CallToolResult }> {
    const built = buildOutgoing(tool, args, base, config.staticHeaders);
    if ('problem' in built) return failure(`Invalid arguments for ${tool.name}: ${built.problem}`);
    return authorize(tool, built.request, call, signal);
  }

  /** The request authenticated (for its caller, with OAuth) and passed through the global beforeRequest hook; or the tool error that stops it. */
  async function authorize(
    tool: ToolSpec,
    request: OutgoingRequest,
    call: CallContext,
    signal: Cancellation,
  ): Promise<Prepared | { failure: CallToolResult }> {
    // Behind the OAuth gate every call has its caller; without one, the server's own credentials must not stand in.
    if (onBehalf !== undefined && call.caller === undefined) return failure(`${tool.name}: no caller token to act on behalf of`);
    const delegated =
      call.caller !== undefined
        ? await (await onBehalf?.())?.prepare(tool, call.caller, call.credentials, abortSignalOf(signal))
        : undefined;
    if (delegated !== undefined && 'problem' in delegated) return failure(delegated.problem, delegated.link);
    if (delegated?.exchanged !== undefined) call.secrets.push(delegated.exchanged);
    const credentials = delegated?.credentials ?? call.credentials;
    const authenticated = await authenticate(auth, tool, request, credentials, signal, delegated?.preferred);
    if ('problem' in authenticated) return failure(authenticated.problem);
    // Over the tool's own arguments and schemes: the caller's identity is not the model's to choose.
    for (const [name, value] of delegated?.headers ?? []) setHeader(request.headers, name, value);
    const sent = hooks.beforeRequest ? ((await hooks.beforeRequest(request)) ?? request) : request;
    return { request: sent, usedTokenFetch: authenticated.usedTokenFetch, exchanged: delegated?.exchanged !== undefined };
  }
}

/** The caller's choices for following an operation: progress, and a wait other than --operation-wait. */
function followOptions(options: { progress?: Progress; operationWaitMs?: number }): { progress?: Progress; waitMs?: number } {
  return {
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.operationWaitMs !== undefined ? { waitMs: options.operationWaitMs } : {}),
  };
}

/** What a call's answer may cost the model, and how the tool pages (for the note on what was cut). */
function answerBudget(tool: ToolSpec, args: Record<string, unknown>, maxBytes: number): AnswerBudget {
  return { maxBytes, params: tool.http.params, args, ...(tool.pagination ? { pagination: tool.pagination } : {}) };
}

/**
 * What calls send on their caller's behalf, with --token-exchange, --oauth-api-client-id or --upstream-identity-header
 * (on-behalf.ts, loaded on the first call that needs it); undefined otherwise, at no cost.
 */
function onBehalfOf(table: ToolTable, config: ServerConfig, log: Logger): (() => Promise<OnBehalf>) | undefined {
  const oauth = config.oauth;
  if (oauth === undefined || (oauth.tokenExchange === undefined && oauth.identityHeader === undefined && oauth.signIn === undefined)) {
    return undefined;
  }
  let loaded: Promise<OnBehalf> | undefined;
  return () =>
    (loaded ??= import('../oauth/upstream-accounts/on-behalf.js').then((m) => m.createOnBehalf(table, oauth, config.timeoutMs, log)));
}

/**
 * Sends a request to the upstream with its redirects followed: credentials (the schemes' places,
 * the static headers and the caller's identity header) stay on the API's origin, and the servers of a spec that came from a
 * URL reach public addresses only (--base-url is the user's choice, and free).
 */
function upstreamSender(table: ToolTable, config: ServerConfig) {
  const places = credentialPlaces(table);
  for (const [name] of config.staticHeaders) places.headers.add(name.toLowerCase());
  // The caller's identity, like a static header, is for the API's origin only.
  if (config.oauth?.identityHeader !== undefined) places.headers.add(config.oauth.identityHeader.toLowerCase());
  const publicServers = config.baseUrl === undefined ? table.publicServers : undefined;
  return (request: OutgoingRequest, signal: Cancellation) => sendFollowingRedirects(request, signal, places, publicServers);
}
