// MCP wiring on the SDK's low-level Server: tools/list answers from the prebuilt table (in the
// mode and client profile chosen at start, listing.ts), and tools/call goes to a meta-tool by
// the dispatch table of meta-dispatch.ts or to the executor (calling.ts). Per-connection cost
// is a few small objects, whatever the size of the API (McpServer.registerTool per tool would
// cost ~8 µs × tools per instance). The instances themselves are made in server-instances.ts,
// without the table.

import { serveResources } from './resources.js';
import type { Executor } from '../call/executor.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { ToolTable } from '../../contract/table.js';
import { summarize, type Offers } from '../../contract/summary.js';
import { serverFactory, type Attach, type ServerFactory } from './server-instances.js';
import { Lazy } from '../start/lazy.js';
import { instanceTools, tableTools, type CredentialReader, type ServerOptions, type TableTools } from './table-tools.js';
import { Listings, serveListing } from './listing.js';
import { serveCalling } from './calling.js';

export type { Serving, ServerFactory } from './server-instances.js';
export type { CredentialReader, ServerOptions } from './table-tools.js';
export { toolsListedAtStart } from './listing.js';

/** What a call brings without --auth-from-headers: one empty map for all, as nothing writes to it. */
const NO_CREDENTIALS: RequestCredentials = new Map();

export function credentialReader(mapping: { header: string; scheme: string }[]): CredentialReader {
  if (mapping.length === 0) return () => NO_CREDENTIALS;
  return (headers) => {
    const found = new Map<string, string>();
    for (const { header, scheme } of mapping) {
      const value = headers?.get(header);
      if (value) found.set(scheme, value);
    }
    return found;
  };
}

/** Server instances for a table at hand (tests; a generated server loads its table on first need, main.ts). */
export function createServerFactory(
  whole: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader = credentialReader([]),
  options: ServerOptions = { mode: 'direct', profile: 'portable', initialToolsets: [] },
): ServerFactory {
  const summary = summarize(whole);
  return serverFactory(
    summary,
    options.mode,
    new Lazy(async () => ({ attach: await attachHandlers(whole, executor, readCredentials, options, summary.offers) })),
  );
}

/**
 * The handlers of every instance, and what they share, made once per table. `offers`: what the
 * instances advertise, decided on the whole table (summary.ts), which `whole` may be a part of.
 * The modules of the features the table uses are loaded here, and only those (table-tools.ts).
 */
export async function attachHandlers(
  whole: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader,
  options: ServerOptions,
  offers: Offers,
): Promise<Attach> {
  const tools = await tableTools(whole, executor, readCredentials, options, offers);
  const listings = new Listings(tools);
  return (server, serving) => {
    const instance = instanceTools(tools, server, serving);
    serveResources(
      server,
      whole,
      offers,
      executor,
      options.hooks ?? {},
      readCredentials,
      tools.visible,
      tools.confirmations?.needed,
      tools.apps,
    );
    serveTasks(tools, server);
    serveListing(tools, instance, listings);
    serveCalling(tools, instance);
  };
}

/** tasks/get, tasks/result, tasks/list and tasks/cancel, when the table offers tasks: each caller sees its own. */
function serveTasks(tools: TableTools, server: Parameters<Attach>[0]): void {
  const { tasks, readCredentials } = tools;
  if (tasks) tasks.serve(server, tasks.store, (ctx) => tasks.ownerOf(ctx.http?.authInfo, readCredentials(ctx.http?.req?.headers)));
}
