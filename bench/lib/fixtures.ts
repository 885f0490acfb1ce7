// The inputs of the measurements: the specs, and the generated servers of both generators,
// built once per run. Generation here is untimed preparation; bench/gen.ts times it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildCli, buildProject } from '../../harness/project.js';
import { syntheticSpec } from '../../harness/synthetic.js';
import { DIRECTORY, GITHUB_SPEC, KUBERNETES_GZ, STRIPE_SPEC } from '../../harness/corpora.js';
import type { Spec } from './results.js';
import { BENCH, REPO, TMP, ensureDir, firstErrorLine, log, timedRun } from './util.js';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function countOperations(doc: { paths?: Record<string, Record<string, unknown>> }): number {
  let n = 0;
  for (const item of Object.values(doc.paths ?? {})) n += Object.keys(item ?? {}).filter((k) => METHODS.has(k)).length;
  return n;
}

const SPECS_DIR = join(TMP, 'specs');

function describe(key: string, label: string, path: string, synthetic: boolean): Spec {
  const text = readFileSync(path, 'utf8');
  return { key, label, path, operations: countOperations(JSON.parse(text)), bytes: Buffer.byteLength(text), synthetic };
}

const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
export const GITHUB = GITHUB_SPEC;

/** The real specs of the brief (Kubernetes gunzipped into bench/.tmp first). */
export function realSpecs(): Spec[] {
  ensureDir(SPECS_DIR);
  const k8s = join(SPECS_DIR, 'kubernetes-1.13.json');
  if (!existsSync(k8s)) writeFileSync(k8s, gunzipSync(readFileSync(KUBERNETES_GZ)));
  return [
    describe('github', 'GitHub', GITHUB, false),
    describe('stripe', 'Stripe', STRIPE_SPEC, false),
    describe('k8s', 'Kubernetes 1.13', k8s, false),
  ];
}

/** The largest specs of the corpus, largest first (for the generator's peak memory). */
export function largestSpecs(quick: boolean): Spec[] {
  const all = [
    describe('graph-beta', 'Microsoft Graph beta', join(DIRECTORY, 'microsoft.com/graph-beta.json'), false),
    describe('graph', 'Microsoft Graph v1.0', join(DIRECTORY, 'microsoft.com/graph.json'), false),
    describe('github', 'GitHub (@octokit/openapi)', GITHUB, false),
    describe('loket', 'loket.nl', join(DIRECTORY, 'loket.nl.json'), false),
    describe('zuora', 'Zuora', join(DIRECTORY, 'zuora.com.json'), false),
    describe('mailchimp', 'Mailchimp', join(DIRECTORY, 'mailchimp.com.json'), false),
    describe('kubernetes', 'kubernetes.io', join(DIRECTORY, 'kubernetes.io.json'), false),
  ];
  return quick ? all.filter((spec) => spec.key === 'mailchimp' || spec.key === 'kubernetes') : all;
}

export function syntheticSpecs(sizes: number[]): Spec[] {
  ensureDir(SPECS_DIR);
  return sizes.map((n) => {
    const path = join(SPECS_DIR, `synthetic-${n}.json`);
    const text = JSON.stringify(syntheticSpec(n), null, 2);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) writeFileSync(path, text);
    return describe(`synthetic-${n}`, `synthetic ${n.toLocaleString('en-US')}`, path, true);
  });
}

// ── the commands under test ────────────────────────────────────────────────────────────

const MCP_GEN_BIN = join(REPO, 'bin/mcp-gen.js');
/** The package's bin script (a node script), run directly: `npx` would add npm's own start-up. */
export const OMG_BIN = join(REPO, 'node_modules/.bin/openapi-mcp-generator');

export function omgVersion(): string {
  return (JSON.parse(readFileSync(join(REPO, 'node_modules/openapi-mcp-generator/package.json'), 'utf8')) as { version: string }).version;
}

export const mcpGenArgs = (spec: string, out: string, extra: string[] = []) => [MCP_GEN_BIN, spec, '--out', out, '--force', '-q', ...extra];
export const omgArgs = (spec: string, out: string, extra: string[] = []) => ['-i', spec, '-o', out, '--force', ...extra];

// ── generated projects ─────────────────────────────────────────────────────────────────

const PROJECTS = join(TMP, 'projects');
const prepared = new Map<string, Promise<unknown>>();

function once<T>(key: string, make: () => Promise<T>): Promise<T> {
  if (!prepared.has(key)) prepared.set(key, make());
  return prepared.get(key) as Promise<T>;
}

export type McpGenProject = 'petstore' | 'github' | 'github-dynamic';

/** A built mcp-gen server: generated with the CLI, dependencies linked as the e2e tests do. */
export function mcpGenProject(name: McpGenProject): Promise<string> {
  return once(`mcp-gen:${name}`, async () => {
    buildCli();
    const dir = join(PROJECTS, `mcp-gen-${name}`);
    rmSync(dir, { recursive: true, force: true });
    const spec = name === 'petstore' ? PETSTORE : GITHUB;
    log(`generating and building the mcp-gen ${name} server`);
    // GitHub is over the context budget: its default is dynamic, so the one-tool-per-operation server asks for direct
    execFileSync(
      'node',
      mcpGenArgs(spec, dir, name === 'github-dynamic' ? ['--tools', 'dynamic'] : name === 'github' ? ['--tools', 'direct'] : []),
      { cwd: REPO, stdio: 'pipe' },
    );
    await buildProject(dir);
    return dir;
  });
}

/** Copies a bench script into a generated project, so that it resolves that project's packages. */
export function placeIn(dir: string, script: string): string {
  const target = join(dir, script);
  copyFileSync(join(BENCH, script), target);
  return target;
}

export type OmgProject = 'petstore' | 'petstore-http' | 'github' | 'github-http';

export interface OmgBuild {
  dir: string;
  /** node entry point (build/index.js), present when tsc emitted it, even with type errors. */
  entry: string;
  built: boolean;
  ms: number;
  firstError?: string;
}

const OMG_DEPS = join(TMP, '_omg-deps');

/** openapi-mcp-generator's project dependencies (the union of its stdio and HTTP variants), installed once. */
function omgDeps(dirs: string[]): string {
  const deps: Record<string, string> = {};
  const dev: Record<string, string> = {};
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    Object.assign(deps, pkg.dependencies);
    Object.assign(dev, pkg.devDependencies);
  }
  const wanted = JSON.stringify({ name: 'omg-deps', private: true, dependencies: deps, devDependencies: dev }, null, 2);
  const manifest = join(OMG_DEPS, 'package.json');
  if (!(
    existsSync(join(OMG_DEPS, 'node_modules/.package-lock.json')) &&
    existsSync(manifest) &&
    readFileSync(manifest, 'utf8') === wanted
  )) {
    log('installing openapi-mcp-generator project dependencies (once)');
    rmSync(OMG_DEPS, { recursive: true, force: true });
    ensureDir(OMG_DEPS);
    writeFileSync(manifest, wanted);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: OMG_DEPS, stdio: 'pipe' });
  }
  return join(OMG_DEPS, 'node_modules');
}

/** Resolved versions of the main packages openapi-mcp-generator's servers run on. */
export function omgDepVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['@modelcontextprotocol/sdk', 'zod', 'axios', 'typescript', 'json-schema-to-zod']) {
    const file = join(OMG_DEPS, 'node_modules', name, 'package.json');
    if (existsSync(file)) out[name] = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return out;
}

function generateOmg(name: OmgProject): string {
  const dir = join(PROJECTS, `omg-${name}`);
  rmSync(dir, { recursive: true, force: true });
  const spec = name.startsWith('petstore') ? PETSTORE : GITHUB;
  execFileSync(OMG_BIN, omgArgs(spec, dir, name.endsWith('-http') ? ['-t', 'streamable-http'] : []), { cwd: REPO, stdio: 'pipe' });
  return dir;
}

/** Links the shared dependencies into an openapi-mcp-generator project. */
function linkOmgDeps(dir: string): void {
  // Both transport variants of the Petstore project define the dependency set (the same
  // template serves every spec), so one install covers every project.
  const variants = (['petstore', 'petstore-http'] as OmgProject[]).map((n) => {
    const variant = join(PROJECTS, `omg-${n}`);
    if (!existsSync(join(variant, 'package.json'))) generateOmg(n);
    return variant;
  });
  const modules = omgDeps(variants);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const missing = Object.keys(pkg.dependencies ?? {}).filter((name) => !existsSync(join(modules, name)));
  if (missing.length) throw new Error(`openapi-mcp-generator project ${dir} needs ${missing.join(', ')}, not in the shared install`);
  const link = join(dir, 'node_modules');
  rmSync(link, { recursive: true, force: true });
  symlinkSync(modules, link, 'dir');
}

/** Runs the project's own `npm run build`, timed; a failed build is a result, not an exception. */
export async function runBuild(dir: string): Promise<{ ok: boolean; ms: number; maxRssMb: number; firstError?: string }> {
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  rmSync(join(dir, 'build'), { recursive: true, force: true });
  const run = await timedRun('npm', ['run', 'build', '--silent'], { cwd: dir, timeoutMs: 600_000 });
  return { ok: run.code === 0, ms: run.ms, maxRssMb: run.maxRssMb, ...(run.code === 0 ? {} : { firstError: firstErrorLine(run.output) }) };
}

/**
 * An openapi-mcp-generator server, generated and built with its own `npm run build`.
 * `build: false` only generates it (the build benchmark then builds it, and records how).
 */
export async function omgProject(name: OmgProject, options: { build?: boolean } = {}): Promise<OmgBuild> {
  const project = await once(`omg:${name}`, async (): Promise<OmgBuild> => {
    log(`generating the openapi-mcp-generator ${name} server`);
    const dir = generateOmg(name);
    linkOmgDeps(dir);
    return { dir, entry: join(dir, 'build/index.js'), built: false, ms: NaN };
  });
  if (options.build !== false && !existsSync(project.entry)) {
    log(`building the openapi-mcp-generator ${name} server`);
    const build = await runBuild(project.dir);
    Object.assign(project, { built: build.ok, ms: build.ms }, build.firstError ? { firstError: build.firstError } : {});
  }
  return project;
}
