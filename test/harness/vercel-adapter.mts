// A local stand-in for Vercel's router, for the tests: each HTTP request becomes a web Request,
// handed to the generated function's export for its method (api/mcp.ts, compiled by tsx), as
// Vercel Functions call a web handler; only the paths vercel.json's rewrites send there reach
// it (/mcp, /healthz, /.well-known/*, the sign-in endpoints), others are Vercel's 404.
// Usage: node --import tsx test/harness/vercel-adapter.mts <project dir> <port>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

type Handler = (request: Request) => Promise<Response>;
const [dir = '.', port = '0'] = process.argv.slice(2);
const functions = (await import(pathToFileURL(join(dir, 'api/mcp.ts')).href)) as Record<string, Handler | undefined>;
const rewrites = (JSON.parse(readFileSync(join(dir, 'vercel.json'), 'utf8')) as { rewrites: { source: string }[] }).rewrites;

/** Whether a rewrite's source matches the path: `:name*` takes the rest of it, `:name` one segment. */
const rewritten = (path: string): boolean =>
  rewrites.some(({ source }) => {
    const pattern = source
      .replace(/[.]/g, '\\.')
      .replace(/:\w+\*/g, '.*')
      .replace(/:\w+/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });

const server = createServer(async (req, res) => {
  const handler = functions[req.method ?? 'GET'];
  if (!rewritten(new URL(req.url ?? '/', 'http://vercel').pathname)) {
    res.writeHead(404).end('NOT_FOUND');
    return;
  }
  if (handler === undefined) {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, String(value));
  const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  const response = await handler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) res.end();
  else Readable.fromWeb(response.body as never).pipe(res);
});
server.listen(Number(port), '127.0.0.1', () => {
  process.stderr.write(`vercel adapter on http://127.0.0.1:${(server.address() as { port: number }).port}\n`);
});
