// Pages of a long listing, shared by tools/list and resources/list: one rule for where a page
// ends and what its cursor says.

import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * Above this, tools/list is paginated (MCP `cursor`/`nextCursor`): one message of a whole
 * large API listed in full (`--tools direct --client-profile full` on Microsoft Graph: 13.8 MiB)
 * is more than clients read at once (the SDK's stdio client stops at 10 MiB). Below it, as
 * almost always, one page, since some clients never ask for a second.
 */
export const LIST_PAGE_BYTES = 8 * 1024 * 1024;

/** Where each page of the listing starts, so that no page is over `maxBytes` (a tool alone may be). */
export function pageStarts(tools: readonly unknown[], maxBytes = LIST_PAGE_BYTES): number[] {
  const starts = [0];
  let bytes = 0;
  tools.forEach((tool, i) => {
    const size = Buffer.byteLength(JSON.stringify(tool)) + 1;
    if (bytes + size > maxBytes && i > (starts.at(-1) as number)) {
      starts.push(i);
      bytes = 0;
    }
    bytes += size;
  });
  return starts;
}

/** One page of a listing; the cursor is opaque to clients (`p<start>`, base64url). */
export function page<T>(tools: T[], cursor: string | undefined, starts = pageStarts(tools)): { tools: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const decoded = /^p(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
    start = decoded ? Number(decoded[1]) : -1;
    if (!starts.includes(start))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: list the tools again from the start');
  }
  const next = starts[starts.indexOf(start) + 1];
  if (start === 0 && next === undefined) return { tools };
  return { tools: tools.slice(start, next), ...(next !== undefined ? { nextCursor: Buffer.from(`p${next}`).toString('base64url') } : {}) };
}
