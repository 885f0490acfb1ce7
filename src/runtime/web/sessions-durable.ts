// 2025-era Streamable HTTP sessions on Cloudflare, each kept by a Durable Object: an isolate
// answers any request and forgets it, an object is one place a session's requests all reach.
// The Worker checks every request (web-server.ts: Host/Origin, the token, the body, the scopes)
// and forwards a session's to its object with what it learnt; the object serves them with the
// SDK's web-standard transport, stateful, its session id being the object's own id. Requests
// without a session (2026-07-28, and 2025-era requests other than initialize) stay stateless in
// the Worker.

import {
  classifyInboundRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type HandleRequestOptions,
  type WebStandardStreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/server';
import { callerIdentity } from '../http/sessions.js';
import type { ServerFactory } from '../mcp/server-instances.js';
import type { ServerConfig } from '../start/config.js';
import type { Logger } from '../start/log.js';
import { jsonRpcRefusal, type WebContext } from './web-steps.js';
import { SplitSessionTransport, type StreamsMidCall } from './split-session-transport.js';

/** The Durable Object namespace bound as MCP_SESSIONS (wrangler.jsonc), as far as the routing uses it. */
export interface SessionObjects {
  newUniqueId(): { toString(): string };
  idFromString(id: string): { toString(): string };
  get(id: { toString(): string }): SessionStub;
  /**
   * Objects in this process (sessions-memory.ts): a request is handed to `serve` with what was
   * learnt of it as it is, where `fetch` would carry that in a header and the parsed body as JSON
   * again, to be read back. (Not asked of the stub: a Durable Object's stub answers any name.)
   */
  readonly inProcess?: true;
}

/** A session's object as the routing reaches it. */
interface SessionStub {
  fetch(request: Request): Promise<Response>;
  serve?(request: Request, learnt: Learnt): Promise<Response>;
}

/** What a session's object is given by the platform: its id, and its alarm (the idle timer). */
export interface SessionObjectState {
  id: { toString(): string };
  storage: { setAlarm(scheduledTime: number): Promise<void>; deleteAlarm(): Promise<void> };
  /** Told when the session ends (DELETE, idle, a failed initialize): a store in memory then forgets the object (sessions-memory.ts). */
  ended?(): void;
}

/** The object's handlers, which the Durable Object class of the Worker's entry calls. */
export interface SessionObjectHandlers {
  fetch(request: Request): Promise<Response>;
  /** The request with what the Worker learnt of it, in this process. */
  serve(request: Request, learnt: Learnt): Promise<Response>;
  alarm(): Promise<void>;
  /** Ends the session now, whatever it is doing: the server is stopping. */
  close?(): Promise<void>;
}

/**
 * What the Worker learnt of a forwarded request, in a header it always sets itself (a client's
 * header of that name is overwritten): the object is reachable only through the Worker's binding.
 */
const FORWARDED = 'x-mcp-gen-session';

/** What the Worker learnt of a request, as the object uses it. */
export interface Learnt {
  opens: boolean;
  address: string;
  auth: AuthInfo | undefined;
  /** A POST's parsed body. */
  body?: unknown;
}

interface Forwarded {
  /** A 2025-era initialize, sent to a new object: the only request that opens a session. */
  opens: boolean;
  /** The client's address, for a cap on the sessions one client opens (sessions-memory.ts). */
  address?: string;
  auth?: Omit<AuthInfo, 'resource'> & { resource?: string };
}

/**
 * The Worker's side: a request of a session goes to its object, a 2025-era initialize to a new
 * one; undefined for a request served statelessly here.
 */
export function routeToSession(objects: SessionObjects, request: Request, context: WebContext): Promise<Response> | undefined {
  const sessionId = request.headers.get('mcp-session-id');
  if (sessionId !== null) {
    const id = objectId(objects, sessionId);
    return id === undefined ? Promise.resolve(sessionNotFound()) : deliver(objects, id, request, context, false);
  }
  if (request.method === 'GET' || request.method === 'DELETE') return Promise.resolve(sessionRequired(request.method));
  if (!opensSession(request, context.body)) return undefined;
  return deliver(objects, objects.newUniqueId(), request, context, true);
}

/** To an object in this process as it is; to a Durable Object forwarded, with what was learnt in a header. */
function deliver(objects: SessionObjects, id: { toString(): string }, request: Request, context: WebContext, opens: boolean) {
  const stub = objects.get(id);
  if (objects.inProcess !== true || stub.serve === undefined) return stub.fetch(forwarded(request, context, opens));
  const learnt: Learnt = { opens, address: context.address ?? 'unknown', auth: context.auth };
  if (request.method === 'POST') learnt.body = context.body;
  return stub.serve(request, learnt);
}

/** The object a session id names, or undefined for one no object of this namespace could have given. */
function objectId(objects: SessionObjects, sessionId: string): { toString(): string } | undefined {
  try {
    return objects.idFromString(sessionId);
  } catch {
    return undefined;
  }
}

/** Whether a POST is a 2025-era initialize, as the SDK's own classifier (createMcpHandler's) decides the era. */
function opensSession(request: Request, body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'initialize' && isLegacyPost(request, body);
}

/** Whether a request is a 2025-era POST, as the SDK's own classifier (createMcpHandler's) decides the era. */
export function isLegacyPost(request: Request, body: unknown): boolean {
  if (request.method !== 'POST') return false;
  const header = (name: string) => request.headers.get(name) ?? undefined;
  const inbound = {
    httpMethod: 'POST',
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  };
  return classifyInboundRequest(inbound).kind === 'legacy';
}

/** The request as the object gets it: the parsed body again as JSON (the Worker read it), and what the Worker learnt. */
function forwarded(request: Request, context: WebContext, opens: boolean): Request {
  const headers = new Headers(request.headers);
  const auth = context.auth === undefined ? undefined : { ...context.auth, resource: context.auth.resource?.href };
  const forwarded: Forwarded = { opens, address: context.address, ...(auth !== undefined ? { auth } : {}) };
  headers.set(FORWARDED, JSON.stringify(forwarded));
  headers.delete('content-length');
  const body = request.method === 'POST' ? JSON.stringify(context.body) : null;
  return new Request(request.url, { method: request.method, headers, body });
}

/** What the Worker forwarded with a request, the token's resource a URL again, and its body parsed. */
async function readForwarded(request: Request): Promise<Learnt> {
  const { opens, address = 'unknown', auth } = JSON.parse(request.headers.get(FORWARDED) ?? '{"opens":false}') as Forwarded;
  const learnt: Learnt = { opens, address, auth: undefined };
  if (auth !== undefined) {
    const { resource, ...rest } = auth;
    learnt.auth = { ...rest, ...(resource !== undefined ? { resource: new URL(resource) } : {}) };
  }
  if (request.method === 'POST') learnt.body = JSON.parse(await request.text());
  return learnt;
}

/** An unknown, ended or foreign session: the client opens a new one (Streamable HTTP, "Session Management"). */
export const sessionNotFound = () => jsonRpcRefusal(404, -32001, 'Session not found');

const sessionRequired = (method: string) =>
  jsonRpcRefusal(
    400,
    -32000,
    `Bad Request: ${method} /mcp needs the Mcp-Session-Id header of a session; a 2025-era initialize without one opens a session`,
  );

type SessionSettings = Pick<ServerConfig, 'sessionIdleMs' | 'sseKeepAliveMs' | 'maxRequestBytes'>;

/**
 * The object's side: one session, opened by the initialize the Worker sends to a new object and
 * bound to its caller's identity (a token of anyone else finds no session, as on Node); ended by
 * DELETE, or by the alarm once unused for MCP_SESSION_IDLE_MS. An object Cloudflare evicts
 * forgets its session with its memory: its client is answered 404 and initializes again.
 */
export function sessionObject(
  state: SessionObjectState,
  serving: {
    factory: ServerFactory;
    config: SessionSettings;
    log: Logger;
    streams: () => Promise<StreamsMidCall>;
    /** A second GET stream: refused 409 by the SDK (Node), or replacing the first (Cloudflare: a client's drop is not seen). */
    secondStream?: 'conflict' | 'replace';
  },
): SessionObjectHandlers {
  return new DurableSession(state, serving.factory, serving.config, serving.log, serving.streams, serving.secondStream ?? 'replace');
}

class DurableSession implements SessionObjectHandlers {
  private transport: WebSessionTransport | undefined;
  private identity: string | undefined;
  private lastSeen = 0;
  /** Requests being answered, GET streams aside: a session busy with a call is not idle. */
  private busy = 0;

  constructor(
    private readonly state: SessionObjectState,
    private readonly factory: ServerFactory,
    private readonly config: SessionSettings,
    private readonly log: Logger,
    /** Which POSTs may talk (the table's service knows), asked as a session opens. */
    private readonly streams: () => Promise<StreamsMidCall>,
    private readonly secondStream: 'conflict' | 'replace',
  ) {}

  async fetch(request: Request): Promise<Response> {
    return this.serve(request, await readForwarded(request));
  }

  async serve(request: Request, learnt: Learnt): Promise<Response> {
    if (learnt.opens && this.transport === undefined) return this.open(request, learnt);
    // Another caller's session answers as an unknown one: nothing tells it the id exists.
    if (learnt.opens || this.transport === undefined || this.identity !== callerIdentity(learnt.auth)) return sessionNotFound();
    this.lastSeen = Date.now();
    // On Cloudflare a new GET replaces the session's stream (the SDK keeps one): the object is not told
    // when a client behind the Worker goes, so a client reconnecting after a drop would find it taken.
    if (request.method === 'GET' && this.secondStream === 'replace') this.transport.closeStandaloneSSEStream();
    if (request.method === 'GET') return this.transport.handleRequest(request, options(learnt));
    return this.answerBusy(this.transport, request, learnt);
  }

  /**
   * A request counted busy from when it enters until its answer's body has been sent or
   * cancelled: an answer the transport gives only once the call is done must not leave the
   * call running uncounted, for the alarm to end the session under it.
   */
  private async answerBusy(transport: WebSessionTransport, request: Request, learnt: Learnt) {
    this.busy++;
    const done = () => {
      this.busy--;
      this.lastSeen = Date.now();
    };
    let answer: Response;
    try {
      answer = await transport.handleRequest(request, options(learnt));
    } catch (error) {
      done();
      throw error;
    }
    return whenAnswered(answer, done);
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  /** Ends the session once unused for the idle time, or looks again when it may be. */
  async alarm(): Promise<void> {
    if (this.transport === undefined) return;
    const idleUntil = this.lastSeen + this.config.sessionIdleMs;
    if (this.busy === 0 && idleUntil <= Date.now()) {
      this.log.debug(`session ${this.state.id.toString()} idle: closed`);
      await this.transport.close();
      return;
    }
    await this.state.storage.setAlarm(Math.max(idleUntil, Date.now() + 1000));
  }

  private async open(request: Request, learnt: Learnt): Promise<Response> {
    const transport = new WebSessionTransport(
      {
        sessionIdGenerator: () => this.state.id.toString(),
        maxRequestBodySize: this.config.maxRequestBytes,
        keepAliveMs: this.config.sseKeepAliveMs,
      },
      await this.streams(),
    );
    transport.onerror = (error) => this.log.debug(`session: ${error.message}`);
    // DELETE, the idle alarm, or a failed initialize: the object forgets the session.
    transport.onclose = () => {
      if (this.transport === transport) this.transport = undefined;
      void this.state.storage.deleteAlarm();
      this.state.ended?.();
    };
    await this.factory('session').connect(transport);
    const answer = await transport.handleRequest(request, options(learnt));
    if (transport.sessionId === undefined) {
      await transport.close();
      return answer;
    }
    this.transport = transport;
    this.identity = callerIdentity(learnt.auth);
    this.lastSeen = Date.now();
    await this.state.storage.setAlarm(this.lastSeen + this.config.sessionIdleMs);
    this.log.debug(`session ${transport.sessionId} opened`);
    return answer;
  }
}

/** A session's transport over the SDK's web-standard one: JSON unless the call may talk (split-session-transport.ts). */
class WebSessionTransport extends SplitSessionTransport<WebStandardStreamableHTTPServerTransport> {
  constructor(options: Omit<WebStandardStreamableHTTPServerTransportOptions, 'enableJsonResponse'>, streams: StreamsMidCall) {
    super(
      (use) =>
        new WebStandardStreamableHTTPServerTransport(
          use === 'session'
            ? { ...options, enableJsonResponse: true }
            : { sessionIdGenerator: undefined, enableJsonResponse: false, maxRequestBodySize: options.maxRequestBodySize },
        ),
      streams,
    );
  }

  /** A request of this session (or the initialize that opens it). */
  async handleRequest(request: Request, options: HandleRequestOptions): Promise<Response> {
    if (!this.answersAlone(request.method, options.parsedBody)) return this.session.handleRequest(request, options);
    const alone = await this.streamTransport();
    return whenAnswered(await alone.handleRequest(request, options), () => this.endAlone(alone));
  }

  closeStandaloneSSEStream(): void {
    this.session.closeStandaloneSSEStream();
  }
}

/** The transport's options: the body the Worker checked and parsed, and the caller's token. */
function options({ body, auth }: Learnt): HandleRequestOptions {
  return { ...(body !== undefined ? { parsedBody: body } : {}), ...(auth !== undefined ? { authInfo: auth } : {}) };
}

/**
 * `answer` with `done` called once its body (an SSE stream) has ended or been cancelled. A JSON
 * answer is whole when the transport gives it (it waits for the call's result): done at once.
 */
function whenAnswered(answer: Response, done: () => void): Response {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    done();
  };
  if (answer.body === null || answer.headers.get('content-type')?.startsWith('application/json')) {
    once();
    return answer;
  }
  const reader = answer.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        once();
        throw error;
      }
      if (!read.done) return controller.enqueue(read.value);
      once();
      controller.close();
    },
    cancel(reason) {
      once();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}
