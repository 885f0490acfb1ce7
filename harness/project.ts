// Generated projects for end-to-end tests: generate with the built CLI (as a user would),
// install the dependencies once per run into test/.tmp/_deps (every generated project has
// the same ones) and link them, build with the project's own `npm run build`, start it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stopChild } from './process.js';

export const REPO = fileURLToPath(new URL('../', import.meta.url));
export const TMP = join(REPO, 'test/.tmp');
const DEPS = join(TMP, '_deps');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * What a generated project's lib/ must hold: this build's runtime and contract (their JavaScript,
 * and the declarations that src/main.ts and src/hooks.ts reach), as `lib/<folder>/<file>` paths,
 * sorted. Each is dist/src/<folder>/<file> behind the generated-file header.
 */
export function prebuiltLibFiles(): string[] {
  const scripts = ['runtime', 'contract'].flatMap((folder) =>
    (readdirSync(join(REPO, 'dist/src', folder), { recursive: true }) as string[])
      .map((f) => f.split(sep).join('/'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => `${folder}/${f}`),
  );
  return [...scripts, ...declarationsReached(['runtime/main.d.ts', 'runtime/hooks-api.d.ts'])].map((f) => `lib/${f}`).sort();
}

/** The declaration files `entries` (under dist/src) import, directly or not, themselves included. */
function declarationsReached(entries: string[]): string[] {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    const text = readFileSync(join(REPO, 'dist/src', file), 'utf8');
    for (const [, target] of text.matchAll(/(?:from|import\()\s*['"](\.[^'"]*)\.js['"]/g))
      visit(posix.join(posix.dirname(file), `${target}.d.ts`));
  };
  entries.forEach(visit);
  return [...reached];
}

const metafiles = new Map<string, { outputs: Record<string, { inputs: Record<string, unknown> } | undefined> }>();

/**
 * The source modules in one file a built project's process loaded (a path or file: URL): its
 * dist/ is a bundle (scripts/build.mjs), whose bundle-meta.json says which modules each output
 * file holds; a file outside a dist/ stands for itself. `project`: whose build it is, for an
 * installed copy of it.
 */
export function bundledSources(file: string, project?: string): string[] {
  const path = file.startsWith('file:') ? fileURLToPath(file) : file;
  const at = path.lastIndexOf('/dist/');
  if (at < 0) return [path];
  const root = project ?? path.slice(0, at);
  let meta = metafiles.get(root);
  if (!meta) metafiles.set(root, (meta = JSON.parse(readFileSync(join(root, 'bundle-meta.json'), 'utf8')) as never));
  return Object.keys(meta.outputs[path.slice(at + 1)]?.inputs ?? {});
}

/** Builds the CLI when dist/ is missing or older than src/ or templates/. */
export function buildCli(): void {
  const cli = join(REPO, 'dist/src/cli.js');
  const stale = !existsSync(cli) || statSync(cli).mtimeMs < Math.max(newestMtime(join(REPO, 'src')), newestMtime(join(REPO, 'templates')));
  if (stale) execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO, stdio: 'inherit' });
}

/** Runs the built CLI: `node bin/mcp-gen.js <spec> --out test/.tmp/<name> --force ...` (or --out <name> for an absolute path). */
export function generateProject(spec: string, name: string, extraArgs: string[] = []): string {
  buildCli();
  const out = isAbsolute(name) ? name : join(TMP, name);
  execFileSync('node', [join(REPO, 'bin/mcp-gen.js'), spec, '--out', out, '--force', '--quiet', ...extraArgs], {
    cwd: REPO,
    stdio: 'pipe',
  });
  return out;
}

/** Runs `work` holding a mkdir lock, so that parallel test files installing the same thing wait for each other. */
export async function withLock<T>(lock: string, work: () => T): Promise<T> {
  mkdirSync(TMP, { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock} (remove it if no test run is installing)`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** One shared install per run. */
async function installDeps(pkg: { dependencies?: object; devDependencies: object }): Promise<void> {
  const wanted = JSON.stringify(
    { name: 'deps', private: true, dependencies: pkg.dependencies, devDependencies: pkg.devDependencies },
    null,
    2,
  );
  await withLock(join(TMP, '_deps.lock'), () => {
    const manifest = join(DEPS, 'package.json');
    if (existsSync(join(DEPS, 'node_modules/.package-lock.json')) && existsSync(manifest) && readFileSync(manifest, 'utf8') === wanted)
      return;
    rmSync(DEPS, { recursive: true, force: true });
    mkdirSync(DEPS, { recursive: true });
    writeFileSync(manifest, wanted);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: DEPS, stdio: 'inherit' });
  });
}

/** Development packages of a --target that the tests run from the repository's node_modules/.bin (esbuild, which every build uses, is installed). */
const PLATFORM_TOOLS = ['wrangler'];

/** Links the shared dependencies into a generated project and builds it. */
export async function buildProject(dir: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies: object };
  // A platform's own tool (wrangler) runs from this repository's install, at the version the project pins: the shared install stays one.
  const devDependencies = Object.fromEntries(Object.entries(pkg.devDependencies).filter(([name]) => !PLATFORM_TOOLS.includes(name)));
  await installDeps({ dependencies: pkg.dependencies ?? {}, devDependencies });
  const link = join(dir, 'node_modules');
  rmSync(link, { recursive: true, force: true });
  symlinkSync(join(DEPS, 'node_modules'), link, 'dir');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'pipe' });
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js --transport <t> --port 0 ...` and waits for its address. */
export function startServer(
  dir: string,
  transport: 'http' | 'sse' | 'http+sse',
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  return startNode([join(dir, 'dist/main.js'), '--transport', transport, '--port', '0', ...args], dir, env);
}

/** Starts `node <argv>` (a server given --port 0; `node`: another Node binary) and waits for the address it reports. */
export function startNode(argv: string[], cwd: string, env: Record<string, string> = {}, node = 'node'): Promise<RunningServer> {
  const child = spawn(node, argv, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`server did not start in 20 s:\n${stderr}`));
    }, 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // a server bound to all addresses (--host 0.0.0.0) reports 0.0.0.0: reached at 127.0.0.1
      const match = /on http:\/\/(?:127\.0\.0\.1|0\.0\.0\.0)(:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: `http://127.0.0.1${match[1]}`,
          process: child,
          stderr: () => stderr,
          stop: () => stopChild(child),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr}`));
    });
  });
}

export type ClientKind = 'stdio' | 'http' | 'sse';

/** A connected official SDK client; `negotiate` makes it speak 2026-07-28 when it can. */
export async function connect(
  kind: ClientKind,
  target: string,
  options: {
    negotiate?: boolean;
    env?: Record<string, string>;
    args?: string[];
    headers?: Record<string, string>;
    /** stdio: run `node <argv>` instead of the project's dist/main.js (`target` is then the working folder). */
    argv?: string[];
    /** stdio: this Node binary instead of the `node` on PATH. */
    node?: string;
    /** Answers form elicitations (the client then declares them), on either protocol era. */
    elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
    /** Extensions the client declares (capabilities.extensions), such as MCP Apps'. */
    extensions?: NonNullable<ClientCapabilities['extensions']>;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'mcp-gen-e2e', version: '1.0.0' },
    {
      ...(options.negotiate ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      capabilities: {
        ...(options.elicit ? { elicitation: { form: {} } } : {}),
        ...(options.extensions ? { extensions: options.extensions } : {}),
      },
    },
  );
  const elicit = options.elicit;
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params));
  const requestInit = options.headers ? { requestInit: { headers: options.headers } } : {};
  const transport =
    kind === 'stdio'
      ? new StdioClientTransport({
          command: options.node ?? 'node',
          args: options.argv ?? [join(target, 'dist/main.js'), ...(options.args ?? [])],
          cwd: target,
          env: { PATH: process.env.PATH ?? '', ...options.env },
          stderr: 'pipe',
        })
      : kind === 'http'
        ? new StreamableHTTPClientTransport(new URL(`${target}/mcp`), requestInit)
        : new SSEClientTransport(new URL(`${target}/sse`), requestInit);
  await client.connect(transport);
  return client;
}
