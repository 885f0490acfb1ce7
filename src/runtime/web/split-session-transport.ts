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
// sent while it runs) go back through it. Written over any SDK transport; its side that takes
// web Requests (WebSessionTransport, sessions-durable.ts) serves every platform's sessions,
// Node's in memory included.

import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

type ScopeChallengeResolver = Parameters<WebStandardStreamableHTTPServerTransport['setScopeChallengeResolver']>[0];

/** Whether a POST's body may have the server send the client something before its result. */
export type StreamsMidCall = (body: unknown) => boolean;

/** What this needs of an SDK server transport, on either side. */
export interface StreamableTransport extends Transport {
  setSupportedProtocolVersions(versions: string[]): void;
  setScopeChallengeResolver(resolver: ScopeChallengeResolver): void;
}

/** Makes the session's own transport ('session', answering in JSON) or one for a POST alone ('alone', on SSE). */
export type TransportMaker<Inner> = (use: 'session' | 'alone') => Inner;

export class SplitSessionTransport<Inner extends StreamableTransport> implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  protected readonly session: Inner;
  /** The requests being answered on their own stream, by id, with the transport that answers each. */
  private readonly answeredAlone = new Map<RequestId, Inner>();
  private versions: string[] | undefined;
  private scopeChallenge: ScopeChallengeResolver | undefined;

  constructor(
    private readonly make: TransportMaker<Inner>,
    protected readonly streams: StreamsMidCall,
  ) {
    this.session = make('session');
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

  /** Whether a request goes to its own SSE transport: a POST of an open session whose call may stream. */
  protected answersAlone(method: string | undefined, body: unknown): boolean {
    return method === 'POST' && this.session.sessionId !== undefined && this.streams(body);
  }

  /** A started transport for one POST, answering it on its own SSE stream; what it reads goes to this session's server. */
  protected async streamTransport(): Promise<Inner> {
    const alone = this.make('alone');
    if (this.versions !== undefined) alone.setSupportedProtocolVersions(this.versions);
    if (this.scopeChallenge !== undefined) alone.setScopeChallengeResolver(this.scopeChallenge);
    alone.onerror = (error) => this.onerror?.(error);
    alone.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.answeredAlone.set(message.id, alone);
      this.onmessage?.(message, extra);
    };
    await alone.start();
    return alone;
  }

  /** Once a POST's own stream has ended: its transport is forgotten and closed. */
  protected endAlone(alone: Inner): void {
    for (const [id, transport] of this.answeredAlone) if (transport === alone) this.answeredAlone.delete(id);
    void alone.close();
  }
}
