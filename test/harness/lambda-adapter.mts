// A local stand-in for a Lambda Function URL, for the tests: each HTTP request becomes the
// payload-format-2.0 event AWS sends (lower-cased headers, cookies apart, the body base64 as
// AWS sends a body it does not know as text), the generated handler (src/targets/lambda.ts,
// compiled by tsx) answers it, and its result is written back as AWS would.
// Usage: node --import tsx test/harness/lambda-adapter.mts <project dir> <port>
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir = '.', port = '0'] = process.argv.slice(2);
const { handler } = (await import(pathToFileURL(join(dir, 'src/targets/lambda.ts')).href)) as {
  handler: (
    event: unknown,
  ) => Promise<{ statusCode: number; headers: Record<string, string>; cookies?: string[]; body: string; isBase64Encoded: boolean }>;
};

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (name !== 'cookie' && value !== undefined) headers[name] = String(value);
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split('; ') } : {}),
    headers,
    requestContext: {
      domainName: req.headers.host ?? 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress,
        userAgent: req.headers['user-agent'] ?? '',
      },
    },
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks).toString('base64'), isBase64Encoded: true } : { isBase64Encoded: false }),
  };
  const result = await handler(event);
  const out: Record<string, string | string[]> = { ...result.headers };
  if (result.cookies) out['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode, out);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
});
server.listen(Number(port), '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stderr.write(`lambda adapter on http://127.0.0.1:${address.port}\n`);
});
