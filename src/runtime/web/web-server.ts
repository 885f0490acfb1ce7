// The platform-neutral HTTP server: one web-standard handler, (Request) → Response, that the
// entries of Cloudflare Workers, Deno, Vercel and AWS Lambda serve. Streamable HTTP at /mcp in
// both protocol eras: the SDK's createMcpHandler answers 2026-07-28 requests one by one and
// 2025-era clients statelessly, so that any isolate or instance can answer any request; where
// the platform can keep a session (a Durable Object on Cloudflare), a 2025-era client's
// initialize opens one there (sessions-durable.ts). In front of it the Node server's rules:
// health, Host/Origin, no open server beyond loopback, the shared token.

import { createMcpHandler, WebStandardStreamableHTTPServerTransport, type HandleRequestOptions } from '@modelcontextprotocol/server';
import { ConfigError, configFrom, type ServerConfig } from '../start/config.js';
import type { Hooks } from '../hooks-api.js';
import { createLogger, type Logger } from '../start/log.js';
import { platform, runOn, type PlatformModules, type PlatformName } from '../start/platform.js';
import { prepareServing, startProblem, type Serving } from '../start/serving.js';
import { Lazy } from '../start/lazy.js';
import { unappliedSettingsNotice } from './node-only-settings.js';
import { operationStoreProblem as storeProblem, tokenStoreProblem as tokenStoreProblemOn } from '../store/setting.js';
import type { ScopePolicy } from '../mcp/tool-scopes.js';
import {
  isLegacyPost,
  routeToSession,
  sessionObject,
  type SessionObjectHandlers,
  type SessionObjects,
  type SessionObjectState,
} from './sessions-durable.js';
import {
  bearerAuth,
  cors,
  health,
  hostOriginGuard,
  jsonBody,
  jsonRpcRefusal,
  refuseOpenServer,
  withHeaders,
  type WebContext,
  type WebEndpoints,
  type WebStep,
} from './web-steps.js';
import type { TableSummary } from '../../contract/summary.js';
import { screeningOfScheme, type ToolTable } from '../../contract/table.js';

export interface WebServerInput extends PlatformModules {
  platform: Exclude<PlatformName, 'node'>;
  summary: TableSummary;
  table: ToolTable;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the project's hooks are typed by its own tool arguments
  hooks: Hooks<any>;
  /** The platform's variables and secrets: the settings and the API's credentials. */
  env: Record<string, string | undefined>;
  /** Where 2025-era sessions are kept (Cloudflare: the Durable Object namespace bound as MCP_SESSIONS); none: stateless. */
  sessions?: SessionObjects;
}

/** What a platform tells of a request's connection: Deno.serve's second argument has this shape. */
export interface ConnectionInfo {
  remoteAddr?: { hostname?: string };
}

export interface WebServer {
  fetch(request: Request, info?: ConnectionInfo): Promise<Response>;
  /** Where a platform that listens itself (Deno) should: HOST and PORT, checked as on Node (127.0.0.1:3000 by default). */
  address: { hostname: string; port: number };
  /** The handlers of one session's Durable Object (Cloudflare), for the requests this handler forwards to it. */
  session(state: SessionObjectState): SessionObjectHandlers;
}

const DEFAULT_ADDRESS = { hostname: '127.0.0.1', port: 3000 };

/** The handler a platform entry exports; a setting the platform cannot serve makes every answer say why. */
export function createWebServer(input: WebServerInput): WebServer {
  runOn(input.platform, input.env, {
    ...(input.quickjsWasm !== undefined ? { quickjsWasm: input.quickjsWasm } : {}),
    ...(input.bindings !== undefined ? { bindings: input.bindings } : {}),
  });
  const started = startOn(input);
  if ('problem' in started) {
    console.error(`[${input.summary.name}] ${started.problem}`);
    const refusal = () => Promise.resolve(jsonRpcRefusal(503, -32603, `${input.summary.name}: ${started.problem}`));
    // Still on HOST and PORT when they were read: the refusal is said where clients look (Deno).
    return {
      fetch: refusal,
      address: started.address ?? DEFAULT_ADDRESS,
      session: () => ({ fetch: refusal, serve: refusal, alarm: () => Promise.resolve() }),
    };
  }
  const { config, log } = started;
  const unapplied = unappliedSettingsNotice(input.env, input.platform);
  if (unapplied !== undefined) log.warn(unapplied);
  const summary = servedSummary(input, log);
  const serving = prepareServing(summary, { load: () => input.table }, input.hooks as Hooks, config, log);
  const core = createWebCore({
    platform: input.platform,
    config,
    serving,
    log,
    ...(input.sessions !== undefined ? { sessions: input.sessions } : {}),
  });
  return { address: { hostname: config.host, port: config.port }, fetch: core.fetch, session: core.session };
}

/** What the core serves with: on a platform read from its variables (createWebServer); on Node, from its command line. */
export interface WebCoreInput {
  platform: PlatformName;
  config: ServerConfig;
  serving: Serving;
  log: Logger;
  /** Where 2025-era sessions are kept (Cloudflare: Durable Objects; Node: memory, which `close` ends); none: stateless. */
  sessions?: SessionObjects & { close?(): Promise<void> };
  /** Whether the server is draining (Node, after SIGTERM): /healthz then answers 503, so that a balancer stops routing here. */
  draining?: () => boolean;
  /** A transport served outside the core (Node's legacy HTTP+SSE), given what the steps let through to its paths. */
  passOn?: PassOn;
  /** Whether Streamable HTTP is served at /mcp (not under Node's --transport sse). */
  mcp?: boolean;
}

/**
 * Endpoints the core does not serve itself but guards as /mcp (Host/Origin, the token or OAuth's
 * gate, the body, the scopes): Node's legacy HTTP+SSE, which writes to a node:http response.
 */
export interface PassOn {
  /** What it serves, for the 404 that names every endpoint. */
  describe: string;
  /** Its answer to a request past the steps, or undefined for a path it does not serve. */
  answer(request: Request, url: URL, context: WebContext): Promise<Response | undefined>;
}

export interface WebCore extends Pick<WebServer, 'fetch' | 'session'> {
  /** Ends the sessions kept here and the SDK handler's streams: the server stops (Node, once its calls have finished). */
  close(): Promise<void>;
}

/**
 * The handler itself, (Request) → Response, once its settings are known: health and CORS, the
 * steps (requestSteps), then 2025-era sessions where they are kept and the SDK's handler.
 */
export function createWebCore(input: WebCoreInput): WebCore {
  const { config, serving, log } = input;
  const mcp = createMcpHandler(() => serving.factory('request'), {
    legacy: 'stateless',
    maxRequestBodySize: config.maxRequestBytes,
    keepAliveMs: config.sseKeepAliveMs,
    onerror: (error) => log.debug(`mcp: ${error.message}`),
  });
  // Made on the first request: the OAuth steps discover the authorization server first.
  const steps = new Lazy(() => requestSteps(input.platform, config, serving, log));
  const corsOf = cors(config.corsOrigins);
  const platformName = input.platform;
  const draining = input.draining ?? (() => false);
  // --stateless (MCP_STATELESS) serves 2025-era clients without sessions here too.
  const sessions = config.stateless ? undefined : input.sessions;
  const servesMcp = input.mcp ?? true;
  const served = [servesMcp ? `Streamable HTTP at /mcp${sessions === undefined ? ' (stateless)' : ''}` : undefined, input.passOn?.describe];
  const notFound = (request: Request, url: URL) =>
    jsonRpcRefusal(404, -32601, `Not found: ${request.method} ${url.pathname} (${served.filter(Boolean).join('; ')})`);
  const serve = async (
    request: Request,
    url: URL,
    info: ConnectionInfo | undefined,
    corsHeaders?: Record<string, string>,
  ): Promise<Response> => {
    const context: WebContext = { address: addressOf(request, info, platformName), ...(corsHeaders ? { corsHeaders } : {}) };
    for (const step of steps.value ?? (await steps.get())) {
      const answered = await step(request, url, context);
      if (answered !== undefined) return answered;
    }
    if (url.pathname !== '/mcp' || !servesMcp) return (await input.passOn?.answer(request, url, context)) ?? notFound(request, url);
    const inSession = sessions === undefined ? undefined : routeToSession(sessions, request, context);
    if (inSession !== undefined) return inSession;
    if (request.method === 'GET' || request.method === 'DELETE') return noSessions(platformName);
    const options = {
      ...(context.auth !== undefined ? { authInfo: context.auth } : {}),
      ...(context.body !== undefined ? { parsedBody: context.body } : {}),
    };
    // Node's --stateless answers 2025-era POSTs in JSON (the other platforms keep the SDK's stream for now).
    if (platformName === 'node' && sessions === undefined && isLegacyPost(request, context.body)) {
      return answerOnce(serving, config, request, options);
    }
    return mcp.fetch(request, options);
  };
  return {
    async close() {
      await Promise.allSettled([mcp.close(), input.sessions?.close?.()]);
    },
    session: (state) =>
      sessionObject(state, {
        factory: serving.factory,
        config,
        log,
        streams: async () => (await serving.service.get()).streamsMidCall,
        // Node sees a client go, so a stream still open is another client's: the SDK's 409 stands.
        secondStream: platformName === 'node' ? 'conflict' : 'replace',
      }),
    async fetch(request, info) {
      try {
        const url = new URL(request.url);
        // Before the other steps are made: a probe is answered while OAuth discovers its server.
        const healthy = health(request, url, draining);
        if (healthy !== undefined) return healthy;
        const allowed = corsOf(request);
        return allowed.preflight ?? withHeaders(await serve(request, url, info, allowed.headers), allowed.headers);
      } catch (error) {
        log.error(`${request.method} ${request.url}: ${(error as Error).message}`);
        return jsonRpcRefusal(500, -32603, 'Internal server error');
      }
    },
  };
}

/**
 * The steps before the MCP handler, after health, in order: the OAuth metadata (public), Host/Origin,
 * the open-server rule, the token (shared, or OAuth's), the body, and OAuth's scope check. Node
 * checks the open-server rule as it starts, on the address it listens on (start/config.ts): a
 * public name in Host (a proxy's) tells nothing there.
 */
async function requestSteps(on: PlatformName, config: ServerConfig, serving: Serving, log: Logger): Promise<WebStep[]> {
  const oauth = config.oauth === undefined ? undefined : await oauthSteps(config, serving, log);
  const guarded = on === 'node' ? [hostOriginGuard(config)] : [hostOriginGuard(config), refuseOpenServer(config)];
  const body = jsonBody(config.maxRequestBytes);
  if (oauth === undefined) return [...guarded, bearerAuth(config.authToken), body];
  const endpoints = oauth.endpoints === undefined ? [] : [endpointsStep(oauth.endpoints)];
  return [oauth.metadata, ...endpoints, ...guarded, oauth.gate, body, oauth.scopes];
}

/** The sign-in endpoints as a step: before the guard, with their own Host check (as on Node). */
function endpointsStep(endpoints: WebEndpoints): WebStep {
  return (request, url, context) => (endpoints.serves(url.pathname) ? endpoints.answer(request, url, context.address) : undefined);
}

/**
 * The client's address, for what is paced per address (registrations): Deno's connection, a
 * Function URL's source address (Lambda), the header Cloudflare's edge sets; elsewhere unknown,
 * and then every client shares one pace.
 */
function addressOf(request: Request, info: ConnectionInfo | undefined, on: PlatformName): string {
  const fromEdge = on === 'cloudflare' ? request.headers.get('cf-connecting-ip') : null;
  return info?.remoteAddr?.hostname ?? fromEdge ?? 'unknown';
}

/** The resource server's steps (oauth/, loaded only with --oauth-issuer: it brings jose). */
async function oauthSteps(config: ServerConfig, serving: Serving, log: Logger) {
  const service = await serving.service.get();
  const { webResourceServer } = await import('../oauth/resource-server/web-resource-server.js');
  const oauth = config.oauth as NonNullable<ServerConfig['oauth']>;
  return webResourceServer({ ...config, oauth }, { table: service.table, policy: service.policy as ScopePolicy }, log);
}

/** The settings from the platform's variables, or why they cannot be served here. */
function startOn(input: WebServerInput): { config: ServerConfig; log: Logger } | { problem: string; address?: WebServer['address'] } {
  let config: ServerConfig;
  try {
    // Streamable HTTP is what a platform serves: the transport setting only says otherwise to be refused.
    const read = configFrom({}, { MCP_TRANSPORT: 'http', ...input.env });
    if (typeof read === 'string') return { problem: `unexpected ${read}` };
    config = read;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problem: error.message, address: addressFromEnv(input.env) };
  }
  const problem = startProblem(input.summary, config, input.env) ?? platformProblem(input, config);
  if (problem !== undefined) return { problem, address: { hostname: config.host, port: config.port } };
  return { config, log: createLogger(input.summary.name, config.logLevel, (line) => console.error(line.trimEnd())) };
}

/** HOST and PORT as given, when other settings could not be read: the refusal is then said there (Deno). */
function addressFromEnv(env: Record<string, string | undefined>): WebServer['address'] {
  const port = Number(env.PORT);
  const valid = env.PORT !== undefined && Number.isInteger(port) && port >= 0 && port <= 65_535;
  return { hostname: env.HOST || DEFAULT_ADDRESS.hostname, port: valid ? port : DEFAULT_ADDRESS.port };
}

/**
 * A setting this platform cannot serve, named with what to do instead: never a feature silently
 * dropped (issue #40's rule).
 */
function platformProblem(input: WebServerInput, config: ServerConfig): string | undefined {
  const on = input.platform;
  if (config.transport !== 'http') return `MCP_TRANSPORT=${config.transport}: ${on} serves Streamable HTTP at /mcp only`;
  const oauth = oauthProblem(config, input) ?? operationStoreProblem(input, config.operationStore);
  if (oauth !== undefined) return oauth;
  if ((config.toolMode ?? input.summary.mode) === 'code' && on === 'cloudflare' && input.quickjsWasm === undefined) {
    return `code mode (--tools code) on ${on} needs QuickJS's WebAssembly imported by the entry (workerd compiles none at run time): regenerate the project`;
  }
  const otlp = otlpProblem(input.env, on);
  if (otlp !== undefined) return otlp;
  const unchosen = screenedApis(input.table).find((api) => config.baseUrl === undefined && !input.env[api.variable]);
  if (unchosen !== undefined) {
    const spec = unchosen.namespace === undefined ? 'the spec' : `the ${unchosen.namespace} API's spec`;
    return `${spec} came from a URL, so its servers are screened for internal addresses, which ${on}'s fetch cannot do (it tells no resolved address): set ${unchosen.variable} to the API's URL`;
  }
  const tokenUrl = unscreenedTokenUrl(input.table, input.env);
  if (tokenUrl !== undefined) {
    return `the spec came from a URL, so its OAuth token URL (${tokenUrl}) is screened for internal addresses, which ${on}'s fetch cannot do: generate from a saved copy of the spec, or use the Node server`;
  }
  return undefined;
}

/**
 * Traces go as OTLP/HTTP JSON here, every call recorded unless its parent was not sampled
 * (observe/telemetry-web.ts): another protocol or sampler asked for is refused, not dropped.
 */
function otlpProblem(env: Record<string, string | undefined>, on: PlatformName): string | undefined {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const sampler = env.OTEL_TRACES_SAMPLER?.trim();
  if (sampler && sampler !== 'parentbased_always_on') {
    return `OTEL_TRACES_SAMPLER=${sampler.slice(0, 40)}: ${on} samples as parentbased_always_on only: unset it, or use the Node server`;
  }
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const asked = env[variable]?.trim();
  if (!asked || asked === 'http/json') return undefined;
  return `${variable}=${asked.slice(0, 40)}: ${on} exports traces as OTLP/HTTP JSON only: set it to http/json, or unset it`;
}

/**
 * The token URL of a client credentials scheme the server will use (its client id is set) that a
 * spec read from a URL named outside its own origin: on Node checked before each token request.
 */
function unscreenedTokenUrl(table: ToolTable, env: Record<string, string | undefined>): string | undefined {
  for (const [key, scheme] of Object.entries(table.auth)) {
    const rule = screeningOfScheme(table, key);
    if (rule === undefined || scheme.type !== 'oauth2' || scheme.clientCredentials === undefined) continue;
    if (!env[scheme.env.clientId ?? '']) continue;
    const tokenUrl = scheme.clientCredentials.tokenUrl;
    const origin = URL.canParse(tokenUrl) ? new URL(tokenUrl).origin : undefined;
    if (origin !== rule.trustedOrigin) return tokenUrl.split('?')[0];
  }
  return undefined;
}

/**
 * The APIs whose spec came from a URL, each with the variable that chooses its upstream instead
 * of its screened servers: API_BASE_URL for a server of one API, `<NAMESPACE>_BASE_URL` for each of several.
 */
function screenedApis(table: ToolTable): { namespace?: string; variable: string }[] {
  if (table.apis === undefined) return table.publicServers === undefined ? [] : [{ variable: 'API_BASE_URL' }];
  return Object.entries(table.apis).flatMap(([namespace, api]) =>
    api.publicServers === undefined ? [] : [{ namespace, variable: api.baseUrlEnv }],
  );
}

/**
 * What of OAuth a platform serves: the resource server with another authorization server, at
 * MCP_PUBLIC_URL, and its token exchange (a POST and a cache in memory, as on Node); this server's
 * own sign-in (--oauth-api-client-id) with the platform's token store.
 */
function oauthProblem(config: ServerConfig, input: WebServerInput): string | undefined {
  const oauth = config.oauth;
  const on = input.platform;
  if (oauth === undefined) return undefined;
  if (oauth.publicUrl === undefined) {
    return `MCP_OAUTH_ISSUER on ${on} needs MCP_PUBLIC_URL, this server's URL as clients reach it: tokens are checked as issued for it`;
  }
  if (oauth.signIn === undefined) return undefined;
  // A call then asks the client to open a link (URL elicitation): a 2025 client answers it within a
  // session, which a platform keeps none of, and the 2026-07-28 way is not proven there yet.
  if (oauth.tokenCheck !== 'self') {
    return `linking API accounts (MCP_OAUTH_ISSUER with MCP_OAUTH_API_CLIENT_ID) is not served on ${on} yet: use the Node server, or drop MCP_OAUTH_ISSUER to make this server the authorization server`;
  }
  return tokenStoreProblem(input, oauth.signIn.store);
}

/** The token store to use on each platform, for the message that names it: its own, or Redis where it runs Node. */
const PLATFORM_TOKEN_STORES: Record<Exclude<PlatformName, 'node'>, string> = {
  cloudflare: 'durable-object:<BINDING> (or workers-kv:<BINDING>)',
  deno: 'deno-kv',
  lambda: 'redis://… (or rediss://…)',
  vercel: 'redis://… (or rediss://…)',
};

/** The token store of --oauth-api-client-id where it runs: the platform's own, there, with its key. */
function tokenStoreProblem(input: WebServerInput, store: { location: string; keys: string }): string | undefined {
  const own = PLATFORM_TOKEN_STORES[input.platform];
  const redisHere = input.platform === 'lambda' || input.platform === 'vercel';
  if (store.location === 'file' || (/^rediss?:/i.test(store.location) && !redisHere)) {
    const servedBy = store.location === 'file' ? 'the Node server only' : 'the Node server, lambda and vercel only';
    return `MCP_TOKEN_STORE=${store.location === 'file' ? 'file' : 'redis://…'} is served by ${servedBy}: on ${input.platform} set MCP_TOKEN_STORE=${own}`;
  }
  return tokenStoreProblemOn(store, input.platform) ?? platformStoreMissing(input, 'MCP_TOKEN_STORE', store.location);
}

/** A platform store MCP_OPERATION_STORE names that is not there: an unbound KV namespace, Deno without --unstable-kv. */
function operationStoreProblem(input: WebServerInput, store: ServerConfig['operationStore']): string | undefined {
  if (store === undefined) return undefined;
  return storeProblem(store, input.platform) ?? platformStoreMissing(input, 'MCP_OPERATION_STORE', store.location);
}

/** The store `variable` names, where the platform should hold it: an unbound KV namespace, Deno without --unstable-kv. */
function platformStoreMissing(input: WebServerInput, variable: string, location: string): string | undefined {
  const binding = location.startsWith('workers-kv:') ? location.slice('workers-kv:'.length) : undefined;
  if (binding !== undefined && typeof (input.bindings?.[binding] as { get?: unknown } | undefined)?.get !== 'function') {
    return `${variable}=${location}: no KV namespace is bound as ${binding}; add it to kv_namespaces in wrangler.jsonc`;
  }
  const object = location.startsWith('durable-object:') ? location.slice('durable-object:'.length) : undefined;
  if (object !== undefined && typeof (input.bindings?.[object] as { idFromName?: unknown } | undefined)?.idFromName !== 'function') {
    return `${variable}=${location}: no Durable Object is bound as ${object}; add it to durable_objects in wrangler.jsonc`;
  }
  const deno = (globalThis as { Deno?: { openKv?: unknown } }).Deno;
  if (location.startsWith('deno-kv') && typeof deno?.openKv !== 'function') {
    return `${variable}=${location}: Deno KV needs Deno started with --unstable-kv (deno.json's start task)`;
  }
  return undefined;
}

/**
 * A 2025-era POST served without a session (Node's --stateless): a server
 * instance and a transport for this one exchange, as the SDK's stateless fallback does, but
 * answered in JSON, one write rather than an SSE stream's three (as Node's sessions answer).
 */
async function answerOnce(serving: Serving, config: ServerConfig, request: Request, options: HandleRequestOptions): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: config.maxRequestBytes,
  });
  const server = serving.factory('request');
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, options);
  } finally {
    // A JSON answer is whole once given: nothing of the exchange is left to send. Closing the
    // instance closes its transport.
    void server.close();
  }
}

/**
 * A 2025-era session's stream (GET) or end (DELETE): there are no sessions here, as under
 * --stateless on Node; said in words rather than the SDK's bare 405. Node and Cloudflare keep
 * sessions (sessions-memory.ts, sessions-durable.ts), unless MCP_STATELESS, or on Cloudflare a
 * wrangler.jsonc that binds no MCP_SESSIONS.
 */
function noSessions(platform: PlatformName): Response {
  const stateless =
    platform === 'node' ? 'this server runs with --stateless' : `on ${platform} this server is stateless (as with --stateless)`;
  return jsonRpcRefusal(
    405,
    -32000,
    `Method not allowed: ${stateless}: it keeps no sessions, so there is no stream to open or close; POST each request`,
    { allow: 'POST' },
  );
}

/**
 * The summary as served here: without tasks where the platform ends the work with the answer,
 * said once; long-running operations are then followed within the call and by their handle.
 * Workers' waitUntil is no way out: it keeps work going ~30 s after the answer, and a task
 * follows its operation for its ttl (an hour by default).
 */
function servedSummary(input: WebServerInput, log: Logger): TableSummary {
  if (!input.summary.offers.tasks || !platform().answerEndsWork) return input.summary;
  const why =
    input.platform === 'cloudflare'
      ? "waitUntil keeps a request's work going only ~30 s after its answer, short of a task's ttl"
      : "it stops a request's work once it is answered";
  log.info(
    `tasks are not offered on ${input.platform}: ${why}; long-running operations are followed within the call (MCP_OPERATION_WAIT) and by get_operation_status`,
  );
  return { ...input.summary, offers: { ...input.summary.offers, tasks: false } };
}
