// The tool table's summary: what a server needs before it serves anything from the table (the
// checks of its settings, the answer to initialize). mcp-gen writes it as tools-summary.json
// beside tools.json, so that a server answers initialize without parsing tools.json (3.4 MB for
// GitHub), which it reads on the first request that needs a tool, a resource or a prompt.

import { runsAsTask, type ToolTable } from './table.js';
import type { InstallTarget } from './installs.js';
import { toolsetSizes } from './toolsets.js';

export interface TableSummary {
  /** Format version, as the table's. */
  format: 1;
  /** Server identity reported to MCP clients. */
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** The table's `serve.mode`: what tools/list shows unless the server is started with --tools. */
  mode?: NonNullable<ToolTable['serve']>['mode'];
  /** The table's security schemes: the credentials are checked at start. */
  auth: ToolTable['auth'];
  /** The table's APIs, when it serves several: their own settings' variables are checked at start. */
  apis?: ToolTable['apis'];
  /** Toolset names with their number of tools, in table order: --toolsets is checked against them. */
  toolsets: [name: string, tools: number][];
  /** What initialize advertises besides tools and resources. */
  offers: Offers;
  /** What the client one-liners need (`--clients`), when the table was generated into a project. */
  install?: Omit<InstallTarget, 'entry'>;
}

export interface Offers {
  /** A prompt per toolset and the declared ones. */
  prompts: boolean;
  /** Values for resource template variables and prompt arguments. */
  completions: boolean;
  /** Long-running and streaming tool calls as tasks. */
  tasks: boolean;
}

export function summarize(table: ToolTable): TableSummary {
  return {
    format: table.format,
    name: table.name,
    version: table.version,
    ...(table.title !== undefined ? { title: table.title } : {}),
    ...(table.instructions !== undefined ? { instructions: table.instructions } : {}),
    ...(table.serve ? { mode: table.serve.mode } : {}),
    auth: table.auth,
    ...(table.apis !== undefined ? { apis: table.apis } : {}),
    toolsets: [...toolsetSizes(table)],
    offers: offersOf(table),
  };
}

/** Decided on the whole table: a server started with fewer toolsets may offer an empty list. */
function offersOf(table: ToolTable): Offers {
  const declared = table.prompts ?? [];
  return {
    prompts: declared.length > 0 || table.tools.length > 0,
    completions: table.tools.some((t) => t.resource?.uriTemplate !== undefined) || declared.some((p) => (p.arguments ?? []).length > 0),
    tasks: table.tools.some((t) => runsAsTask(t) && t.asTool !== false),
  };
}
