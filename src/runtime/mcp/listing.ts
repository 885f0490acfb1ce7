// tools/list: the listing a caller sees, in pages. The fixed listing (direct and dynamic mode,
// and toolsets mode without a session) is made once; under a scope policy, once per scope set;
// a toolsets session's, at each request, as its enabled toolsets change it.

import type { AuthInfo, ListToolsRequest, Tool } from '@modelcontextprotocol/server';
import { codeTools, metaTools, operationTools } from '../../contract/meta-tools.js';
import type { ToolTable } from '../../contract/table.js';
import type { ToolMode } from '../start/config.js';
import { LIST_PAGE_BYTES, pageStarts } from '../../contract/limits.js';
import { page } from './pages.js';
import { startsListed, type InstanceTools, type TableTools } from './table-tools.js';

/** Listings by the scope set that sees them: a few sets (read, read and write) serve every caller. */
const MAX_SCOPE_LISTINGS = 64;

/** A listing with where each of its pages starts. */
interface Listing {
  tools: Tool[];
  starts: number[];
}

/** The listings every instance of a table shares, each made on first need. */
export class Listings {
  readonly #tools: TableTools;
  #fixed: Listing | undefined;
  readonly #scoped = new Map<string, Listing>();

  constructor(tools: TableTools) {
    this.#tools = tools;
  }

  /** The listing nothing changes: direct and dynamic mode, and toolsets mode without a session. */
  fixed(maxBytes: number): Listing {
    if (this.#fixed) return this.#fixed;
    const prepared = maxBytes === LIST_PAGE_BYTES ? this.#tools.options.prepared?.() : undefined;
    if (prepared) return (this.#fixed = { tools: prepared.tools as Tool[], starts: prepared.starts });
    const { dynamicTools, table, listedFromStart, listed } = this.#tools;
    const tools = [...dynamicTools, ...table.tools.filter(listedFromStart).map(listed)];
    return (this.#fixed = { tools, starts: pageStarts(tools, maxBytes) });
  }

  /** The fixed listing as a caller with these scopes sees it, made once per scope set. */
  scoped(auth: AuthInfo, maxBytes: number): Listing {
    const { options, dynamicTools, table, listedFromStart, listed, visible } = this.#tools;
    // Keyed by the scopes that matter here, so that openid, profile and the like add no listings.
    const key = (options.access?.supported ?? []).filter((s) => auth.scopes.includes(s)).join(' ');
    const made = this.#scoped.get(key);
    if (made !== undefined) return made;
    const tools = [...dynamicTools, ...table.tools.filter((t) => listedFromStart(t) && visible(t, auth)).map(listed)];
    const listing = { tools, starts: pageStarts(tools, maxBytes) };
    if (this.#scoped.size < MAX_SCOPE_LISTINGS) this.#scoped.set(key, listing);
    return listing;
  }

  /** A toolsets session's listing: its meta-tools, then the tools of the toolsets it enabled that the caller may see. */
  onDemand(instance: InstanceTools, auth: AuthInfo | undefined, maxBytes: number): Listing {
    const { toolsetTools = [], statusTools, table, listed, visible } = this.#tools;
    const tools = [...toolsetTools, ...statusTools, ...table.tools.filter((t) => instance.served(t) && visible(t, auth)).map(listed)];
    return { tools, starts: pageStarts(tools, maxBytes) };
  }
}

/** Answers tools/list on one instance. */
export function serveListing(tools: TableTools, instance: InstanceTools, listings: Listings): void {
  instance.server.setRequestHandler('tools/list', async (request: ListToolsRequest, ctx) => {
    // The fixed listing serves every caller alike unless scopes decide what each sees.
    const auth = tools.options.access ? ctx.http?.authInfo : undefined;
    const maxBytes = tools.options.listPageBytes ?? LIST_PAGE_BYTES;
    const { tools: listed, starts } = instance.onDemand
      ? listings.onDemand(instance, auth, maxBytes)
      : auth !== undefined
        ? listings.scoped(auth, maxBytes)
        : listings.fixed(maxBytes);
    const answer = page(listed, request.params?.cursor, starts);
    const views = await tools.apps.viewsFor(instance.server, ctx);
    return views ? { ...answer, tools: views.withViews(answer.tools) } : answer;
  });
}

/** The longest tools/list before any toolset is enabled, in tools: what the start-up warning counts. */
export function toolsListedAtStart(table: ToolTable, mode: ToolMode, initialToolsets: string[]): number {
  const meta = (mode === 'direct' ? 0 : mode === 'code' ? codeTools(table).length : metaTools(table).length) + operationTools(table).length;
  return meta + table.tools.filter(startsListed(table, mode, initialToolsets)).length;
}
