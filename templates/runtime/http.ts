// Streamable HTTP at /mcp. 2026-07-28 clients are served statelessly by the SDK's
// createMcpHandler; 2025-era clients get a session (Mcp-Session-Id) with its own server
// instance and transport, so that two clients never share protocol state.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isJsonContentType, isLegacyRequest } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from './config.js';
import { jsonRpcError, listen } from './http-common.js';
import type { Logger } from './log.js';
import type { ServerFactory } from './server.js';

export async function startHttp(factory: ServerFactory, config: ServerConfig, log: Logger): Promise<void> {
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: config.maxRequestBytes,
    onerror: (error) => log.debug(`mcp: ${error.message}`),
  });
  const serveModern = toNodeHandler(modern);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (url.pathname !== '/mcp') return jsonRpcError(res, 404, -32601, `Not found: ${url.pathname} (the MCP endpoint is /mcp)`);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) return jsonRpcError(res, 404, -32001, 'Session not found');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return serveModern(req, res);
    if (!isJsonContentType(req.headers['content-type'] ?? '')) {
      return jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    let request: Request;
    try {
      request = await toWebRequest(req, undefined, { maxRequestBodySize: config.maxRequestBytes });
    } catch (error) {
      if ((error as { status?: number }).status === 413) return jsonRpcError(res, 413, -32000, 'Request body too large');
      throw error;
    }
    const text = await request.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    }
    if (!(await isLegacyRequest(request, body))) return serveModern(req, res, body);

    // A 2025-era client without a session: only `initialize` may open one.
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: config.maxRequestBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        log.debug(`session ${id} opened (${sessions.size} open)`);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await factory().connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await transport.close(); // not an initialize: nothing to keep
  };

  await listen(config, log, route, async () => {
    await Promise.allSettled([modern.close(), ...[...sessions.values()].map((t) => t.close())]);
  }, 'serving MCP (Streamable HTTP) at /mcp');
}
