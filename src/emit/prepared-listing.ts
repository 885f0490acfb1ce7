// tools-listed.json: the default tools/list, prepared at generation so that a server started
// without options serves it as it is (contract/prepared-listing.ts says when). It is the listing
// the runtime makes the general way (runtime/mcp/listing.ts, table-tools.ts) for those settings:
// the same lister, meta-tools and task marks.

import zlib from 'node:zlib';
import { createLister, type ListedTool, type Lister } from '../contract/profiles.js';
import { codeTools, metaTools, operationTools } from '../contract/meta-tools.js';
import { callableTable, runsAsTask, type ToolSpec, type ToolTable } from '../contract/table.js';
import { LIST_PAGE_BYTES, pageStarts } from '../contract/limits.js';
import { PREPARED_PROFILE, tableFingerprint, type PreparedListing } from '../contract/prepared-listing.js';

/**
 * tools-listed.json's text for the table written as `tableBytes` (tools.json), or none in toolsets
 * mode. `lister`: the portable lister of the table's callable tools that the model already listed
 * them with (model/serving.ts), whose work is reused.
 */
export function preparedListingFile(whole: ToolTable, tableBytes: Uint8Array, tasks: boolean, lister?: Lister): string | undefined {
  // zlib.crc32 is Node 20.15+: a generation on an older Node prepares nothing
  const { crc32 } = zlib as { crc32?: (data: Uint8Array) => number };
  if (crc32 === undefined) return undefined;
  const listing = prepareListing(whole, tableFingerprint(tableBytes, crc32), tasks, lister);
  return listing && `${JSON.stringify(listing)}\n`;
}

/**
 * The listing a server started without options shows, for the table whose tools.json has the
 * fingerprint `table`: none in toolsets mode, whose sessions list what they enable. `tasks`: the
 * table offers tasks (summary.ts), so tools that may run as one say so.
 */
function prepareListing(whole: ToolTable, table: string, tasks: boolean, given?: Lister): PreparedListing | undefined {
  const mode = whole.serve?.mode ?? 'direct';
  if (mode === 'toolsets') return undefined;
  const callable = callableTable(whole);
  // `full` is never asked of this lister: the profile is a compact one
  const lister = given ?? createLister(callable, PREPARED_PROFILE, { input: (t) => t.inputSchema, output: (t) => t.output?.schema });
  const meta = mode === 'direct' ? [] : mode === 'code' ? codeTools(callable) : metaTools(callable);
  const pinned = new Set(callable.serve?.pinned ?? []);
  const operations = mode === 'direct' ? callable.tools : callable.tools.filter((t) => pinned.has(t.name));
  const listed = (t: ToolSpec): ListedTool =>
    tasks && runsAsTask(t) ? { ...lister.tool(t), execution: { taskSupport: 'optional' } } : lister.tool(t);
  const tools = [...[...meta, ...operationTools(callable)].map(lister.adapt), ...operations.map(listed)];
  return {
    format: 1,
    table,
    mode,
    profile: PREPARED_PROFILE,
    starts: pageStarts(tools, LIST_PAGE_BYTES),
    tools,
  };
}
