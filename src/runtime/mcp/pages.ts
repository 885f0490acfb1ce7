// Pages of a long listing, shared by tools/list and resources/list: one rule for where a page
// ends (pageStarts, in the contract: a listing prepared at generation comes with its pages)
// and what its cursor says.

import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { pageStarts } from '../../contract/limits.js';

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
