// Legacy HTTP+SSE (protocol 2024-11-05): GET /sse opens the stream, POST /messages?sessionId=
// carries client messages. Kept in its own module so that the deprecated server-legacy
// package is loaded only when this transport is chosen, and can be dropped in one place.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { ServerConfig } from '../start/config.js';
import { jsonRpcError } from '../http/answer.js';
import type { HttpEndpoints } from '../http/endpoints.js';
import { claimSession, identityOf, releaseSession } from '../http/sessions.js';
import type { Logger } from '../start/log.js';
import type { ServerFactory } from '../mcp/server.js';

export function sseEndpoints(factory: ServerFactory, config: ServerConfig, log: Logger): HttpEndpoints {
  const sessions = new Map<string, SSEServerTransport>();
  /** Who opened each session (OAuth): POSTs of anyone else find no session. */
  const owners = new Map<string, string | undefined>();
  // Ids of the requests each session has not answered yet. Their POST is answered 202 at once
  // and the result goes out on the GET stream, so HTTP alone cannot tell that a call is in
  // flight: without this count, shutdown would close the streams under running calls.
  const unanswered = new Map<string, Set<string | number>>();
  /** Sessions whose `initialize` has been answered. */
  const initialized = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean> => {
    if (url.pathname === '/sse' && req.method === 'GET') {
      const client = claimSession(req, res, config, sessions.size);
      if (client === undefined) return true;
      // The replica in the endpoint's query lets a proxy route the POSTs to the stream's replica.
      const endpoint = config.replicaId === undefined ? '/messages' : `/messages?replica=${config.replicaId}`;
      const transport = new SSEServerTransport(endpoint, res);
      sessions.set(transport.sessionId, transport);
      owners.set(transport.sessionId, identityOf(req));
      const open = new Set<string | number>();
      unanswered.set(transport.sessionId, open);
      // nginx buffers a proxied response by default, and then the stream never delivers a byte.
      res.setHeader('x-accel-buffering', 'no');
      // A proxy cuts a stream silent for its read timeout (60 s in nginx); the client's
      // EventSource then reconnects to a new session, silently. A comment keeps it open.
      const keepAlive =
        config.sseKeepAliveMs > 0
          ? setInterval(() => res.writableEnded || res.write(': keep-alive\n\n'), config.sseKeepAliveMs)
          : undefined;
      keepAlive?.unref();
      transport.onclose = () => {
        clearInterval(keepAlive);
        if (sessions.delete(transport.sessionId)) releaseSession(client);
        unanswered.delete(transport.sessionId);
        initialized.delete(transport.sessionId);
        owners.delete(transport.sessionId);
      };
      res.on('close', () => void transport.close());
      await factory('session').connect(transport);
      trackRequests(transport, open, () => initialized.add(transport.sessionId));
      log.debug(`SSE session ${transport.sessionId} opened (${sessions.size} open)`);
      return true;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const sessionId = url.searchParams.get('sessionId') ?? '';
      const transport = sessions.get(sessionId);
      if (!transport || owners.get(sessionId) !== identityOf(req)) jsonRpcError(res, 404, -32001, 'Session not found');
      else if (!initialized.has(sessionId) && !beforeInitialize(body)) {
        // The server would answer it, on a session the client never set up: the case of a
        // stream cut by a proxy and silently reopened by the client's EventSource.
        jsonRpcError(
          res,
          400,
          -32600,
          'Session not initialized: send initialize first (the SSE stream was reopened? reconnect the client)',
        );
      } else await transport.handlePostMessage(req, res, body);
      return true;
    }
    return false;
  };

  return {
    describe: 'HTTP+SSE at /sse and /messages',
    handle,
    pendingCalls: () => [...unanswered.values()].reduce((n, open) => n + open.size, 0),
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    },
  };
}

/**
 * Keeps `open` as the ids of the requests the session has not answered yet, and calls
 * `onInitialized` once the answer to its initialize is sent.
 */
function trackRequests(transport: SSEServerTransport, open: Set<string | number>, onInitialized: () => void): void {
  let initializeId: string | number | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) {
      open.add(message.id);
      if (message.method === 'initialize') initializeId = message.id;
    }
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if ('result' in message && initializeId !== undefined && message.id === initializeId) onInitialized();
    try {
      await send(message, options);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined) open.delete(message.id);
    }
  };
}

/**
 * Requests that need no initialised session: initialize, ping, and server/discover (the v2
 * client's version probe, whose error answer makes it fall back to initialize). Notifications pass too.
 */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping', 'server/discover']);

function beforeInitialize(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).every(
    (m) => typeof m !== 'object' || m === null || !('id' in m) || !('method' in m) || BEFORE_INITIALIZE.has(String(m.method)),
  );
}
