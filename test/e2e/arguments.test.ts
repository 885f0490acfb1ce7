// A client's arguments against a spec's schema, through a generated server over Streamable
// HTTP: a catastrophic-backtracking `pattern` (ReDoS) and deeply nested or huge arguments are
// answered at once with isError, and another client's call is served meanwhile.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, generateProject, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

let upstream: Upstream;
let server: RunningServer;

beforeAll(async () => {
  upstream = await startUpstream();
  const spec = {
    openapi: '3.1.0',
    info: { title: 'Hostile patterns', version: '1' },
    servers: [{ url: `${upstream.url}/api` }],
    components: {
      schemas: { Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' }, items: { type: 'array' } } } },
    },
    paths: {
      '/search': {
        get: {
          operationId: 'search',
          parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string', pattern: '^(a+)+$' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } },
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
            { name: 'full', in: 'query', schema: { type: 'boolean' } },
            { name: 'label', in: 'query', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/tree': {
        post: {
          operationId: 'postTree',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const specDir = join(TMP, 'arguments-spec');
  mkdirSync(specDir, { recursive: true });
  writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
  const dir = generateProject(join(specDir, 'openapi.json'), 'e2e-arguments');
  await buildProject(dir);
  server = await startServer(dir, 'http');
});

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

const text = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';

describe('hostile arguments', () => {
  // In V8's backtracking engine, 34 characters of `a` and a `b` against ^(a+)+$ take minutes:
  // the event loop would be stuck and the other client's ping would wait for it.
  it('a ReDoS pattern answers at once and does not hold up another client', { timeout: 30_000 }, async () => {
    const [attacker, bystander] = await Promise.all([connect('http', server.url), connect('http', server.url)]);
    try {
      upstream.clear();
      const evil = attacker.callTool({ name: 'search', arguments: { q: 'a'.repeat(34) + 'b' } });
      const ping = await bystander.callTool({ name: 'ping', arguments: {} });
      expect(ping.isError).toBeFalsy();
      const result = await evil;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/argument "q": must match pattern/);
      const good = await attacker.callTool({ name: 'search', arguments: { q: 'aaaa' } });
      expect(good.isError).toBeFalsy();
      expect(upstream.requests.map((r) => r.url)).toEqual(['/api/ping', '/api/search?q=aaaa']);
    } finally {
      await Promise.all([attacker.close(), bystander.close()]);
    }
  });

  it('arguments nested deeper than the limit are refused before validation, naming the limit', async () => {
    const client = await connect('http', server.url);
    try {
      // 80 levels: past the arguments' limit (64), within the HTTP body's (100), so that the
      // executor's own check is what answers (stdio has no body check of its own).
      let node: Record<string, unknown> = {};
      for (let i = 0; i < 80; i++) node = { child: node };
      upstream.clear();
      const result = await client.callTool({ name: 'postTree', arguments: { body: node } });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('Invalid arguments for postTree: nested deeper than 64 levels');
      let shallow: Record<string, unknown> = {};
      for (let i = 0; i < 20; i++) shallow = { child: shallow };
      const ok = await client.callTool({ name: 'postTree', arguments: { body: shallow } });
      expect(ok.isError).toBeFalsy();
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('arguments with too many values are refused', async () => {
    const client = await connect('http', server.url);
    try {
      // 300,000 numbers: ~600 KB of JSON, well under the request size limit
      const result = await client.callTool({ name: 'postTree', arguments: { body: { items: new Array(300_000).fill(1) } } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/more than 200000 values in all/);
    } finally {
      await client.close();
    }
  });
});

describe('lenient scalars', () => {
  it('"5", "true" and 7 become 5, true and "7" as the schema says; the request is the one a typed call makes', async () => {
    const client = await connect('http', server.url);
    try {
      upstream.clear();
      const result = await client.callTool({ name: 'getItem', arguments: { id: '5', full: 'true', label: 7 } });
      expect(result.isError).toBeFalsy();
      expect(upstream.requests.map((r) => r.url)).toEqual(['/api/items/5?full=true&label=7']);
    } finally {
      await client.close();
    }
  });

  it('a value with no unambiguous reading is still an error naming the argument, and nothing is sent', async () => {
    const client = await connect('http', server.url);
    try {
      upstream.clear();
      const result = await client.callTool({ name: 'getItem', arguments: { id: '5.5' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('Invalid arguments for getItem: argument "id": must be integer');
      expect(upstream.requests).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
