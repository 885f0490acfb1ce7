// A 2025-era Streamable HTTP session as one transport for its server instance, answering each
// POST the cheaper way that still carries it: one application/json body, unless its call may
// send the client something before its result (a question, an account link, progress), which
// travels on the call's own SSE stream. Decided per request: a session of a table with one
// long-running operation still lists its tools, and makes its plain calls, in JSON.
//
// The SDK's transport chooses JSON or SSE once, for all its POSTs (enableJsonResponse). So the
// session's own transport (initialize, the GET stream, DELETE, and every POST that does not
// stream) answers in JSON, and a POST that may stream is answered by an SSE transport made for
// that request alone, whose messages reach the same server and whose answers (and the messages
// sent while it runs) go back through it. The session itself is checked before either sees the
// request (streamable.ts: its id and its owner).

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/node';

type ScopeChallengeResolver = Parameters<NodeStreamableHTTPServerTransport['setScopeChallengeResolver']>[0];

/** Whether a POST's body may have the server send the client something before its result. */
export type StreamsMidCall = (body: unknown) => boolean;

export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly session: NodeStreamableHTTPServerTransport;
  /** The requests being answered on their own stream, by id, with the transport that answers each. */
  private readonly answeredAlone = new Map<RequestId, NodeStreamableHTTPServerTransport>();
  private versions: string[] | undefined;
  private scopeChallenge: ScopeChallengeResolver | undefined;

  constructor(
    private readonly options: Omit<StreamableHTTPServerTransportOptions, 'enableJsonResponse'>,
    private readonly streams: StreamsMidCall,
  ) {
    this.session = new NodeStreamableHTTPServerTransport({ ...options, enableJsonResponse: true });
  }

  get sessionId(): string | undefined {
    return this.session.sessionId;
  }

  async start(): Promise<void> {
    this.session.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.session.onerror = (error) => this.onerror?.(error);
    this.session.onclose = () => this.onclose?.();
    await this.session.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const id = answer ? message.id : options?.relatedRequestId;
    const alone = id === undefined ? undefined : this.answeredAlone.get(id);
    if (alone === undefined) return this.session.send(message, options);
    if (answer) this.answeredAlone.delete(id as RequestId);
    return alone.send(message, options);
  }

  close(): Promise<void> {
    return this.session.close();
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.versions = versions;
    this.session.setSupportedProtocolVersions(versions);
  }

  setScopeChallengeResolver(resolver: ScopeChallengeResolver): void {
    this.scopeChallenge = resolver;
    this.session.setScopeChallengeResolver(resolver);
  }

  /** A request of this session (or the initialize that opens it). */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method !== 'POST' || this.session.sessionId === undefined || !this.streams(body)) {
      return this.session.handleRequest(req, res, body);
    }
    const alone = this.streamTransport();
    await alone.start();
    res.once('close', () => {
      for (const [id, transport] of this.answeredAlone) if (transport === alone) this.answeredAlone.delete(id);
      void alone.close();
    });
    await alone.handleRequest(req, res, body);
  }

  /** A transport for one POST, answering it on its own SSE stream; what it reads goes to this session's server. */
  private streamTransport(): NodeStreamableHTTPServerTransport {
    const alone = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: false,
      maxRequestBodySize: this.options.maxRequestBodySize,
    });
    if (this.versions !== undefined) alone.setSupportedProtocolVersions(this.versions);
    if (this.scopeChallenge !== undefined) alone.setScopeChallengeResolver(this.scopeChallenge);
    alone.onerror = (error) => this.onerror?.(error);
    alone.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.answeredAlone.set(message.id, alone);
      this.onmessage?.(message, extra);
    };
    return alone;
  }
}
