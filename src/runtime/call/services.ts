// What the calls of one server share, made once by createExecutor (executor.ts) and handed to
// each step of a call (prepare-step.ts, send-step.ts, answer-step.ts): the schemas and their
// checks, the credentials and where requests go, how they are sent, the redaction, and the
// modules loaded on first need (on-behalf.ts; long-running.ts, through `following`).

import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../start/config.js';
import type { Hooks, OutgoingRequest } from '../hooks-api.js';
import type { Logger } from '../start/log.js';
import type { CallObserver } from '../observe/observe.js';
import { markLinkRequired, type LinkRequired } from './answer/link-mark.js';
import { Authenticator, type RequestCredentials } from './request/credentials.js';
import type { Cancellation } from './send/call-limit.js';
import type { SendOne } from './send/middleware.js';
import { createChecks, type Checks } from './request/checks.js';
import { upstreamBases } from './request/outgoing.js';
import type { OnBehalf } from '../oauth/upstream-accounts/on-behalf.js';
import { toolError, type Structurer } from '../mcp/output.js';
import type { Progress } from '../mcp/progress.js';
import { structureFor } from './answer/shape.js';
import { serverRedactor, type Redactor } from './answer/redact.js';
import { ownValue, type ToolSpec, type ToolTable } from '../../contract/table.js';
import { perTool, toolSchemas, type ToolSchemas } from '../mcp/tool-schemas.js';
import { credentialPlaces, sendFollowingRedirects } from './send/upstream.js';
import { followsOperations } from '../start/optional-features.js';
import { Lazy } from '../start/lazy.js';
import type { longRunningCalls, tracked } from '../long-running/long-running.js';
import { createSending, type Sending } from './send/retry.js';
import { platform } from '../start/platform.js';
import { apiSendings } from '../start/api-settings.js';

/** Who a call is for (OAuth) and the secrets it came to use: what the redaction takes out. */
export interface CallContext {
  credentials: RequestCredentials;
  caller: AuthInfo | undefined;
  secrets: string[];
  /** The client's progress, when it asked for it: told while a streamed answer is read. */
  progress?: Progress;
  /** A task's lifetime, when the call is one: what bounds a streamed answer instead of --timeout. */
  lifetimeMs?: number;
  /** A code-mode program's call, which reads the answer whole: a streamed one kept up to --max-response-bytes, not the answer budget. */
  whole?: boolean;
}

/** long-running.ts's calls for this server, and its `tracked`: what following an operation needs of an answer. */
export type Following = ReturnType<typeof longRunningCalls<CallContext>> & { tracked: typeof tracked };

export interface CallServices {
  readonly table: ToolTable;
  readonly config: ServerConfig;
  readonly hooks: Hooks;
  readonly log: Logger;
  readonly observer: CallObserver;
  readonly schemas: ToolSchemas;
  readonly checks: Checks;
  readonly auth: Authenticator;
  /** Where a tool's requests go (outgoing.ts), or why nowhere. */
  readonly baseOf: (tool: ToolSpec) => { base: string } | { problem: string };
  readonly sending: Sending;
  readonly redactor: Redactor;
  /** What calls send on their caller's behalf (on-behalf.ts, loaded on first need); undefined when no setting asks for it. */
  readonly onBehalf: (() => Promise<OnBehalf>) | undefined;
  /** The query parameters that carry credentials: taken out of a followed operation's request. */
  readonly credentialQuery: ReadonlySet<string>;
  /** Whether an answer may be followed (its request, its operation headers kept): only a table with a long-running operation. */
  readonly tracks: boolean;
  readonly advertisedStructure: (tool: ToolSpec) => Structurer;
  /** long-running.ts, loaded on first need: only a table with a long-running operation has one. */
  readonly following: Lazy<Following>;
}

/** The services of one server; `loadFollowing` makes its long-running calls, on first need. */
export function callServices(
  table: ToolTable,
  config: ServerConfig,
  hooks: Hooks,
  log: Logger,
  observer: CallObserver,
  loadFollowing: () => Promise<Following>,
): CallServices {
  const schemas = toolSchemas(table);
  const checks = createChecks(table, schemas, log);
  return {
    table,
    config,
    hooks,
    log,
    observer,
    schemas,
    checks,
    auth: new Authenticator(table, platform().env, log, config.timeoutMs),
    baseOf: upstreamBases(table, config.baseUrl, platform().env),
    // Each try to the upstream, observed; the pacing goes around it per call (retry.ts).
    sending: createSending({ ...config.sending, perApi: apiSendings(table.apis, config.sending, platform().env) }, log, {
      upstream: upstreamSender(table, config),
      around: [observer.sender],
      onWait: observer.onWait,
    }),
    redactor: serverRedactor(table, config.staticHeaders),
    onBehalf: onBehalfOf(table, config, log),
    credentialQuery: credentialPlaces(table).query,
    tracks: followsOperations(table),
    advertisedStructure: perTool((tool) => structureFor(tool, true, checks.output)),
    following: new Lazy(loadFollowing),
  };
}

/** The tool error that stops a call, marked when the caller must first link an account. */
export const failure = (text: string, link?: LinkRequired): { failure: CallToolResult } => ({
  failure: link === undefined ? toolError(text) : markLinkRequired(toolError(text), link),
});

/**
 * What calls send on their caller's behalf, with --token-exchange, --oauth-api-client-id or --upstream-identity-header
 * (on-behalf.ts, loaded on the first call that needs it); undefined otherwise, at no cost.
 */
function onBehalfOf(table: ToolTable, config: ServerConfig, log: Logger): (() => Promise<OnBehalf>) | undefined {
  const oauth = config.oauth;
  if (oauth === undefined || (oauth.tokenExchange === undefined && oauth.identityHeader === undefined && oauth.signIn === undefined)) {
    return undefined;
  }
  let loaded: Promise<OnBehalf> | undefined;
  return () =>
    (loaded ??= import('../oauth/upstream-accounts/on-behalf.js').then((m) => m.createOnBehalf(table, oauth, config.timeoutMs, log)));
}

/**
 * Sends a request to the upstream with its redirects followed: credentials (the schemes' places,
 * the static headers and the caller's identity header) stay on the API's origin, and the servers of a spec that came from a
 * URL reach public addresses only (--base-url is the user's choice, and free).
 */
function upstreamSender(table: ToolTable, config: ServerConfig): SendOne {
  const places = credentialPlaces(table);
  for (const [name] of config.staticHeaders) places.headers.add(name.toLowerCase());
  // The caller's identity, like a static header, is for the API's origin only.
  if (config.oauth?.identityHeader !== undefined) places.headers.add(config.oauth.identityHeader.toLowerCase());
  const ruleOf = publicServerRules(table, config.baseUrl);
  return (request: OutgoingRequest, signal: Cancellation) => sendFollowingRedirects(request, signal, places, ruleOf(request.tool));
}

/**
 * Whether a tool's requests may reach public addresses only: its spec came from a URL and no
 * one chose its upstream. Over several APIs, each API's own rule, lifted by its
 * `<NAMESPACE>_BASE_URL` too.
 */
function publicServerRules(table: ToolTable, baseUrl: string | undefined): (toolName: string) => ToolTable['publicServers'] {
  const single = baseUrl === undefined ? table.publicServers : undefined;
  if (table.apis === undefined) return () => single;
  const env = platform().env;
  const byTool = new Map<string, ToolTable['publicServers']>();
  for (const tool of table.tools) {
    const api = tool.api === undefined ? undefined : ownValue(table.apis, tool.api);
    const chosen = baseUrl !== undefined || (api !== undefined && Boolean(env[api.baseUrlEnv]));
    byTool.set(tool.name, api === undefined ? single : chosen ? undefined : api.publicServers);
  }
  return (toolName) => (byTool.has(toolName) ? byTool.get(toolName) : single);
}
