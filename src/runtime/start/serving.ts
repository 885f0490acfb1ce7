// What a server serves, decided once from its settings and its table's summary: the checks
// that refuse a start, the listing mode and the toolsets enabled at first, the service (loaded
// on first need) and the factory of server instances. Every platform's start shares it: the
// Node process (main.ts) and the web handler of the other platforms (web/web-server.ts).

import type { Hooks } from '../hooks-api.js';
import { serverFactory, type ServerFactory } from '../mcp/server-instances.js';
import type { EarlyListing } from '../mcp/early-listing.js';
import { ConfigError, type ServerConfig, type ToolMode } from './config.js';
import { apiSendings } from './api-settings.js';
import { Lazy } from './lazy.js';
import type { Logger } from './log.js';
import type { Service } from './service.js';
import type { TableSummary } from '../../contract/summary.js';
import type { ToolTable } from '../../contract/table.js';
import { PREPARED_PROFILE, servesPrepared, type PreparedListing } from '../../contract/prepared-listing.js';
import { checkToolsets, ToolsetError } from '../../contract/toolsets.js';
import { badCredential } from '../../contract/headers.js';

export interface Serving {
  factory: ServerFactory;
  /** The table and what serves it, made on first need. */
  service: Lazy<Service>;
}

/** Where a server's table comes from: `load` is called on first need. */
export interface TableSource {
  load: () => ToolTable | Promise<ToolTable>;
  /** The default listing prepared at generation, when there is one for the table `load` gives. */
  prepared?: () => Promise<PreparedListing | undefined>;
}

/**
 * The prepared listing, where these settings list exactly what it holds (contract/prepared-listing.ts):
 * the file is not even read otherwise. What it holds is the table's own mode (it was made from
 * this very tools.json) in the prepared profile, checked again once read.
 */
function preparedFor(summary: TableSummary, mode: ToolMode, config: ServerConfig, source: TableSource) {
  const read = source.prepared;
  const settings = {
    mode,
    profile: config.clientProfile,
    toolsets: config.toolsets,
    readOnly: config.readOnly,
    oauth: config.oauth !== undefined,
  };
  if (read === undefined || !servesPrepared({ mode: summary.mode ?? 'direct', profile: PREPARED_PROFILE }, settings)) return undefined;
  return async () => {
    const listing = await read();
    return listing && servesPrepared(listing, settings) ? listing : undefined;
  };
}

/** The factory and the (lazy) service of a server whose settings passed startProblem. */
export function prepareServing(summary: TableSummary, source: TableSource, hooks: Hooks, config: ServerConfig, log: Logger): Serving {
  // --toolsets alone means "these tools, listed": direct; otherwise the mode chosen at generation.
  const mode: ToolMode = config.toolMode ?? (config.toolsets.length ? 'direct' : (summary.mode ?? 'direct'));
  const initialToolsets = config.toolsets.includes('all')
    ? summary.toolsets.map(([name]) => name)
    : config.toolsets.filter((t) => t !== 'all');
  const prepared = preparedFor(summary, mode, config, source);
  const service = new Lazy(async () => {
    // the listing first: it reads the table's bytes, which the parse then reuses
    const listing = await prepared?.();
    const choices = { mode, initialToolsets, offers: summary.offers, ...(listing ? { prepared: () => listing } : {}) };
    return (await import('./service.js')).createService(await source.load(), config, hooks, log, choices);
  });
  // loaded with the first tools/list, which loads the same modules anyway: initialize waits for none of them
  const early: EarlyListing | undefined =
    prepared && (async (server, request) => (await import('../mcp/early-listing.js')).answerEarly(server, request, prepared, config.apps));
  return { factory: serverFactory(summary, mode, service, early), service };
}

/** Why the server cannot start with these settings, checked before anything is served. */
export function startProblem(summary: TableSummary, config: ServerConfig, env: Record<string, string | undefined>): string | undefined {
  try {
    checkToolsets(summary.toolsets, config.toolsets);
  } catch (error) {
    if (!(error instanceof ToolsetError)) throw error;
    return error.message;
  }
  const unusable = credentialProblem(summary, env) ?? baseUrlProblem(config.baseUrl) ?? apiSettingProblem(summary, config, env);
  if (unusable) return unusable;
  const unknown = config.authFromHeaders.find(({ scheme }) => !summary.auth[scheme]);
  if (unknown === undefined) return undefined;
  const known = Object.keys(summary.auth).join(', ') || 'none';
  return `--auth-from-headers maps ${unknown.header} to "${unknown.scheme}", which is not a security scheme of this API (known: ${known})`;
}

/** An API's own retries or rate limit variable set to something it cannot be (api-settings.ts). */
function apiSettingProblem(summary: TableSummary, config: ServerConfig, env: Record<string, string | undefined>): string | undefined {
  try {
    apiSendings(summary.apis, config.sending, env);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
}

/**
 * The first credential variable set to something that cannot be sent, as a message that names
 * the variable and never its value (checked at start-up, so that no call fails with fetch's
 * own refusal, which quotes the value).
 */
export function credentialProblem(table: Pick<ToolTable, 'auth'>, env: Record<string, string | undefined>): string | undefined {
  for (const scheme of Object.values(table.auth)) {
    for (const [part, variable] of Object.entries(scheme.env) as [string, string][]) {
      const value = env[variable];
      if (value === undefined || value === '') continue;
      // Sent as a header value as it is; the rest is percent- or base64-encoded first.
      const inHeader = (scheme.type === 'apiKey' && scheme.in === 'header') || part === 'token';
      const problem = badCredential(value, inHeader);
      if (problem) return `${variable} ${problem}; fix the variable`;
    }
  }
  return undefined;
}

/**
 * Credentials in a URL are never sent (upstream.ts refuses the request, as fetch does), and
 * the refusal quotes the URL with its password: refuse it once at start, without quoting it.
 */
function baseUrlProblem(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(baseUrl)) return undefined;
  return "--base-url (API_BASE_URL) must not carry a user name or password: set the credentials of the API's security scheme instead";
}
