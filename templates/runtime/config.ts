// Start-up options of the generated server: flags first, then environment, then defaults.
// A bad value is one line on stderr and exit code 2, never a stack trace.

import { parseArgs } from 'node:util';
import { CLIENT_PROFILES, type ClientProfile } from './profiles.js';

export type TransportName = 'stdio' | 'sse' | 'http' | 'http+sse';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type ToolMode = 'direct' | 'toolsets' | 'dynamic';

export interface ServerConfig {
  transport: TransportName;
  host: string;
  port: number;
  /** Upstream API base URL; overrides the spec's servers. */
  baseUrl?: string;
  /** Upstream request timeout in milliseconds. */
  timeoutMs: number;
  /** Largest upstream body passed on to the client, in bytes; more is cut with a note. */
  maxResponseBytes: number;
  /** Largest MCP request body accepted over HTTP, in bytes (413 above). */
  maxRequestBytes: number;
  /** Host names accepted in the Host header (DNS-rebinding protection); empty = loopback only. */
  allowedHosts: string[];
  /** Origins accepted in the Origin header; empty = loopback origins only. */
  allowedOrigins: string[];
  logLevel: LogLevel;
  /** Bearer token MCP clients must send over HTTP; unset = no check. */
  authToken?: string;
  /** Per-request upstream credentials: MCP client HTTP header → security scheme name. */
  authFromHeaders: { header: string; scheme: string }[];
  /** Headers sent with every upstream request (for APIs whose spec declares no security scheme). Secret: never logged. */
  staticHeaders: [string, string][];
  /** Toolsets to serve (empty: all); see toolsets.ts. */
  toolsets: string[];
  /** Serve only read-only tools (GET and HEAD). */
  readOnly: boolean;
  /** What tools/list shows; unset: the mode chosen at generation (see ToolTable.serve). */
  toolMode?: ToolMode;
  /** How listed schemas are adapted to the client (profiles.ts). */
  clientProfile: ClientProfile;
  /** Serve every Streamable HTTP request on its own (no sessions): any replica can answer. */
  stateless: boolean;
  /** Origins allowed to call over CORS; empty = CORS off. */
  corsOrigins: string[];
  /** Most sessions open at once (503 above). */
  maxSessions: number;
  /** A session unused this long is closed, in milliseconds. */
  sessionIdleMs: number;
  /** On SIGTERM/SIGINT, in-flight requests get this long to finish, in milliseconds. */
  shutdownGraceMs: number;
  /** Most sessions (Streamable HTTP and SSE together) one remote address may hold (429 above). */
  maxSessionsPerClient: number;
  /** Time to receive a whole request (headers and body), in milliseconds (408 above). */
  requestTimeoutMs: number;
  /** Most TCP connections open at once; more are closed on arrival. */
  maxConnections: number;
  /** Serve HTTP beyond loopback without MCP_AUTH_TOKEN (or CORS `*` without it): the operator accepts the risk. */
  allowUnauthenticated: boolean;
}

export class ConfigError extends Error {}

export const USAGE = `Options (each also settable by the environment variable in brackets):
  --transport T                stdio | http (Streamable HTTP at /mcp) | sse (legacy, /sse)
                               | http+sse (both from one process) [MCP_TRANSPORT] (default: stdio)
  --tools M                    what tools/list shows [MCP_TOOLS] (default: the mode chosen at
                               generation, see the README; direct when --toolsets is given):
                               direct    a tool per operation
                               toolsets  list_toolsets and enable_toolset: the agent adds toolsets
                                         as it needs them (tools/list_changed), per connection;
                                         --toolsets are enabled from the start
                               dynamic   search_operations, describe_operation, invoke_operation
  --toolsets a,b               serve only these toolsets (--help lists them) or all [MCP_TOOLSETS]
  --read-only                  serve only read-only tools (GET and HEAD) [MCP_READ_ONLY=1]
  --dynamic-toolsets           the same as --tools toolsets [MCP_DYNAMIC_TOOLSETS=1]
  --client-profile P           how listed schemas are written [MCP_CLIENT_PROFILE] (default: portable):
                               portable       compact, no construct some client rejects
                               openai-strict  OpenAI strict function calling (all properties
                                              required, optional ones nullable)
                               gemini         Gemini function declarations (OpenAPI subset)
                               full           the whole schemas, with $defs
                               Arguments are checked against the whole schema in every profile.
  --stateless                  Streamable HTTP without sessions, for replicas behind a load
                               balancer [MCP_STATELESS=1]
  --port N                     HTTP port for sse/http [PORT] (default: 3000)
  --host H                     interface to bind [HOST] (default: 127.0.0.1)
  --base-url URL               upstream API base URL [API_BASE_URL] (default: from the spec)
  --timeout MS                 upstream request timeout [API_TIMEOUT_MS] (default: 30000)
  --max-response-bytes N       cut upstream bodies above N bytes [MCP_MAX_RESPONSE_BYTES] (default: 262144)
  --max-request-bytes N        refuse MCP request bodies above N bytes [MCP_MAX_REQUEST_BYTES] (default: 4194304)
  --allowed-hosts a,b          extra Host names accepted over HTTP [MCP_ALLOWED_HOSTS]
  --allowed-origins a,b        extra Origins accepted over HTTP [MCP_ALLOWED_ORIGINS]
  --log-level L                debug|info|warn|error|silent, logs go to stderr [LOG_LEVEL] (default: info)
  --header "Name: value"       send this header with every upstream request, e.g. a token for an API
                               whose spec declares no security scheme; repeatable [API_HEADERS: one
                               "Name: value" per line]
  --auth-token T               require "Authorization: Bearer T" from MCP clients over HTTP [MCP_AUTH_TOKEN]
  --auth-from-headers H=S,...  take the credential of security scheme S from the MCP client's
                               HTTP header H, per request (off by default) [MCP_AUTH_FROM_HEADERS]
  --cors-origins a,b           let browsers on these origins call the endpoint (* = any) [MCP_CORS_ORIGINS] (default: off)
  --max-sessions N             most open sessions [MCP_MAX_SESSIONS] (default: 1000)
  --session-idle-ms MS         close sessions unused this long [MCP_SESSION_IDLE_MS] (default: 1800000)
  --shutdown-grace-ms MS       time in-flight calls get on SIGTERM [MCP_SHUTDOWN_GRACE_MS] (default: 10000)
  --max-sessions-per-client N  most open sessions per client IP address, 429 above
                               [MCP_MAX_SESSIONS_PER_CLIENT] (default: 250)
  --request-timeout-ms MS      time a client gets to send a whole request, headers and body,
                               408 above (SSE streams are not cut) [MCP_REQUEST_TIMEOUT_MS] (default: 30000)
  --max-connections N          most open TCP connections [MCP_MAX_CONNECTIONS] (default: 1000)
  --allow-unauthenticated      serve beyond loopback (or with --cors-origins '*') without
                               --auth-token, accepting that anyone who reaches the port uses
                               the API credentials [MCP_ALLOW_UNAUTHENTICATED=1]
  --help                       show this help`;

/** Every server option and its kind: the one list that parses argv (and that `mcp-gen serve` splits its arguments by). */
export const SERVER_OPTIONS = {
  transport: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'base-url': { type: 'string' },
  timeout: { type: 'string' },
  'max-response-bytes': { type: 'string' },
  'max-request-bytes': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  'log-level': { type: 'string' },
  header: { type: 'string', multiple: true },
  'auth-token': { type: 'string' },
  'auth-from-headers': { type: 'string' },
  stateless: { type: 'boolean' },
  toolsets: { type: 'string' },
  'read-only': { type: 'boolean' },
  'dynamic-toolsets': { type: 'boolean' },
  tools: { type: 'string' },
  'client-profile': { type: 'string' },
  'cors-origins': { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle-ms': { type: 'string' },
  'shutdown-grace-ms': { type: 'string' },
  'max-sessions-per-client': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'allow-unauthenticated': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ServerConfig | 'help' {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: SERVER_OPTIONS,
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? String(error));
  }
  if (values.help) return 'help';
  const pick = (flag: string, variable: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const e = env[variable];
    return e !== undefined && e !== '' ? e : undefined;
  };
  const transport = pick('transport', 'MCP_TRANSPORT') ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'sse' && transport !== 'http' && transport !== 'http+sse') {
    throw new ConfigError(`--transport must be stdio, http, sse or http+sse (got "${transport}")`);
  }
  const logLevel = pick('log-level', 'LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(`--log-level must be debug, info, warn, error or silent (got "${logLevel}")`);
  }
  const dynamicToolsets = values['dynamic-toolsets'] === true || /^(1|true|yes)$/i.test(env.MCP_DYNAMIC_TOOLSETS ?? '');
  const toolMode = pick('tools', 'MCP_TOOLS') ?? (dynamicToolsets ? 'toolsets' : undefined);
  if (toolMode !== undefined && toolMode !== 'direct' && toolMode !== 'toolsets' && toolMode !== 'dynamic') {
    throw new ConfigError(`--tools must be direct, toolsets or dynamic (got "${toolMode}")`);
  }
  if (dynamicToolsets && toolMode !== 'toolsets') throw new ConfigError(`--dynamic-toolsets is --tools toolsets: it cannot be combined with --tools ${toolMode}`);
  const clientProfile = pick('client-profile', 'MCP_CLIENT_PROFILE') ?? 'portable';
  if (!(CLIENT_PROFILES as readonly string[]).includes(clientProfile)) {
    throw new ConfigError(`--client-profile must be ${CLIENT_PROFILES.join(', ')} (got "${clientProfile}")`);
  }
  const baseUrl = pick('base-url', 'API_BASE_URL');
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl)) {
    // the URL may carry a password: show it without userinfo
    throw new ConfigError(`--base-url must be an absolute http(s) URL (got "${baseUrl.replace(/^([^/]*\/\/)[^/@]*@/, '$1***@')}")`);
  }
  const authToken = pick('auth-token', 'MCP_AUTH_TOKEN');
  const authFromHeaders = (pick('auth-from-headers', 'MCP_AUTH_FROM_HEADERS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)=(.+)$/.exec(pair);
      if (!m) throw new ConfigError(`--auth-from-headers takes Header=scheme pairs (got "${pair}")`);
      return { header: (m[1] as string).toLowerCase(), scheme: (m[2] as string).trim() };
    });
  const headerLines = Array.isArray(values.header) ? (values.header as string[]) : (env.API_HEADERS ?? '').split('\n');
  const staticHeaders = headerLines
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '')
    .map((line, i): [string, string] => {
      const where = Array.isArray(values.header) ? `--header #${i + 1}` : `API_HEADERS line ${i + 1}`;
      // The value is a secret: messages name the place, never the text.
      const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
      if (!m) throw new ConfigError(`${where} must be "Name: value" with a valid header name`);
      if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(m[2] as string)) throw new ConfigError(`${where}: the value contains a control character or a character an HTTP header cannot carry`);
      return [m[1] as string, m[2] as string];
    });
  const list = (flag: string, variable: string) =>
    (pick(flag, variable) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const host = pick('host', 'HOST') ?? '127.0.0.1';
  const corsOrigins = list('cors-origins', 'MCP_CORS_ORIGINS');
  const allowUnauthenticated = values['allow-unauthenticated'] === true || /^(1|true|yes)$/i.test(env.MCP_ALLOW_UNAUTHENTICATED ?? '');
  // Without a token, whoever reaches the port calls the API with the operator's credentials
  // (and the Host check cannot stop them: any client can send `Host: localhost`). Likewise
  // CORS `*` lets every web page the user visits drive a local server.
  if (transport !== 'stdio' && authToken === undefined && !allowUnauthenticated) {
    if (!isLoopback(host)) {
      throw new ConfigError(`--host ${host} serves beyond loopback: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`);
    }
    if (corsOrigins.includes('*')) {
      throw new ConfigError(`--cors-origins '*' lets any web page call this server: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`);
    }
  }
  return {
    transport,
    host,
    port: integer(pick('port', 'PORT'), '--port', 3000, 0, 65535),
    ...(baseUrl !== undefined ? { baseUrl: baseUrl.replace(/\/+$/, '') } : {}),
    timeoutMs: integer(pick('timeout', 'API_TIMEOUT_MS'), '--timeout', 30_000, 1, 86_400_000),
    maxResponseBytes: integer(pick('max-response-bytes', 'MCP_MAX_RESPONSE_BYTES'), '--max-response-bytes', 262_144, 1, 2 ** 31),
    maxRequestBytes: integer(pick('max-request-bytes', 'MCP_MAX_REQUEST_BYTES'), '--max-request-bytes', 4_194_304, 1, 2 ** 31),
    allowedHosts: list('allowed-hosts', 'MCP_ALLOWED_HOSTS'),
    allowedOrigins: list('allowed-origins', 'MCP_ALLOWED_ORIGINS'),
    logLevel: logLevel as LogLevel,
    ...(authToken !== undefined ? { authToken } : {}),
    authFromHeaders,
    staticHeaders,
    toolsets: list('toolsets', 'MCP_TOOLSETS'),
    readOnly: values['read-only'] === true || /^(1|true|yes)$/i.test(env.MCP_READ_ONLY ?? ''),
    ...(toolMode !== undefined ? { toolMode: toolMode as ToolMode } : {}),
    clientProfile: clientProfile as ClientProfile,
    stateless: values.stateless === true || /^(1|true|yes)$/i.test(env.MCP_STATELESS ?? ''),
    corsOrigins,
    maxSessions: integer(pick('max-sessions', 'MCP_MAX_SESSIONS'), '--max-sessions', 1000, 1, 1_000_000),
    sessionIdleMs: integer(pick('session-idle-ms', 'MCP_SESSION_IDLE_MS'), '--session-idle-ms', 1_800_000, 1_000, 2 ** 31),
    shutdownGraceMs: integer(pick('shutdown-grace-ms', 'MCP_SHUTDOWN_GRACE_MS'), '--shutdown-grace-ms', 10_000, 0, 600_000),
    maxSessionsPerClient: integer(pick('max-sessions-per-client', 'MCP_MAX_SESSIONS_PER_CLIENT'), '--max-sessions-per-client', 250, 1, 1_000_000),
    requestTimeoutMs: integer(pick('request-timeout-ms', 'MCP_REQUEST_TIMEOUT_MS'), '--request-timeout-ms', 30_000, 100, 3_600_000),
    maxConnections: integer(pick('max-connections', 'MCP_MAX_CONNECTIONS'), '--max-connections', 1000, 1, 1_000_000),
    allowUnauthenticated,
  };
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function integer(text: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) {
    throw new ConfigError(`${flag} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return n;
}
