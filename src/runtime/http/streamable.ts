// Streamable HTTP at /mcp. 2026-07-28 clients are served statelessly by the SDK's
// createMcpHandler. 2025-era clients get a session (Mcp-Session-Id) with its own server
// instance and transport, so that two clients never share protocol state — unless
// --stateless, where every request is served on its own and any replica can answer it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  classifyInboundRequest,
  createMcpHandler,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import type { ServerConfig } from '../start/config.js';
import { jsonRpcError } from './answer.js';
import type { HttpEndpoints } from './endpoints.js';
import { claimSession, identityOf, releaseSession } from './sessions.js';
import type { Logger } from '../start/log.js';
import type { ServerFactory } from '../mcp/server.js';
import { SessionTransport, type StreamsMidCall } from './session-transport.js';
import { headerList, NodeExchange, withSignal } from './node-web.js';

interface Session {
  transport: SessionTransport;
  lastSeen: number;
  /** Requests being answered, GET streams aside: a session busy with a call is not idle. */
  busy: number;
  /** The client address the session counts against (--max-sessions-per-client). */
  client: string;
  /** Who opened it (OAuth): requests of anyone else find no session. */
  identity: string | undefined;
}

/**
 * Whether a POST is a 2025-era request, as the SDK's own classifier (createMcpHandler's) decides:
 * from the body's shape where that alone decides it, else by the classifier itself, from the
 * parsed body and the standard headers, without building a web Request (isLegacyRequest would).
 */
function isLegacy(req: IncomingMessage, body: unknown): boolean {
  return obviousEra(req, body) ?? classified(req, body) === 'legacy';
}

function classified(req: IncomingMessage, body: unknown): 'legacy' | 'modern' | 'reject' {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return classifyInboundRequest({
    httpMethod: req.method ?? 'POST',
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  }).kind;
}

/** The members a JSON-RPC request or notification may have: the SDK's schemas of them are strict. */
const MESSAGE_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The classifier's answer (legacy: true) for the two common shapes, at the cost of a few
 * property reads rather than its schema checks; undefined for anything else. A message with a
 * `method` and the 2026-07-28 `_meta` claim is never legacy (the classifier serves or rejects it
 * as modern), unless it is `initialize`, whose claim must also be valid. A well-formed request or
 * notification without `_meta` and with a 2025-era protocol version header, or none, is legacy.
 */
export function obviousEra(req: IncomingMessage, body: unknown): boolean | undefined {
  if (!isPlainObject(body) || typeof body.method !== 'string') return undefined;
  const params = body.params;
  const meta = isPlainObject(params) ? params._meta : undefined;
  if (isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta) return body.method === 'initialize' ? undefined : false;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return undefined;
  if (params !== undefined && (!isPlainObject(params) || params._meta !== undefined)) return undefined;
  if (body.jsonrpc !== '2.0' || !('id' in body ? typeof body.id === 'string' || Number.isSafeInteger(body.id) : true)) return undefined;
  for (const key in body) if (!MESSAGE_MEMBERS.has(key)) return undefined;
  return true;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the /mcp handler of one listener works with, made once by streamableEndpoints. */
interface Streamable {
  factory: ServerFactory;
  config: ServerConfig;
  log: Logger;
  /** Whether a session's POST is answered on a stream (see openSession). */
  streams: StreamsMidCall;
  /** 2026-07-28 requests, and any request under --stateless that is not a 2025-era POST. */
  serveModern: NodeHandler;
  /** The 2025-era sessions open, by id. */
  sessions: Map<string, Session>;
}

/**
 * `streamsMidCall`: whether a request may have the server send the client something before its
 * result, on the call's own stream: a question (confirm.ts) or progress while it follows a
 * long-running operation (long-running.ts).
 */
export function streamableEndpoints(
  factory: ServerFactory,
  config: ServerConfig,
  log: Logger,
  streamsMidCall: StreamsMidCall = () => false,
): HttpEndpoints {
  // Linking an API account may interrupt any call (links.ts).
  const streams: StreamsMidCall = asksClientsMidCall(config) ? (body) => callsATool(body) : streamsMidCall;
  // One instance per request: nothing it holds outlasts the request.
  const modern = createMcpHandler(() => factory('request'), {
    legacy: config.stateless ? 'stateless' : 'reject',
    maxRequestBodySize: config.maxRequestBytes,
    keepAliveMs: config.sseKeepAliveMs,
    onerror: (error) => log.debug(`mcp: ${error.message}`),
  });
  const endpoint: Streamable = { factory, config, log, streams, serveModern: nodeHandler(modern), sessions: new Map() };
  const sweeper = sweepIdleSessions(endpoint);
  return {
    describe: config.stateless ? 'Streamable HTTP at /mcp (stateless)' : 'Streamable HTTP at /mcp',
    handle: (req, res, url, body) => handleMcp(endpoint, req, res, url, body),
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([modern.close(), ...[...endpoint.sessions.values()].map((s) => s.transport.close())]);
    },
  };
}

/** A request to /mcp, by era and session: false for any other path. */
async function handleMcp(endpoint: Streamable, req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean> {
  if (url.pathname !== '/mcp') return false;
  if (endpoint.config.stateless) {
    if (req.method === 'POST' && isLegacy(req, body)) await serveOnce(endpoint, req, res, body);
    else await endpoint.serveModern(req, res, body);
    return true;
  }
  const sessionId = req.headers['mcp-session-id'];
  if (typeof sessionId === 'string') await serveInSession(endpoint, sessionId, req, res, body);
  else if (req.method !== 'POST') await endpoint.serveModern(req, res);
  else if (!isLegacy(req, body)) await endpoint.serveModern(req, res, body);
  else await openSession(endpoint, req, res, body);
  return true;
}

/** Sessions a client forgot to DELETE are closed after a quiet spell. */
function sweepIdleSessions({ sessions, config, log }: Streamable): NodeJS.Timeout {
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - config.sessionIdleMs;
      for (const [id, session] of sessions) {
        // A busy session is not idle, however long its call takes: closing it would cut the
        // call off mid-way and leave its client without an answer.
        if (session.busy === 0 && session.lastSeen < cutoff) {
          log.debug(`session ${id} idle: closed`);
          void session.transport.close();
          dropSession(sessions, id);
        }
      }
    },
    Math.min(60_000, config.sessionIdleMs),
  );
  sweeper.unref();
  return sweeper;
}

/** Forgets a session, and frees its place in its client's count. */
function dropSession(sessions: Map<string, Session>, id: string): void {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  releaseSession(session.client);
}

/**
 * A 2025-era POST served on its own (--stateless): a server instance and a transport for
 * this one exchange, as the SDK's stateless fallback does, but answered with JSON (see openSession).
 */
async function serveOnce({ factory, config }: Streamable, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: config.maxRequestBytes,
  });
  const server = factory('request');
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A request of an open session, counted busy while it is answered. */
async function serveInSession(
  endpoint: Streamable,
  sessionId: string,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const session = endpoint.sessions.get(sessionId);
  // Another caller's session answers as an unknown one: nothing tells it the id exists.
  if (!session || session.identity !== identityOf(req)) {
    jsonRpcError(res, 404, -32001, 'Session not found');
    return;
  }
  session.lastSeen = Date.now();
  if (req.method !== 'GET') {
    session.busy++;
    res.once('close', () => {
      session.busy--;
      session.lastSeen = Date.now();
    });
  }
  await session.transport.handleRequest(req, res, body);
}

/** A 2025-era client's POST without a session: only `initialize` opens one, within the client's share of sessions. */
async function openSession(endpoint: Streamable, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const { factory, config, log, sessions } = endpoint;
  const client = claimSession(req, res, config, sessions.size);
  if (client === undefined) return;
  let opened = false;
  // Each POST is answered with application/json rather than an SSE stream unless `streams` says
  // its call may send the client something first (http-session-transport.ts): a stream would
  // carry the same one message in three socket writes (head, event, end) instead of one.
  // Server-initiated messages use the GET stream.
  const transport = new SessionTransport(
    {
      // `<replica>.<uuid>` lets a proxy route the session back to the replica that holds it.
      sessionIdGenerator: () => (config.replicaId === undefined ? crypto.randomUUID() : `${config.replicaId}.${crypto.randomUUID()}`),
      maxRequestBodySize: config.maxRequestBytes,
      keepAliveMs: config.sseKeepAliveMs,
      onsessioninitialized: (id) => {
        opened = true;
        sessions.set(id, { transport, lastSeen: Date.now(), busy: 0, client, identity: identityOf(req) });
        log.debug(`session ${id} opened (${sessions.size} open)`);
      },
      onsessionclosed: (id) => dropSession(sessions, id),
    },
    endpoint.streams,
  );
  transport.onclose = () => {
    if (transport.sessionId) dropSession(sessions, transport.sessionId);
  };
  try {
    await factory('session').connect(transport);
    await transport.handleRequest(req, res, body);
  } finally {
    if (!opened) {
      releaseSession(client); // not an initialize (or it failed): nothing to keep
      await transport.close();
    }
  }
}

type WebHandler = ReturnType<typeof createMcpHandler>;
type NodeHandler = (req: IncomingMessage, res: ServerResponse, body?: unknown) => Promise<void>;

/**
 * The SDK's web-standard handler on node:http, as toNodeHandler serves it, for less CPU where
 * the pipeline has parsed the body of a POST: the web Request goes without a body (it is given
 * parsed, and the handler reads no other; its headers say what toWebRequest's would), and a
 * JSON answer is written in one piece (one write, with its length) rather than read as a
 * stream and sent chunked. Everything else, and whatever fails before the handler answers,
 * goes to toNodeHandler, which does the same again and answers as it does.
 */
function nodeHandler(handler: WebHandler): NodeHandler {
  const general = toNodeHandler(handler);
  return async (req, res, body) => {
    if (body === undefined || req.method !== 'POST') return general(req, res, body);
    const exchange = new NodeExchange(req, res);
    let response: Response;
    try {
      const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
      const options = { ...(authInfo !== undefined ? { authInfo } : {}), parsedBody: body };
      response = await handler.fetch(bodylessRequest(req, exchange.gone), options);
    } catch {
      return general(req, res, body);
    }
    await exchange.write(response);
  };
}

/** The web Request toWebRequest makes of a POST with a parsed body, without the body itself. */
function bodylessRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const url = `http://${first(req.headers['host']) ?? first(req.headers[':authority']) ?? 'localhost'}${req.url ?? '/'}`;
  return withSignal(new Request(url, { method: 'POST', headers: headerList(req, BODY_HEADERS) }), signal);
}

/**
 * What no longer describes a body handed over parsed. The client's Content-Length stays: it is
 * the body's true size, already held to the limit, and the handler given a parsed body reads none.
 */
const BODY_HEADERS = new Set(['content-encoding', 'transfer-encoding']);

/** Whether a call may send the client a request before its result (linking an API account). */
function asksClientsMidCall(config: ServerConfig): boolean {
  return config.oauth?.signIn !== undefined && config.oauth.tokenCheck !== 'self';
}

/** Whether a request, or a batch, has a tools/call. */
function callsATool(body: unknown): boolean {
  return Array.isArray(body) ? body.some(callsATool) : (body as { method?: unknown } | null)?.method === 'tools/call';
}
