// Streamable HTTP at /mcp. 2026-07-28 clients are served statelessly by the SDK's
// createMcpHandler. 2025-era clients get a session (Mcp-Session-Id) with its own server
// instance and transport, so that two clients never share protocol state — unless
// --stateless, where every request is served on its own and any replica can answer it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyInboundRequest, createMcpHandler } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from './config.js';
import { jsonRpcError } from './http-answer.js';
import type { HttpEndpoints } from './http-endpoints.js';
import { claimSession, identityOf, releaseSession } from './http-sessions.js';
import type { Logger } from './log.js';
import type { ServerFactory } from './server.js';

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  lastSeen: number;
  /** Requests being answered, GET streams aside: a session busy with a call is not idle. */
  busy: number;
  /** The client address the session counts against (--max-sessions-per-client). */
  client: string;
  /** Who opened it (OAuth): requests of anyone else find no session. */
  identity: string | undefined;
}

/**
 * Which protocol era a POST belongs to, decided by the SDK's own classifier from the parsed
 * body and the standard headers, without building a web Request (isLegacyRequest would).
 */
function era(req: IncomingMessage, body: unknown): 'legacy' | 'modern' | 'reject' {
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

/**
 * `midCall`: some call may send the client something before its result, on the call's own stream:
 * a question (confirm.ts) or progress while it follows a long-running operation (long-running.ts).
 */
export function streamableEndpoints(factory: ServerFactory, config: ServerConfig, log: Logger, midCall = false): HttpEndpoints {
  // One instance per request: nothing it holds outlasts the request.
  const modern = createMcpHandler(() => factory('request'), {
    legacy: config.stateless ? 'stateless' : 'reject',
    maxRequestBodySize: config.maxRequestBytes,
    keepAliveMs: config.sseKeepAliveMs,
    onerror: (error) => log.debug(`mcp: ${error.message}`),
  });
  const serveModern = toNodeHandler(modern);
  const sessions = new Map<string, Session>();
  const drop = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    releaseSession(session.client);
  };

  // Sessions a client forgot to DELETE are closed after a quiet spell.
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - config.sessionIdleMs;
      for (const [id, session] of sessions) {
        // A busy session is not idle, however long its call takes: closing it would cut the
        // call off mid-way and leave its client without an answer.
        if (session.busy === 0 && session.lastSeen < cutoff) {
          log.debug(`session ${id} idle: closed`);
          void session.transport.close();
          drop(id);
        }
      }
    },
    Math.min(60_000, config.sessionIdleMs),
  );
  sweeper.unref();

  /**
   * A 2025-era POST served on its own (--stateless): a server instance and a transport for
   * this one exchange, as the SDK's stateless fallback does, but answered with JSON (see below).
   */
  const serveOnce = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
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
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean> => {
    if (url.pathname !== '/mcp') return false;
    if (config.stateless) {
      if (req.method === 'POST' && era(req, body) === 'legacy') await serveOnce(req, res, body);
      else await serveModern(req, res, body);
      return true;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // Another caller's session answers as an unknown one: nothing tells it the id exists.
      if (!session || session.identity !== identityOf(req)) {
        jsonRpcError(res, 404, -32001, 'Session not found');
        return true;
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
      return true;
    }
    if (req.method !== 'POST') {
      await serveModern(req, res);
      return true;
    }
    if (era(req, body) !== 'legacy') {
      await serveModern(req, res, body);
      return true;
    }
    const client = claimSession(req, res, config, sessions.size);
    if (client === undefined) return true;
    // A 2025-era client without a session: only `initialize` may open one.
    let opened = false;
    const transport = new NodeStreamableHTTPServerTransport({
      // `<replica>.<uuid>` lets a proxy route the session back to the replica that holds it.
      sessionIdGenerator: () => (config.replicaId === undefined ? randomUUID() : `${config.replicaId}.${randomUUID()}`),
      // A POST is answered with application/json rather than an SSE stream: this server sends
      // nothing before a call's result, so a stream would carry the same one message in three
      // socket writes (head, event, end) instead of one. Server-initiated messages still use
      // the GET stream. Linking API accounts, confirmations and long-running operations are the
      // exceptions: a call may ask the client to open a link or to confirm (elicitation), or tell
      // its progress, which travels on the call's own stream.
      enableJsonResponse: !midCall && !asksClientsMidCall(config),
      maxRequestBodySize: config.maxRequestBytes,
      keepAliveMs: config.sseKeepAliveMs,
      onsessioninitialized: (id) => {
        opened = true;
        sessions.set(id, { transport, lastSeen: Date.now(), busy: 0, client, identity: identityOf(req) });
        log.debug(`session ${id} opened (${sessions.size} open)`);
      },
      onsessionclosed: drop,
    });
    transport.onclose = () => {
      if (transport.sessionId) drop(transport.sessionId);
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
    return true;
  };

  return {
    describe: config.stateless ? 'Streamable HTTP at /mcp (stateless)' : 'Streamable HTTP at /mcp',
    handle,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([modern.close(), ...[...sessions.values()].map((s) => s.transport.close())]);
    },
  };
}

/** Whether a call may send the client a request before its result (linking an API account). */
function asksClientsMidCall(config: ServerConfig): boolean {
  return config.oauth?.signIn !== undefined && config.oauth.tokenCheck !== 'self';
}
