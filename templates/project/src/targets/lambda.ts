// AWS Lambda behind a Function URL (payload format 2.0): `sam build && sam deploy --guided`
// (template.yaml). The server is the runtime's web handler; each event becomes a web Request
// and its Response the function's result, read whole: the stateless handler's answers end
// with the call, so nothing needs response streaming.
import { createWebServer } from '../../lib/runtime/web/web-server.js';
import table from '../../tools.json' with { type: 'json' };
import summary from '../../tools-summary.json' with { type: 'json' };
import { hooks } from '../hooks.ts';

/** The Function URL's event, payload format 2.0 (the fields read here). */
interface FunctionUrlEvent {
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { domainName: string; http: { method: string } };
}

interface FunctionUrlResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

const server = createWebServer({ platform: 'lambda', summary: summary as never, table: table as never, hooks, env: process.env });

export async function handler(event: FunctionUrlEvent): Promise<FunctionUrlResult> {
  return resultOf(await server.fetch(requestOf(event)));
}

function requestOf(event: FunctionUrlEvent): Request {
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const headers = new Headers(event.headers ?? {});
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(`https://${event.requestContext.domainName}${event.rawPath}${query}`, { method, headers, body });
}

/** Text answers as text, anything else base64; Set-Cookie in `cookies`, as the payload format wants. */
async function resultOf(response: Response): Promise<FunctionUrlResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = /^(text\/|application\/(json|[\w.+-]+\+json)|$)/i.test(response.headers.get('content-type') ?? '');
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    body: text ? bytes.toString('utf8') : bytes.toString('base64'),
    isBase64Encoded: !text,
  };
}
