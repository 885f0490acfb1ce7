// A call's second step: its request prepared (prepare-step.ts) and sent within the call's time
// limit, tried as retry.ts allows (after a 401, once more with a fresh token) and paced
// (pacing.ts), each try observed; the answer passed through the afterResponse hooks, read up to
// --max-response-bytes (exchange.ts), and kept with what following a long-running operation
// needs of it.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { deadline, networkFailure, readAnswer, requestLabel } from './send/exchange.js';
import type { CallLimit } from './send/call-limit.js';
import { readStreamedAnswer, streamFormat, type StreamCall } from './send/streamed-answer.js';
import { afterResponse, type AfterResponse } from './answer/response-hooks.js';
import type { Sent } from './send/retry.js';
import type { TrackedAnswer } from '../long-running/long-running.js';
import type { ToolSpec } from '../../contract/table.js';
import { toolHooks, type Hooks } from '../hooks-api.js';
import { refreshFor, type Ready } from './prepare-step.js';
import { failure, type CallContext, type CallServices } from './services.js';

/** The upstream's answer (`note`: what the retries have to say about an error answer, retry.ts), or the tool error that stopped the request. */
export type Exchanged = { answer: TrackedAnswer; note?: string } | { failure: CallToolResult };

/** Prepares and sends a request within the call's time limit: the answer, or the tool error that stopped it. */
export async function sendPrepared(
  services: CallServices,
  tool: ToolSpec,
  ready: Ready,
  call: CallContext,
  signal: AbortSignal,
): Promise<Exchanged> {
  const { config, sending } = services;
  const limit = deadline(signal, timeLimitOf(tool, call, config.timeoutMs));
  // The limit itself, not limit.signal: that would make the AbortSignal the limit avoids.
  const attempts = sending.forCall(tool, { signal: limit, endsAt: limit.endsAt });
  try {
    // Built afresh after a 401: a fetched token may have been refreshed in between.
    const prepare = () => ready.prepare(limit);
    const prepared = await prepare();
    if ('failure' in prepared) return prepared;
    const named = requestLabel(prepared.request);
    try {
      const sent = await attempts.send(prepared.request, refreshFor(services, prepared, prepare, call));
      return 'failure' in sent ? sent : await received(services, sent, ready.hooksAfter, named, { tool, limit, signal, call });
    } catch (error) {
      const apiVariable = tool.api === undefined ? undefined : services.table.apis?.[tool.api]?.baseUrlEnv;
      return failure(networkFailure(error, named.label, limit.timedOut(), signal, config.timeoutMs, apiVariable));
    }
  } finally {
    attempts.done();
    limit.done();
  }
}

/**
 * How long the call may take: --timeout, or for a streaming call made as a task the task's
 * lifetime, as long as it is longer: the stream's own limits (--stream-time-ms, --stream-max-items)
 * then end it, and a task may outlast the request that made it.
 */
function timeLimitOf(tool: ToolSpec, call: CallContext, timeoutMs: number): number {
  return tool.sequence !== undefined && call.lifetimeMs !== undefined ? Math.max(timeoutMs, call.lifetimeMs) : timeoutMs;
}

/** What reading an answer needs of its call: a streamed one is read within the call's limit, telling its progress. */
interface Receiving {
  tool: ToolSpec;
  limit: CallLimit;
  signal: AbortSignal;
  call: CallContext;
}

/** What a streamed answer's reading tells and checks: the client's progress, the items against the tool's outputSchema, and for a program all of them. */
function streamChecks(services: CallServices, receiving: Receiving): Pick<StreamCall, 'progress' | 'check' | 'whole' | 'endsAt'> {
  const endsAt = streamEndHook(services.hooks, receiving.tool.name);
  return {
    ...(endsAt ? { endsAt } : {}),
    ...(receiving.call.whole ? { whole: true } : {}),
    ...(receiving.call.progress ? { progress: receiving.call.progress } : {}),
    ...(receiving.tool.output ? { check: services.checks.output(receiving.tool) } : {}),
  };
}

/** The user's endsStream hooks for a tool, the tool's own first, as one test; undefined without any. */
function streamEndHook(hooks: Hooks, name: string): ((item: unknown) => boolean) | undefined {
  const own = toolHooks(hooks, name)?.endsStream;
  const all = hooks.endsStream;
  if (own === undefined && all === undefined) return undefined;
  return (item) => own?.(item) === true || all?.(item, name) === true;
}

/** The answer the tries ended with, seen by the afterResponse hooks, read, and kept for following its operation. */
async function received(
  services: CallServices,
  sent: Sent,
  hooksAfter: (AfterResponse | undefined)[],
  named: { label: string; uri: string },
  receiving: Receiving,
): Promise<Exchanged> {
  const { config, following } = services;
  let response = sent.response;
  if (hooksAfter.some((hook) => hook !== undefined)) response = await afterResponse(response, sent.request, hooksAfter);
  const format = streamFormat(receiving.tool, response);
  const read =
    format !== undefined
      ? await readStreamedAnswer(response, named, { ...receiving, format, config, ...streamChecks(services, receiving) })
      : await readAnswer(response, named, config.maxResponseBytes);
  services.log.debug(`${named.label} → ${response.status}`);
  const answer = services.tracks
    ? (following.value ?? (await following.get())).tracked(read, response, sent.request, services.credentialQuery)
    : read;
  return sent.note === undefined ? { answer } : { answer, note: sent.note };
}
