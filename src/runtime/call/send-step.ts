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
  const limit = deadline(signal, config.timeoutMs);
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

/** What reading an answer needs of its call: a streamed one is read within the call's limit, telling its progress. */
interface Receiving {
  tool: ToolSpec;
  limit: CallLimit;
  signal: AbortSignal;
  call: CallContext;
}

/** What a streamed answer's reading tells and checks: the client's progress, and the items against the tool's outputSchema. */
function streamChecks(services: CallServices, receiving: Receiving): Pick<StreamCall, 'progress' | 'check'> {
  return {
    ...(receiving.call.progress ? { progress: receiving.call.progress } : {}),
    ...(receiving.tool.output ? { check: services.checks.output(receiving.tool) } : {}),
  };
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
