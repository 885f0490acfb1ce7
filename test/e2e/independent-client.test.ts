// Our requests against an OpenAPI client written by others. For the operations of real specs
// (Petstore, GitHub, Stripe), each call of a tool through the official SDK client must put on
// the wire the request that openapi-client-axios (pinned in test/fixtures/openapi-client-axios,
// installed into test/.tmp) builds for the same operation and values: the method, the path and
// its parameters, every query pair (their order aside: the client orders them as given, the
// server as the spec lists them), and the header parameters. Values carry characters that must
// be percent-encoded (`a b&c`), arrays go through each parameter's style and explode.
// Compared where both implement OpenAPI: parameters in path, query and header with a schema,
// without a body (the client sends its payload as given, not by media type). Left out: cookies,
// `content` and `querystring` parameters, which the client does not serialise; values a pattern
// constrains (no value is made to fit it); optional deepObject arrays, whose form OpenAPI leaves
// undefined (the client falls back to form; the server writes Stripe's `expand[0]=…`).
import { execFile } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connect, REPO, TMP } from '../../harness/project.js';
import { GITHUB_SPEC, STRIPE_SPEC } from '../../harness/corpora.js';
import { installPinned } from '../harness/pinned-tools.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { textOf } from '../harness/wire.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../src/contract/table.js';
import { buildModel } from '../../src/model/build.js';
import { loadSpec } from '../../src/parse/load.js';

interface Param {
  name: string;
  in: string;
  value: unknown;
}
interface Planned {
  tool: ToolSpec;
  args: Record<string, unknown>;
  params: Param[];
}
interface Built {
  method: string;
  url: string;
  headers: Record<string, unknown>;
}

let upstream: Upstream;
let installDir: string;

beforeAll(async () => {
  installDir = await installPinned('openapi-client-axios');
  copyFileSync(join(REPO, 'test/fixtures/openapi-client-axios/requests.mjs'), join(installDir, 'requests.mjs'));
  upstream = await startUpstream(() => ({ body: '{}' }));
}, 300_000);

afterAll(async () => upstream?.close());

/** A value of the schema's type, with characters a URL must encode; undefined when none is made here. */
function valueFor(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>, depth = 0): unknown {
  const s = resolved(schema, defs);
  if (Array.isArray(s.enum)) return s.enum.find((e) => e !== null);
  if (s.const !== undefined) return s.const;
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (type === 'integer') return 7;
  if (type === 'number') return 1.5;
  if (type === 'boolean') return true;
  if (type === 'array') return depth === 0 ? pairOf(resolved(s.items as JsonSchema, defs), defs) : undefined;
  if (type === 'object' || s.pattern !== undefined || (typeof s.minLength === 'number' && s.minLength > 5)) return undefined;
  if (s.format === 'date-time') return '2024-01-02T03:04:05Z';
  if (s.format === 'date') return '2024-01-02';
  return type === 'string' || type === undefined ? 'a b&c' : undefined;
}

/** Two different items of an array's item schema. */
function pairOf(item: JsonSchema, defs: Record<string, JsonSchema>): unknown[] | undefined {
  const first = valueFor(item, defs, 1);
  if (first === undefined) return undefined;
  const other = Array.isArray(item.enum)
    ? (item.enum.find((e) => e !== null && e !== first) ?? first)
    : typeof first === 'string'
      ? `${first}/2`
      : first;
  return [first, other];
}

function resolved(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): JsonSchema {
  let s = schema ?? {};
  for (let i = 0; typeof s.$ref === 'string' && i < 10; i++) s = defs[s.$ref.replace('#/$defs/', '')] ?? {};
  return s;
}

/** The tool's call with a value for each parameter compared here; undefined when a required one has none. */
function planCall(tool: ToolSpec, defs: Record<string, JsonSchema>, index: number): Planned | undefined {
  if (tool.http.body || tool.operationId === undefined) return undefined;
  const args: Record<string, unknown> = {};
  const params: Param[] = [];
  for (const p of tool.http.params) {
    const schema = (tool.inputSchema.properties as Record<string, JsonSchema> | undefined)?.[p.arg];
    const comparable = ['path', 'query', 'header'].includes(p.in) && p.contentType === undefined && schema !== undefined;
    let value = comparable && !(p.style === 'deepObject' && !p.required) ? valueFor(schema, defs) : undefined;
    if (value === undefined) {
      if (p.required) return undefined;
      continue;
    }
    if (p.in === 'path' && typeof value === 'string' && resolved(schema, defs).enum === undefined) value = `p${index} x`;
    if (p.in === 'header' && typeof value === 'string') value = `h${index}`;
    args[p.arg] = value;
    params.push({ name: p.name, in: p.in, value });
  }
  return { tool, args, params };
}

/** What openapi-client-axios builds for each planned call. */
function clientRequests(spec: string, base: string, planned: Planned[]): Promise<Built[]> {
  const planFile = join(TMP, `independent-client-${planned.length}-${Date.now()}.json`);
  const calls = planned.map((p) => ({ operationId: p.tool.operationId, params: p.params }));
  writeFileSync(planFile, JSON.stringify({ spec, base, calls }));
  return new Promise<Built[]>((resolve, reject) =>
    execFile(
      process.execPath,
      [join(installDir, 'requests.mjs'), planFile],
      { cwd: installDir, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`openapi-client-axios failed: ${stderr}`)) : resolve(JSON.parse(stdout) as Built[]),
    ),
  ).finally(() => rmSync(planFile, { force: true }));
}

/** `/path?query` with the query's pairs sorted: the order of pairs is no difference. */
function comparable(url: string): string {
  const [path, query = ''] = url.split('?') as [string, string?];
  return [path, query.split('&').filter(Boolean).sort().join('&')].join('?');
}

/** Each call's difference from the client's request, as one line; none when they agree. */
async function differences(client: Client, planned: Planned[], built: Built[]): Promise<string[]> {
  const found: string[] = [];
  for (const [i, call] of planned.entries()) {
    upstream.clear();
    const result = await client.callTool({ name: call.tool.name, arguments: call.args });
    const sent = upstream.requests[0];
    const want = built[i] as Built;
    if (!sent) {
      found.push(`${call.tool.name}: nothing sent (${textOf(result).slice(0, 200)})`);
      continue;
    }
    const ours = `${sent.method} ${comparable(sent.url.slice('/base'.length))}`;
    const theirs = `${want.method} ${comparable(want.url)}`;
    if (ours !== theirs) found.push(`${call.tool.name}: ours ${ours}, openapi-client-axios ${theirs}`);
    for (const p of call.params.filter((p) => p.in === 'header'))
      if (String(sent.headers[p.name.toLowerCase()]) !== String(want.headers[p.name]))
        found.push(
          `${call.tool.name}: header ${p.name} ours ${String(sent.headers[p.name.toLowerCase()])}, theirs ${String(want.headers[p.name])}`,
        );
  }
  return found;
}

const SPECS = [
  ['Petstore', join(REPO, 'samples/petstore/openapi.json'), 10],
  ['GitHub', GITHUB_SPEC, 850],
  ['Stripe', STRIPE_SPEC, 200],
] as const;

describe.each(SPECS)('%s', (_label, spec, atLeast) => {
  it(`every call comparable (at least ${atLeast}) sends the request openapi-client-axios builds`, async () => {
    const table: ToolTable = buildModel(await loadSpec(spec), { toolMode: 'direct', envPrefix: 'DIFF' }).table;
    const planned = table.tools.flatMap((tool, i) => planCall(tool, table.defs, i) ?? []);
    expect(planned.length).toBeGreaterThanOrEqual(atLeast);
    const base = `${upstream.url}/base`;
    const built = await clientRequests(spec, base, planned);
    const env: Record<string, string> = {};
    for (const scheme of Object.values(table.auth))
      for (const variable of Object.values(scheme.env)) if (variable) env[variable] = 'secret';
    const client = await connect('stdio', REPO, {
      argv: [join(REPO, 'bin/mcp-gen.js'), 'serve', spec, '--env-prefix', 'DIFF', '--base-url', base, '--tools', 'direct'],
      env,
    });
    try {
      expect(await differences(client, planned, built)).toEqual([]);
    } finally {
      await client.close();
    }
  }, 300_000);
});
