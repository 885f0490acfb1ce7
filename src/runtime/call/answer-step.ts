// A call's last step: the upstream's answer (send-step.ts) as what goes back, a tool result
// within --max-answer-bytes (shape.ts, response.ts, answer-budget.ts), a long-running operation
// followed to its end (long-running.ts), or resources/read's answer or refusal; every failure
// cleared of the call's secrets (redact.ts).

import type { CallToolResult } from '@modelcontextprotocol/server';
import { keepLink } from './answer/link-mark.js';
import { toolError } from '../mcp/output.js';
import { toToolResult, type UpstreamAnswer, type UpstreamRefusal } from './answer/response.js';
import { refusal, structureFor } from './answer/shape.js';
import { answerBudget } from './answer/answer-budget.js';
import { withNote } from './send/retry.js';
import type { Progress } from '../mcp/progress.js';
import type { ToolSpec } from '../../contract/table.js';
import { isTextual, mediaKind } from '../../contract/media.js';
import type { Exchanged } from './send-step.js';
import type { CallContext, CallServices } from './services.js';

/** The caller's choices for a call's answer (the Executor's `call` options, executor.ts). */
export interface AnswerOptions {
  advertised?: boolean;
  progress?: Progress;
  operationWaitMs?: number;
  whole?: boolean;
  /** A task's lifetime (tasks.ts): a streamed answer is read for up to this rather than --timeout. */
  lifetimeMs?: number;
}

/** resources/read's answer: a successful answer, the upstream's refusal (status ≥ 400), or the tool error that stopped the request. */
export function readOutcome(
  services: CallServices,
  outcome: Exchanged,
  call: CallContext,
): { answer: UpstreamAnswer } | { refused: UpstreamRefusal } | { failure: CallToolResult } {
  const { redactor } = services;
  if ('failure' in outcome) return { failure: keepLink(outcome.failure, redactor.result(outcome.failure, call.credentials, call.secrets)) };
  if (outcome.answer.status < 400)
    return { answer: clearedAnswer(outcome.answer, (text) => redactor.text(text, call.credentials, call.secrets)) };
  return { refused: refusal(outcome.answer, (text) => redactor.text(text, call.credentials, call.secrets)) };
}

/** A good answer a read returns as text (resources.ts's contentsOf), cleared of the secrets an upstream may quote; bytes as they are. */
function clearedAnswer(answer: UpstreamAnswer, clear: (text: string) => string): UpstreamAnswer {
  if (answer.contentType !== '' && !isTextual(mediaKind(answer.contentType))) return answer;
  const text = new TextDecoder().decode(answer.bytes);
  const cleared = clear(text);
  return cleared === text ? answer : { ...answer, bytes: new TextEncoder().encode(cleared) };
}

/** A tools/call's result: the answer shaped, or its operation followed; a failure redacted, with the retries' note. */
export async function callOutcome(
  services: CallServices,
  tool: ToolSpec,
  outcome: Exchanged,
  args: Record<string, unknown>,
  signal: AbortSignal,
  call: CallContext,
  options: AnswerOptions,
): Promise<CallToolResult> {
  if ('failure' in outcome) return keepLink(outcome.failure, redacted(services, outcome.failure, call));
  const advertised = options.advertised !== false;
  if (options.whole && outcome.answer.status < 400 && outcome.answer.truncated) return notWhole(services, tool);
  const result = tool.longRunning
    ? await (await services.following.get()).follow(tool, outcome.answer, args, { signal, call, advertised, ...followOptions(options) })
    : shape(services, tool, outcome.answer, args, advertised, options.whole);
  // a good answer too: an upstream may quote the key it was sent (README: secrets are never returned)
  return keepLink(result, redacted(services, result.isError ? withNote(result, outcome.note) : result, call));
}

/** A result cleared of the server's credentials and the call's own. */
export function redacted(services: CallServices, result: CallToolResult, call: CallContext): CallToolResult {
  return services.redactor.result(result, call.credentials, call.secrets);
}

/** What an exception inside a call says: the tool's failure (isError), never the connection's. */
export function thrown(name: string, error: unknown): CallToolResult {
  return toolError(`${name} failed: ${(error as Error)?.message ?? String(error)}`);
}

/** A good or failed upstream answer as the tool's result; `whole`: for a program, not held to --max-answer-bytes. */
export function shape(
  services: CallServices,
  tool: ToolSpec,
  answer: UpstreamAnswer,
  args: Record<string, unknown>,
  advertised: boolean,
  whole = false,
): CallToolResult {
  const structure = advertised ? services.advertisedStructure(tool) : structureFor(tool, false, services.checks.output);
  return toToolResult(answer, structure, whole ? undefined : answerBudget(tool, args, services.config.maxAnswerBytes), tool.name);
}

/**
 * A program reads an answer whole: one cut at the upstream read limit is an error, since the
 * program would otherwise parse the start of it (or get a string) unaware.
 */
function notWhole(services: CallServices, tool: ToolSpec): CallToolResult {
  return toolError(
    `${tool.name}: the API's answer is larger than --max-response-bytes (${services.config.maxResponseBytes} bytes) and was not read whole; ask for less (a smaller page) or raise the limit`,
  );
}

/** The caller's choices for following an operation: progress, and a wait other than --operation-wait. */
function followOptions(options: { progress?: Progress; operationWaitMs?: number }): { progress?: Progress; waitMs?: number } {
  return {
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.operationWaitMs !== undefined ? { waitMs: options.operationWaitMs } : {}),
  };
}
