// A stdio server's first tools/list, answered from the listing prepared at generation before the
// tool table is parsed (GitHub's 3.3 MB take ~60 ms): the listing needs only the table's bytes,
// to know it was made from them. It is answered so only where the general path would send the
// same bytes: settings that list the prepared file as it is (serving.ts) and a client that gets
// no Apps views. The table is parsed right after (server-instances.ts), while the client reads
// the listing and decides what to call.

import type { JSONRPCRequest, Server, Tool } from '@modelcontextprotocol/server';
import type { AppsSetting } from '../../contract/settings.js';
import type { PreparedListing } from '../../contract/prepared-listing.js';
import { getsViews } from './apps-gate.js';
import { page } from './pages.js';

/** Sets an instance's tools/list handler to the prepared listing; false when `request` may not be answered from it. */
export type EarlyListing = (server: Server, request: JSONRPCRequest) => Promise<boolean>;

export async function answerEarly(
  server: Server,
  request: JSONRPCRequest,
  prepared: () => Promise<PreparedListing | undefined>,
  apps: AppsSetting,
): Promise<boolean> {
  if (getsViews(apps, server, request.params?._meta)) return false;
  const listing = await prepared();
  if (listing === undefined) return false;
  const tools = listing.tools as Tool[];
  server.setRequestHandler('tools/list', (request) => page(tools, request.params?.cursor, listing.starts));
  return true;
}
