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
