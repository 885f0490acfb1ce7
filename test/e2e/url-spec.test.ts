// Specs served over HTTP, as users point mcp-gen at a running API's /openapi.json: the
// spec's relative server URL is resolved against where the spec came from, and $refs to
// URLs are followed only when asked (a spec file must not make mcp-gen fetch URLs).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/generate.js';
import { SpecError } from '../../src/errors.js';

const pet = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
let server: Server;
let base: string;
const hits: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-url-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/api/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          openapi: '3.0.3',
          info: { title: 'Served', version: '1' },
          servers: [{ url: '/v1' }],
          paths: {
            '/pets': {
              post: {
                operationId: 'addPet',
                requestBody: { content: { 'application/json': { schema: { $ref: 'schemas/pet.json' } } } },
                responses: { '201': { description: 'ok' } },
              },
            },
          },
        }),
      );
    } else if (req.url === '/api/schemas/pet.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pet));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a spec given by URL', () => {
  it('is read with its relative $refs, and its relative server URL resolves against it', async () => {
    const result = await generate({ spec: `${base}/api/openapi.json`, out: join(scratch, 'served'), dryRun: true });
    expect(result.table.servers[0]?.url).toBe(`${base}/v1`);
    const body = result.table.tools[0]?.inputSchema.properties as Record<string, { required?: string[]; $ref?: string }>;
    expect(JSON.stringify(body.body)).toContain('name');
    expect(hits).toContain('/api/schemas/pet.json');
  });

  it('a spec file with a $ref to a URL is refused by default, naming the URL and the flag', async () => {
    hits.length = 0;
    const file = join(scratch, 'local.json');
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Local', version: '1' },
        paths: {
          '/pets': {
            post: {
              operationId: 'addPet',
              requestBody: { content: { 'application/json': { schema: { $ref: `${base}/api/schemas/pet.json` } } } },
              responses: { '201': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const error = await generate({ spec: file, out: join(scratch, 'local'), dryRun: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).message).toContain(`${base}/api/schemas/pet.json`);
    expect((error as SpecError).message).toContain('--allow-remote-refs');
    expect(hits).toEqual([]); // nothing was fetched

    // --allow-remote-refs opens public URLs only: this one is on loopback (SSRF), so still nothing is fetched
    const internal = await generate({ spec: file, out: join(scratch, 'local'), dryRun: true, allowRemoteRefs: true }).catch(
      (e: unknown) => e,
    );
    expect((internal as SpecError).message).toBe(
      `$ref "${base}/api/schemas/pet.json" points to an internal address (127.0.0.1); not followed`,
    );
    expect(hits).toEqual([]);
  });
});
