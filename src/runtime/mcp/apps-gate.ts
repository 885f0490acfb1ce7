// Whether a request gets MCP Apps views: --apps is auto and the client declares the extension
// (capabilities.extensions["io.modelcontextprotocol/ui"], per request in 2026-07-28, from
// initialize in 2025 sessions). The views' module (runtime/apps/) is imported only then: a
// client that does not declare it gets exactly what --apps off gives.

import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { AppsSetting } from '../../contract/settings.js';
import type { ToolTable } from '../../contract/table.js';
import type { Views } from '../apps/apps.js';

/** The MCP Apps extension's name (SEP-1865). */
const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

export interface AppsGate {
  /** The views for this request's client, or undefined when it gets none. */
  viewsFor(server: Server, ctx: ServerContext): Promise<Views | undefined>;
}

export function appsGate(table: ToolTable, setting: AppsSetting = 'auto'): AppsGate {
  let views: Promise<Views> | undefined;
  return {
    viewsFor: (server, ctx) => {
      if (!getsViews(setting, server, ctx.mcpReq.envelope)) return Promise.resolve(undefined);
      return (views ??= import('../apps/apps.js').then(({ createViews }) => createViews(table)));
    },
  };
}

/**
 * Whether a request gets views under `setting`: its client declares the extension, in the
 * request's `_meta` envelope (2026-07-28) or at initialize (2025 sessions).
 */
export const getsViews = (setting: AppsSetting, server: Server, envelope: unknown): boolean =>
  setting !== 'off' && declaresApps(capabilitiesIn(server, envelope));

function declaresApps(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, APPS_EXTENSION);
}

/** The client's capabilities: per request (2026-07-28), or from initialize (2025 sessions). */
export const clientCapabilitiesOf = (server: Server, ctx: ServerContext): ClientCapabilities | undefined =>
  capabilitiesIn(server, ctx.mcpReq.envelope);

function capabilitiesIn(server: Server, envelope: unknown): ClientCapabilities | undefined {
  const declared = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return (declared as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}
