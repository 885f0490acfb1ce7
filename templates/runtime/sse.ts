// Legacy HTTP+SSE (protocol 2024-11-05): GET /sse opens the stream, POST /messages?sessionId=
// carries client messages. Kept in its own module so that the deprecated server-legacy
// package is loaded only when this transport is chosen, and can be dropped in one place.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { ServerConfig } from './config.js';
import { jsonRpcError, listen } from './http-common.js';
import type { Logger } from './log.js';
import type { ServerFactory } from './server.js';

export async function startSse(factory: ServerFactory, config: ServerConfig, log: Logger): Promise<void> {
  const sessions = new Map<string, SSEServerTransport>();

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      transport.onclose = () => sessions.delete(transport.sessionId);
      res.on('close', () => void transport.close());
      await factory().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return jsonRpcError(res, 404, -32001, 'Session not found');
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > config.maxRequestBytes) return jsonRpcError(res, 413, -32000, 'Request body too large');
      return transport.handlePostMessage(req, res);
    }
    return jsonRpcError(res, 404, -32601, `Not found: ${req.method} ${url.pathname} (use GET /sse and POST /messages)`);
  };

  await listen(config, log, route, async () => {
    await Promise.allSettled([...sessions.values()].map((t) => t.close()));
  }, 'serving MCP (HTTP+SSE) at /sse and /messages');
}
