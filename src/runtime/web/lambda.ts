// AWS Lambda behind a Function URL: each event (payload format 2.0) becomes a web Request for the
// web handler, and its Response the Function URL's answer. Where Lambda's Node.js runtime offers
// response streaming (its global `awslambda.streamifyResponse`; the Function URL's invoke mode
// RESPONSE_STREAM), the body is written to the client as the handler writes it, so that an SSE
// answer's notifications (progress) arrive before its result and no 6 MB cap of a buffered
// answer applies. Without it the answer is buffered whole (invoke mode BUFFERED), which the
// stateless handler allows: its streams end with the call.
// https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html
// https://docs.aws.amazon.com/lambda/latest/dg/config-rs-write-functions.html

import type { ConnectionInfo, WebServer } from './web-server.js';

/** The fields of a Function URL event (payload format 2.0) that make the request. */
export interface FunctionUrlEvent {
  rawPath: string;
  rawQueryString?: string;
  /** Lower-case names; a repeated header arrives joined with commas. */
  headers?: Record<string, string | undefined>;
  /** The Cookie header's pairs: a Function URL gives them apart from `headers`. */
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
  /** `sourceIp`: the caller's address, as the Function URL saw its connection. */
  requestContext: { domainName?: string; http: { method: string; sourceIp?: string } };
}

/** A buffered answer to a Function URL. */
interface FunctionUrlResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

/** What a streamed answer sends before its body: what a buffered one says besides its body. */
type StreamPrelude = Omit<FunctionUrlResult, 'body' | 'isBase64Encoded'>;

/** The response stream Lambda's runtime hands a streaming handler (a Node Writable). */
interface ResponseStream {
  write(chunk: Uint8Array | string): boolean;
  end(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
}

/** What Lambda's Node.js runtime puts on globalThis for response streaming. */
interface AwsLambdaGlobal {
  streamifyResponse(handler: (event: FunctionUrlEvent, stream: ResponseStream) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: ResponseStream, prelude: StreamPrelude): ResponseStream };
}

/** The function's `handler`: streamed where the runtime can stream, buffered elsewhere. */
export function functionUrlHandler(server: WebServer): unknown {
  const lambda = (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
  if (lambda?.streamifyResponse === undefined) return (event: FunctionUrlEvent) => buffered(server, event);
  return lambda.streamifyResponse(async (event, stream) => {
    const response = await server.fetch(requestOf(event), connectionOf(event));
    const out = lambda.HttpResponseStream.from(stream, preludeOf(response));
    // The prelude goes out with the first write: an empty body must still send it.
    out.write('');
    await writeBody(response, out);
  });
}

/** The event as a web Request: its host, the query as sent, the cookies back in their header. */
function requestOf(event: FunctionUrlEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  if (event.cookies !== undefined && event.cookies.length > 0) headers.set('cookie', event.cookies.join('; '));
  const host = headers.get('host') ?? event.requestContext.domainName ?? 'localhost';
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const method = event.requestContext.http.method;
  const body = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(event);
  return new Request(`https://${host}${event.rawPath}${query}`, { method, headers, ...(body === undefined ? {} : { body }) });
}

/** The caller, for what is paced per client address (registrations): not one pace for every caller. */
const connectionOf = (event: FunctionUrlEvent): ConnectionInfo => ({ remoteAddr: { hostname: event.requestContext.http.sourceIp } });

const bodyOf = (event: FunctionUrlEvent): string | Uint8Array | undefined =>
  event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;

/** Each chunk as the handler makes it, waiting while the client is slower (the stream's back-pressure). */
async function writeBody(response: Response, out: ResponseStream): Promise<void> {
  const reader = response.body?.getReader();
  let closed = false;
  out.once('close', () => (closed = true));
  try {
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
      if (!out.write(read.value) && !closed) await drained(out);
      if (closed) return void (await reader?.cancel());
    }
  } finally {
    if (!closed) out.end();
  }
}

/** Until the stream takes more, or is gone (the client went away). */
const drained = (out: ResponseStream): Promise<void> =>
  new Promise((resolve) => {
    out.once('drain', resolve);
    out.once('close', resolve);
  });

async function buffered(server: WebServer, event: FunctionUrlEvent): Promise<FunctionUrlResult> {
  const response = await server.fetch(requestOf(event), connectionOf(event));
  const body = Buffer.from(await response.arrayBuffer());
  const text = isText(response.headers.get('content-type'));
  return { ...preludeOf(response), body: body.toString(text ? 'utf8' : 'base64'), isBase64Encoded: !text };
}

/** Status, headers, and the Set-Cookie values apart, as a Function URL takes them. */
function preludeOf(response: Response): StreamPrelude {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  return { statusCode: response.status, headers, ...(cookies.length > 0 ? { cookies } : {}) };
}

/** Text answers as text, anything else base64, as the payload format wants. */
const isText = (type: string | null): boolean => type === null || /^(text\/|application\/(json|[\w.+-]+\+json)\b)/i.test(type);
