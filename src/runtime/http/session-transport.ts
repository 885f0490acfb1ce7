// A 2025-era session's transport on node:http: JSON unless the call may talk
// (web/split-session-transport.ts), over the SDK's node:http transport. The session itself is
// checked before it sees the request (streamable.ts: its id and its owner).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/node';
import { SplitSessionTransport, type StreamsMidCall } from '../web/split-session-transport.js';

export type { StreamsMidCall } from '../web/split-session-transport.js';

export class SessionTransport extends SplitSessionTransport<NodeStreamableHTTPServerTransport> {
  constructor(options: Omit<StreamableHTTPServerTransportOptions, 'enableJsonResponse'>, streams: StreamsMidCall) {
    super(
      (use) =>
        use === 'session'
          ? new NodeStreamableHTTPServerTransport({ ...options, enableJsonResponse: true })
          : new NodeStreamableHTTPServerTransport({
              sessionIdGenerator: undefined,
              enableJsonResponse: false,
              maxRequestBodySize: options.maxRequestBodySize,
            }),
      streams,
    );
  }

  /** A request of this session (or the initialize that opens it). */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!this.answersAlone(req.method, body)) return this.session.handleRequest(req, res, body);
    const alone = await this.streamTransport();
    res.once('close', () => this.endAlone(alone));
    await alone.handleRequest(req, res, body);
  }
}
