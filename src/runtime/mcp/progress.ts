// A call's progress, told to a client that asked for it (a progressToken in the request's
// _meta, MCP's notifications/progress): while an operation is followed (long-running.ts) or a
// streamed answer is read (send/streamed-answer.ts).

import type { ServerContext } from '@modelcontextprotocol/server';

/** `progress` grows with each report; `message` says where the call is. */
export type Progress = (progress: number, message: string) => void;

/** Sends notifications/progress for the call when its client asked for them (a progressToken). */
export function progressOf(ctx: ServerContext): Progress | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, message) =>
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => undefined);
}

/**
 * `tell`, at most once every `everyMs`: a report within that time waits for its end, replaced by
 * any later one, so the latest is always told in the end, unless `stop` comes first.
 */
export function throttled(tell: Progress, everyMs: number): { progress: Progress; stop: () => void } {
  let toldAt = -Infinity;
  let latest: [number, string] | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const flush = () => {
    stop();
    if (latest === undefined) return;
    const [progress, message] = latest;
    latest = undefined;
    toldAt = Date.now();
    tell(progress, message);
  };
  const progress: Progress = (...report) => {
    latest = report;
    const wait = toldAt + everyMs - Date.now();
    if (wait <= 0) flush();
    else if (timer === undefined) timer = setTimeout(flush, wait);
  };
  return {
    progress,
    stop: () => {
      latest = undefined;
      stop();
    },
  };
}
