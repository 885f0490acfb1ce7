// The floor for a tool call: the official SDK v2 server with one tool whose whole work is a
// GET to the upstream through a keep-alive node:http agent, answered as text. Any SDK-based
// server that calls an HTTP API pays at least this much CPU per call (socket writes that wake
// another process, the SDK's message checks); what a generated server spends above it is its
// own. Over stdio by default; with `--http PORT`, Streamable HTTP at /mcp with a session per
// client on the SDK's Node transport, answering POSTs with JSON, as a generated server does,
// without its guards and limits. Copied into a generated project like minimal-server.mjs, so
// that it resolves the same SDK. The upstream's URL comes in UPSTREAM_URL.
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:9';
const agent = new Agent({ keepAlive: true });
const inputSchema = fromJsonSchema({ type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] });

const get = (path) =>
  new Promise((resolve, reject) => {
    const req = request(`${upstream}${path}`, { agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });

const factory = () => {
  const server = new McpServer({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('getPetById', { description: 'GET /pet/{petId}.', inputSchema }, async (args) => ({
    content: [{ type: 'text', text: await get(`/pet/${Number(args.petId)}`) }],
  }));
  return server;
};

const httpAt = process.argv.indexOf('--http');
if (httpAt === -1) {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(factory);
  process.stdin.once('end', () => process.exit(0));
} else {
  const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await factory().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.keepAliveTimeout = 70_000;
  http.listen(Number(process.argv[httpAt + 1] ?? 0), '127.0.0.1', () =>
    process.stderr.write(`floor server on http://127.0.0.1:${http.address().port}/mcp\n`),
  );
}
