// A streaming tool's good answer (ToolSpec.sequence) read item by item rather than whole: the
// items kept within the answer budget as the JSON answer the tool's outputSchema describes,
// progress told while they come, and the download stopped at a limit or at the client's cancel.

import { sequenceFormat, type SequenceFormat } from '../../../contract/media.js';
import { DEFAULT_STREAM_ENDS, type ToolSpec } from '../../../contract/table.js';
import type { ServerConfig } from '../../start/config.js';
import type { Progress } from '../../mcp/progress.js';
import type { UpstreamAnswer } from '../answer/response.js';
import { conformed, readStreamed, shortText, type StreamLimits } from '../answer/stream-reader.js';
import type { OutputCheck } from '../../mcp/output.js';
import type { CallLimit } from './call-limit.js';
import type { UpstreamResponse } from './upstream-response.js';

/** Room kept in the answer budget for the result's own fields (omitted, ended, the note). */
const ENVELOPE_BYTES = 512;
/** Progress is told for the first item, then at most this often: a stream may bring thousands a second. */
const PROGRESS_EVERY_MS = 200;

/** How the answer's items are framed, when the tool streams and the answer is a good one of a sequential type. */
export function streamFormat(tool: ToolSpec, response: UpstreamResponse): SequenceFormat | undefined {
  if (tool.sequence === undefined || response.status < 200 || response.status >= 300) return undefined;
  return sequenceFormat(response.header('content-type') ?? tool.sequence.mediaType);
}

/** What reading one streamed answer needs of its call. */
export interface StreamCall {
  tool: ToolSpec;
  format: SequenceFormat;
  config: ServerConfig;
  limit: CallLimit;
  /** The client's cancellation. */
  signal: AbortSignal;
  progress?: Progress;
  /** The tool's outputSchema check, when it has one: items off it are moved to `malformed`. */
  check?: OutputCheck;
  /** A code-mode program's call: items kept up to --max-response-bytes, not the answer budget. */
  whole?: boolean;
  /** The user's hook that says an item ends the stream (hooks-api.ts `endsStream`). */
  endsAt?: (item: unknown) => boolean;
}

/** The streamed answer as a JSON answer: `{ items, omitted, malformed, ended, note }`. */
export async function readStreamedAnswer(
  response: UpstreamResponse,
  named: { label: string; uri: string },
  call: StreamCall,
): Promise<UpstreamAnswer> {
  const { config, limit, signal } = call;
  const read = await readStreamed(response.body, {
    format: call.format,
    limits: limitsOf(config, call.whole === true, call.tool.sequence?.ends ?? DEFAULT_STREAM_ENDS),
    ...(call.endsAt ? { endsAt: call.endsAt } : {}),
    timeMs: config.stream.timeMs,
    ...(call.progress ? { onItem: progressTeller(call.tool.name, call.progress) } : {}),
    abandon: () => response.discard(),
    stoppedBy: () => (signal.aborted ? 'cancelled' : limit.timedOut() ? 'timeout' : undefined),
  });
  const result = call.check ? conformed(read, call.check) : read;
  return {
    status: response.status,
    statusText: response.statusText,
    contentType: 'application/json',
    bytes: new TextEncoder().encode(JSON.stringify(result)),
    truncated: false,
    label: named.label,
    uri: named.uri,
  };
}

/** The settings as the reader's bounds: without an answer budget (or for a program), what is kept is bounded by --max-response-bytes. */
function limitsOf(config: ServerConfig, whole: boolean, ends: StreamLimits['ends']): StreamLimits {
  const budget = config.maxAnswerBytes > 0 && !whole ? Math.max(0, config.maxAnswerBytes - ENVELOPE_BYTES) : config.maxResponseBytes;
  return {
    maxItems: config.stream.maxItems,
    keepBytes: Math.min(budget, config.maxResponseBytes),
    maxRecordBytes: config.maxResponseBytes,
    ends,
  };
}

/** Tells the items read so far, and the latest one's short text, for the first item and then at most every PROGRESS_EVERY_MS. */
function progressTeller(toolName: string, progress: Progress): (seen: number, item: unknown) => void {
  let toldAt = 0;
  return (seen, item) => {
    const now = Date.now();
    if (seen > 1 && now - toldAt < PROGRESS_EVERY_MS) return;
    toldAt = now;
    const text = shortText(item);
    const latest = text !== undefined ? `, the latest: ${JSON.stringify(text)}` : '';
    progress(seen, `${toolName}: ${seen} ${seen === 1 ? 'item' : 'items'} so far${latest}`);
  };
}
