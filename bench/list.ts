// 5. tools/list for GitHub: bytes on the wire and time, mcp-gen (direct and dynamic mode)
// against openapi-mcp-generator; then a check that no operation's argument is lost: every
// parameter of every operation must be a property of the tool's inputSchema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolSpec, ToolTable } from '../src/contract/table.js';
import { RawStdio, type ServerCommand } from './lib/clients.js';
import { GITHUB, mcpGenProject, omgProject } from './lib/fixtures.js';
import { LIST_SERVERS, type ArgCheck, type ListResult, type ListServer } from './lib/results.js';
import { interleave, log, median } from './lib/util.js';

type Json = Record<string, unknown>;
interface SpecParam {
  name: string;
  in: string;
}
interface SpecOperation {
  key: string;
  params: SpecParam[];
  body: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of the spec with its parameters (path-level ones merged, local $refs followed). */
function specOperations(path: string): SpecOperation[] {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Json;
  const deref = (value: unknown): Json => {
    let v = value as Json;
    for (let i = 0; i < 10 && typeof v?.$ref === 'string'; i++) {
      v = (v.$ref as string)
        .slice(2)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((node, token) => (node as Json)?.[token], doc) as Json;
    }
    return v;
  };
  const out: SpecOperation[] = [];
  for (const [p, rawItem] of Object.entries((doc.paths ?? {}) as Json)) {
    const item = deref(rawItem);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const params = new Map<string, SpecParam>();
      for (const raw of [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]) {
        const param = deref(raw);
        params.set(`${String(param.in)}:${String(param.name)}`, { name: String(param.name), in: String(param.in) });
      }
      out.push({ key: `${method.toUpperCase()} ${p}`, params: [...params.values()], body: op.requestBody !== undefined });
    }
  }
  return out;
}

async function listAll(session: RawStdio): Promise<{ tools: Json[]; bytes: number; ms: number; pages: number }> {
  const tools: Json[] = [];
  let bytes = 0;
  let ms = 0;
  let pages = 0;
  let cursor: string | undefined;
  do {
    const answer = await session.request('tools/list', cursor ? { cursor } : {});
    const result = answer.message.result as { tools?: Json[]; nextCursor?: string } | undefined;
    if (!result) throw new Error(`tools/list failed: ${JSON.stringify(answer.message.error).slice(0, 200)}`);
    tools.push(...(result.tools ?? []));
    bytes += answer.bytes;
    ms += answer.ms;
    pages++;
    cursor = result.nextCursor;
  } while (cursor);
  return { tools, bytes, ms, pages };
}

/** Bytes of each part of the listed tools: text, schemas, and the `$defs` each schema carries. */
function composition(tools: Json[]): Record<string, number> {
  const size = (v: unknown) => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));
  const parts: Record<string, number> = {
    'names, titles, descriptions': 0,
    annotations: 0,
    inputSchema: 0,
    'inputSchema $defs': 0,
    outputSchema: 0,
    'outputSchema $defs': 0,
  };
  const add = (key: string, n: number) => (parts[key] = (parts[key] ?? 0) + n);
  for (const tool of tools) {
    add('names, titles, descriptions', size(tool.name) + size(tool.title) + size(tool.description));
    add('annotations', size(tool.annotations));
    for (const key of ['inputSchema', 'outputSchema']) {
      const schema = tool[key] as Json | undefined;
      if (!schema) continue;
      const { $defs, ...rest } = schema;
      add(key, size(rest));
      add(`${key} $defs`, size($defs));
    }
  }
  return parts;
}

const propertiesOf = (schema: unknown): Set<string> => new Set(Object.keys(((schema as Json | undefined)?.properties ?? {}) as Json));

/** mcp-gen: each spec parameter must be in the tool table's placement and in the advertised schema. */
function checkMcpGen(server: string, ops: SpecOperation[], table: ToolTable, schemas: Map<string, unknown>): ArgCheck {
  const byKey = new Map<string, ToolSpec>(table.tools.map((t) => [`${t.http.method} ${t.http.path}`, t]));
  const check: ArgCheck = {
    server,
    operations: ops.length,
    missingOperations: 0,
    params: 0,
    sameName: 0,
    renamed: 0,
    lost: 0,
    bodies: 0,
    bodiesLost: 0,
    examples: [],
  };
  for (const op of ops) {
    const tool = byKey.get(op.key);
    const props = tool ? propertiesOf(schemas.get(tool.name)) : undefined;
    if (!tool || !props || !schemas.has(tool.name)) {
      check.missingOperations++;
      if (check.examples.length < 5) check.examples.push(`${op.key}: no tool`);
      continue;
    }
    for (const param of op.params) {
      check.params++;
      const placed = tool.http.params.find((p) => p.name === param.name && p.in === param.in);
      if (placed && props.has(placed.arg)) {
        if (placed.arg === param.name) check.sameName++;
        else check.renamed++;
      } else {
        check.lost++;
        if (check.examples.length < 5) check.examples.push(`${op.key}: ${param.in} parameter "${param.name}"`);
      }
    }
    if (op.body) {
      check.bodies++;
      if (!tool.http.body || !props.has(tool.http.body.arg)) {
        check.bodiesLost++;
        if (check.examples.length < 5) check.examples.push(`${op.key}: request body`);
      }
    }
  }
  return check;
}

/** openapi-mcp-generator: its tool map (name, method, path) read from the generated source. */
function checkOmg(ops: SpecOperation[], source: string, schemas: Map<string, unknown>): ArgCheck {
  const byKey = new Map<string, string>();
  for (const m of source.matchAll(
    /^ {2}\["([^"]+)", \{\n {4}name: "[^"]*",[\s\S]*?\n {4}method: "(\w+)",\n {4}pathTemplate: "([^"]*)",/gm,
  )) {
    byKey.set(`${(m[2] as string).toUpperCase()} ${m[3] as string}`, m[1] as string);
  }
  const check: ArgCheck = {
    server: 'omg',
    operations: ops.length,
    missingOperations: 0,
    params: 0,
    sameName: 0,
    renamed: 0,
    lost: 0,
    bodies: 0,
    bodiesLost: 0,
    examples: [],
  };
  for (const op of ops) {
    const name = byKey.get(op.key);
    if (!name || !schemas.has(name)) {
      check.missingOperations++;
      if (check.examples.length < 5) check.examples.push(`${op.key}: no tool`);
      continue;
    }
    const props = propertiesOf(schemas.get(name));
    for (const param of op.params) {
      check.params++;
      if (props.has(param.name)) check.sameName++;
      else {
        check.lost++;
        if (check.examples.length < 5) check.examples.push(`${op.key}: ${param.in} parameter "${param.name}"`);
      }
    }
    if (op.body) {
      check.bodies++;
      if (!props.has('requestBody')) {
        check.bodiesLost++;
        if (check.examples.length < 5) check.examples.push(`${op.key}: request body`);
      }
    }
  }
  return check;
}

export async function runList(options: { quick: boolean }): Promise<ListResult> {
  const reps = options.quick ? 2 : 5;
  const direct = await mcpGenProject('github');
  const dynamic = await mcpGenProject('github-dynamic');
  const omg = await omgProject('github');
  const servers: Record<ListServer, ServerCommand & { note?: string }> = {
    'mcp-gen': { args: [join(direct, 'dist/main.js')] },
    'mcp-gen dynamic': { args: [join(dynamic, 'dist/main.js')] },
    omg: {
      args: [omg.entry],
      cwd: omg.dir,
      ...(omg.built ? {} : { note: 'its build failed; this runs the JavaScript tsc emitted anyway' }),
    },
  };
  log(`tools/list: ${reps} × ${LIST_SERVERS.join(', ')} (GitHub)`);
  const lastTools = new Map<ListServer, Json[]>();
  const meta = new Map<ListServer, { bytes: number; pages: number }>();
  const errors = new Map<ListServer, string>();
  // Each repetition starts a fresh process: its first list is "cold", the next ones warm.
  const runs = await interleave(reps, [...LIST_SERVERS], async (name) => {
    let session: RawStdio | undefined;
    try {
      session = await RawStdio.start(servers[name]);
      const first = await listAll(session);
      const warm: number[] = [];
      for (let i = 0; i < 3; i++) warm.push((await listAll(session)).ms);
      if (!lastTools.has(name)) lastTools.set(name, first.tools);
      meta.set(name, { bytes: first.bytes, pages: first.pages });
      return { first: first.ms, warm: median(warm) };
    } catch (error) {
      if (!errors.has(name)) errors.set(name, (error as Error).message.split('\n')[0] ?? 'failed');
      return { first: NaN, warm: NaN };
    } finally {
      await session?.close();
    }
  });
  const cells: ListResult['cells'] = {};
  for (const name of LIST_SERVERS) {
    const m = meta.get(name);
    const note = servers[name].note;
    const error = errors.get(name);
    const listed = lastTools.get(name);
    cells[name] = {
      ...(listed ? { composition: composition(listed) } : {}),
      tools: listed?.length ?? 0,
      bytes: m?.bytes ?? NaN,
      pages: m?.pages ?? 0,
      firstMs: runs[name].map((r) => r.first),
      warmMs: runs[name].map((r) => r.warm),
      first: median(runs[name].map((r) => r.first)),
      warm: median(runs[name].map((r) => r.warm)),
      ...(note ? { note } : {}),
      ...(error ? { error } : {}),
    };
  }

  log('tools/list: checking that every parameter of every GitHub operation is an argument');
  const ops = specOperations(GITHUB);
  const table = JSON.parse(readFileSync(join(direct, 'tools.json'), 'utf8')) as ToolTable;
  const checks: ArgCheck[] = [];
  const schemaMap = (tools: Json[] | undefined) => new Map((tools ?? []).map((t) => [String(t.name), t.inputSchema]));
  checks.push(checkMcpGen('mcp-gen', ops, table, schemaMap(lastTools.get('mcp-gen'))));

  // Dynamic mode lists three meta-tools: each operation's schema comes from describe_operation.
  const dynTable = JSON.parse(readFileSync(join(dynamic, 'tools.json'), 'utf8')) as ToolTable;
  const session = await RawStdio.start(servers['mcp-gen dynamic']);
  const described = new Map<string, unknown>();
  try {
    for (const tool of dynTable.tools) {
      const answer = await session.request('tools/call', { name: 'describe_operation', arguments: { name: tool.name } });
      const result = answer.message.result as { isError?: boolean; structuredContent?: { inputSchema?: unknown } } | undefined;
      if (result && !result.isError && result.structuredContent?.inputSchema)
        described.set(tool.name, result.structuredContent.inputSchema);
    }
  } finally {
    await session.close();
  }
  checks.push(checkMcpGen('mcp-gen dynamic', ops, dynTable, described));
  if (lastTools.get('omg'))
    checks.push(checkOmg(ops, readFileSync(join(omg.dir, 'src/index.ts'), 'utf8'), schemaMap(lastTools.get('omg'))));
  return { reps, cells, checks, defsOnceBytes: Buffer.byteLength(JSON.stringify(table.defs)) };
}
