// The user's seam: src/hooks.ts survives regeneration and its hooks run on every call.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/model/build.js';
import { loadSpec } from '../../src/parse/load.js';
import { buildProject, connect, generateProject, REPO } from '../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SPEC = `${REPO}samples/petstore/openapi.json`;
let upstream: Upstream;
let dir: string;

beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: JSON.stringify({ id: 1, name: 'Rex', photoUrls: [] }) }));
  dir = generateProject(SPEC, 'e2e-hooks');
  writeFileSync(
    join(dir, 'src/hooks.ts'),
    `import type { Hooks } from './runtime/hooks-api.js';
export const hooks: Hooks = {
  beforeRequest(request) {
    request.headers['x-signed-by'] = 'hooks.ts';
    return request;
  },
  async afterResponse(response) {
    const body = (await response.json()) as Record<string, unknown>;
    return new Response(JSON.stringify({ ...body, name: String(body.name).toUpperCase() }), { status: response.status, headers: response.headers });
  },
};
`,
  );
  generateProject(SPEC, 'e2e-hooks'); // regenerate: hooks.ts must survive
  await buildProject(dir);
});

afterAll(async () => upstream?.close());

describe('hooks.ts', () => {
  it('survives regeneration', () => {
    expect(readFileSync(join(dir, 'src/hooks.ts'), 'utf8')).toContain("'x-signed-by'");
  });

  it('runs beforeRequest and afterResponse on a call', async () => {
    const client = await connect('stdio', dir, { env: { SWAGGER_PETSTORE_API_KEY: 'k' }, args: ['--base-url', upstream.url] });
    try {
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
      expect(upstream.requests.at(-1)?.headers['x-signed-by']).toBe('hooks.ts');
      expect(result.structuredContent).toMatchObject({ name: 'REX' });
    } finally {
      await client.close();
    }
  });

  it('--check passes after regeneration, even with hooks.ts edited', () => {
    const out = execFileSync('node', [join(REPO, 'bin/mcp-gen.js'), SPEC, '--out', dir, '--check'], { encoding: 'utf8' });
    expect(out).toContain('up to date');
  });
});

describe('--tools auto', () => {
  it('lists every tool when they fit --max-tools, else the toolsets when each fits', async () => {
    const spec = await loadSpec(SPEC);
    const at = (maxTools: number) => buildModel(spec, { maxDescriptionLength: 1000, toolMode: 'auto', maxTools }).table.serve;
    expect(at(19)).toEqual({ mode: 'toolsets', pinned: [] });
    expect(at(20)).toBeUndefined();
    const pinned = buildModel(spec, { maxDescriptionLength: 1000, toolMode: 'dynamic', directTools: ['getPet*'] }).table.serve;
    expect(pinned).toEqual({ mode: 'dynamic', pinned: ['getPetById'] });
  });
});
