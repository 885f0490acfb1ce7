// A call that cannot go until its caller links an API account (oauth-link.ts): the tool error
// carries, out of band (link-mark.ts), where to link and how to tell when it is done, so that
// the tools/call handler can ask the client to open the URL (URL-mode elicitation) instead of
// only saying so. Loaded by that handler when a result carries the mark.

import {
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { LinkRequired } from '../../call/answer/link-mark.js';

/** Longest a call waits for the user to finish linking, once they said they would. */
const LINK_WAIT_MS = 180_000;
const LINK_POLL_MS = 500;

/**
 * What a tools/call answers when its caller must link an API account first: with a client that
 * takes URL-mode elicitation, the question (input-required for 2026-07-28 clients, a
 * server-to-client elicitation for 2025 ones, both through the SDK); once the user accepted,
 * the call waits for the link and goes again; otherwise the tool error, which names the URL.
 */
export async function answerLinkRequired(
  link: LinkRequired,
  toolError: CallToolResult,
  ctx: ServerContext,
  clientCapabilities: ClientCapabilities | undefined,
  callAgain: () => Promise<CallToolResult>,
): Promise<CallToolResult | InputRequiredResult> {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'link');
  if (answer.kind === 'elicit') {
    if (answer.action !== 'accept' || !(await linkedWithin(link, ctx.mcpReq.signal))) return toolError;
    return callAgain();
  }
  if (clientCapabilities?.elicitation?.url === undefined) return toolError;
  return inputRequired({
    inputRequests: { link: inputRequired.elicitUrl({ message: link.message, url: link.url }) },
  });
}

async function linkedWithin(link: LinkRequired, signal: AbortSignal): Promise<boolean> {
  const until = Date.now() + LINK_WAIT_MS;
  while (!signal.aborted && Date.now() < until) {
    if (await link.linked()) return true;
    await new Promise((resolve) => setTimeout(resolve, LINK_POLL_MS));
  }
  return false;
}
