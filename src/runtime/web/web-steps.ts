// The steps of a request to the web handler, in the order they run, each answering the request
// (a Response) or passing it on (undefined), written against web-standard Request and Response:
// every platform's rules, Node's included (http/listener.ts serves this core).

import { validateHostHeader, type AuthInfo } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../start/config.js';
import { isLoopback } from '../start/config.js';
import { guardedNames } from '../http/host-names.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../contract/limits.js';
import { equalBytes, latin1Bytes, sha256 } from '../start/crypto.js';

/** What the steps learnt of a request, for the MCP handler at the end. */
export interface WebContext {
  /** The client's IP address, as far as the platform tells it ('unknown' otherwise). */
  address: string;
  /** The caller's verified token (OAuth). */
  auth?: AuthInfo;
  /** The parsed JSON body of a POST. */
  body?: unknown;
  /** The CORS headers of the answer (a listed Origin): a transport that answers outside the core (passOn) sets them itself. */
  corsHeaders?: Record<string, string>;
}

/**
 * Endpoints written as web handlers (the OAuth sign-in's): `answer` answers a request to a path
 * `serves` names.
 */
export interface WebEndpoints {
  serves(path: string): boolean;
  /** `address`: the client's IP address, as far as the platform tells it. */
  answer(request: Request, url: URL, address: string): Promise<Response>;
}

export type WebStep = (request: Request, url: URL, context: WebContext) => Response | undefined | Promise<Response | undefined>;

/** A JSON-RPC error as the Node server answers one (http/answer.ts). */
export function jsonRpcRefusal(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });
}

/** GET /healthz: the platform's probe, before the guard and the token (it comes with neither); 503 once draining (Node, drain.ts). */
export function health(request: Request, url: URL, draining: () => boolean): Response | undefined {
  if (url.pathname !== '/healthz' || request.method !== 'GET') return undefined;
  return draining() ? Response.json({ status: 'draining' }, { status: 503 }) : Response.json({ status: 'ok' });
}

/**
 * Host and Origin must name this server (DNS-rebinding protection, which the MCP transport spec
 * asks of local servers): loopback always, a deployed name only when listed in MCP_ALLOWED_HOSTS.
 */
export function hostOriginGuard(config: Pick<ServerConfig, 'allowedHosts' | 'allowedOrigins' | 'corsOrigins' | 'oauth'>): WebStep {
  const names = guardedNames(config);
  return (request) => {
    const host = request.headers.get('host');
    if (!validateHostHeader(host, names.hosts).ok) {
      return jsonRpcRefusal(403, -32000, `Invalid Host header: ${host ?? '(none)'}; list this server's public name in MCP_ALLOWED_HOSTS`);
    }
    const origin = request.headers.get('origin');
    if (origin !== null && names.origins !== undefined && !names.origins.includes(originHostname(origin))) {
      return jsonRpcRefusal(403, -32000, `Invalid Origin header: ${origin}`);
    }
    return undefined;
  };
}

const originHostname = (origin: string): string => {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
};

/**
 * A server reached beyond loopback lends the API's credentials to whoever reaches it: without a
 * token (or MCP_ALLOW_UNAUTHENTICATED) it answers nobody there, as the Node server refuses to
 * start on a public interface.
 */
export function refuseOpenServer(config: Pick<ServerConfig, 'authToken' | 'oauth' | 'allowUnauthenticated'>): WebStep {
  if (config.authToken !== undefined || config.oauth !== undefined || config.allowUnauthenticated) return () => undefined;
  return (_request, url) =>
    isLoopback(url.hostname)
      ? undefined
      : jsonRpcRefusal(
          403,
          -32001,
          'This server has no MCP_AUTH_TOKEN: set one as a secret of the platform (or MCP_ALLOW_UNAUTHENTICATED=true to serve anyone)',
        );
}

/** One shared bearer token (RFC 6750), compared in constant time over digests; without one every request passes. */
export function bearerAuth(token: string | undefined): WebStep {
  if (token === undefined) return () => undefined;
  const expected = sha256(latin1Bytes(token));
  return (request) => {
    const given = /^Bearer (.*)$/is.exec(request.headers.get('authorization') ?? '')?.[1];
    if (given !== undefined && equalBytes(sha256(latin1Bytes(given)), expected)) return undefined;
    return jsonRpcRefusal(401, -32001, 'Unauthorized: send Authorization: Bearer <token>', {
      'www-authenticate': given === undefined ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"',
    });
  };
}

const isJson = (request: Request) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(request.headers.get('content-type') ?? '');

/**
 * A POST's body read within `maxBytes`, checked for depth before it is parsed (a body nested a
 * million deep would stall JSON.parse), and kept for the next steps and
 * the MCP handler, which then reads nothing itself.
 */
export function jsonBody(maxBytes: number): WebStep {
  return async (request, _url, context) => {
    if (request.method !== 'POST') return undefined;
    if (!isJson(request)) return jsonRpcRefusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const text = await readText(request, maxBytes);
    if (text === undefined) return jsonRpcRefusal(413, -32000, `Request body too large (more than ${maxBytes} bytes)`);
    if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
      return jsonRpcRefusal(400, -32600, `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    try {
      context.body = JSON.parse(text);
    } catch {
      return jsonRpcRefusal(400, -32700, 'Parse error: the body is not valid JSON');
    }
    return undefined;
  };
}

/**
 * A request's own way to its body's bytes within a limit, where a platform has one cheaper than
 * a web stream (Node: straight from the socket, http/node-web.ts); undefined past the limit.
 */
export const READ_BODY_WITHIN = Symbol.for('mcp-gen.readBodyWithin');
interface DirectBody {
  [READ_BODY_WITHIN]?: (maxBytes: number) => Promise<Uint8Array | undefined>;
}

const utf8 = new TextDecoder();

/** The body of a Request (or a Response) as text, or undefined past `maxBytes` (the rest is not read). */
export async function readText(request: Pick<Request, 'headers' | 'body'>, maxBytes: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) return undefined;
  const direct = (request as DirectBody)[READ_BODY_WITHIN];
  if (direct !== undefined) {
    const bytes = await direct.call(request, maxBytes);
    return bytes === undefined ? undefined : utf8.decode(bytes);
  }
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return utf8.decode(joined);
}

/**
 * CORS is off unless origins are listed (--cors-origins): browsers then may call the endpoints
 * from those origins and read Mcp-Session-Id. A listed Origin's preflight is answered here, and
 * every other answer to it carries the headers.
 */
export function cors(origins: string[]): (request: Request) => { preflight?: Response; headers?: Record<string, string> } {
  if (origins.length === 0) return () => ({});
  const all = origins.includes('*');
  return (request) => {
    const origin = request.headers.get('origin');
    if (!origin || !(all || origins.includes(origin))) return {};
    const headers = {
      'access-control-allow-origin': all ? '*' : origin,
      vary: 'Origin',
      'access-control-expose-headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
    };
    if (request.method !== 'OPTIONS') return { headers };
    const preflight = {
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
      'access-control-max-age': '600',
    };
    return { preflight: new Response(null, { status: 204, headers: { ...headers, ...preflight } }) };
  };
}

/** `response` with `headers` added (a fetched or SDK-made Response may have immutable headers). */
export function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  if (headers === undefined) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
