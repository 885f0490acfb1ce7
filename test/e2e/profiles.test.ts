// Client profiles end to end: GitHub's 1,223 operations listed under each profile through the
// official client, checked against that profile's rules (harness/profile-rules.ts), and
// then called with arguments a client of that profile would send, filled from the listed
// schema alone: the server must accept every one of them (it checks against the full schema)
// and make the request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';
import { profileViolations, type Profile } from '../../harness/profile-rules.js';
import type { ToolTable } from '../../src/contract/table.js';
import { operationTools } from '../../src/contract/meta-tools.js';

type Schema = Record<string, unknown>;
let upstream: Upstream;
let dir: string;
let table: ToolTable;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  dir = generateProject(GITHUB_SPEC, 'e2e-profiles-github', ['--tools', 'direct']);
  await buildProject(dir);
  table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable;
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream?.close();
});

/**
 * A value the listed schema accepts, as a client that knows nothing else would write it:
 * null where null is allowed (openai-strict's "absent"), the first enum value, the minimum,
 * JSON text where the listing asks for it.
 */
function fill(schema: Schema, depth = 0): unknown {
  if (depth > 12) return null;
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Schema[];
    if (branches.some((b) => b.type === 'null')) return null;
    return fill(branches[0] ?? {}, depth + 1);
  }
  if (schema.nullable === true) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([k]) => required.has(k))
          .map(([k, v]) => [k, fill(v, depth + 1)]),
      );
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      if (typeof schema.description === 'string' && schema.description.includes('written as JSON text')) return '{}';
      if (schema.format === 'date-time') return '2024-01-01T00:00:00Z';
      return 'x'.repeat(typeof schema.minLength === 'number' ? Math.max(1, schema.minLength) : 1);
    default:
      return 'x';
  }
}

describe.each<Profile>(['portable', 'openai-strict', 'gemini'])('GitHub under --client-profile %s', (profile) => {
  let client: Client;
  let listed: Awaited<ReturnType<Client['listTools']>>;

  beforeAll(async () => {
    client = await connect('stdio', dir, { args: ['--base-url', upstream.url, '--client-profile', profile, '--log-level', 'error'] });
    clients.push(client);
    listed = await client.listTools();
  }, 120_000);

  it("lists every operation, and every listed tool keeps the profile's rules", () => {
    expect(listed.tools).toHaveLength(table.tools.length + operationTools(table).length);
    const violations = listed.tools.flatMap((t) => profileViolations(t as never, profile));
    expect(violations.slice(0, 10)).toEqual([]);
  });

  it('accepts what a client fills from the listed schema alone, and makes the request', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    // every 10th operation (get_operation_status is no operation): 123 calls, from every toolset's part of the alphabet
    const sample = listed.tools.filter((t) => t.name !== 'get_operation_status').filter((_, i) => i % 10 === 0);
    const refused: string[] = [];
    let called = 0;
    for (const tool of sample) {
      const args = fill(tool.inputSchema as Schema) as Record<string, unknown>;
      if (!ajv.validate(tool.inputSchema as Schema, args)) continue; // the filler met a pattern it cannot meet
      upstream.clear();
      const result = await client.callTool({ name: tool.name, arguments: args });
      const text = JSON.stringify(result.content);
      if (/Invalid arguments/.test(text)) refused.push(`${tool.name}: ${text.slice(0, 300)}`);
      else if (upstream.requests.length === 1) called++;
    }
    expect(refused).toEqual([]);
    expect(called).toBeGreaterThan(sample.length * 0.9);
  }, 180_000);
});

describe('the full profile', () => {
  it('lists the generated schemas, $defs included', async () => {
    const client = await connect('stdio', dir, { args: ['--base-url', upstream.url, '--client-profile', 'full'] });
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(table.tools.length + operationTools(table).length);
    expect(tools.some((t) => '$defs' in t.inputSchema)).toBe(true);
    expect(tools.some((t) => JSON.stringify(t.outputSchema ?? {}).includes('"type":["string","null"]'))).toBe(true);
  }, 120_000);

  it('a bad profile stops the server at start with exit 2, naming the choices', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [join(dir, 'dist/main.js'), '--client-profile', 'openai'], {
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--client-profile must be portable, openai-strict, gemini or full \(got "openai"\)/);
  });
});
