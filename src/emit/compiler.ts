// Loads the TypeScript compiler that ts-morph bundles (9 MB of JavaScript), and only it: the
// printer and its node factory are all tool-types.ts needs, and ts-morph's own project API and
// the text of TypeScript's lib files around it added ~20 MB to the process (~40 MB with their
// code cache) and 0.1 s of loading. Compiling it took 0.3–0.8 s of every generation, more than
// parsing and modelling most specs: V8's code cache for it is kept between runs in the user's
// cache folder, Node 22+ through its own module compile cache, Node 20 (which has none)
// through a cache of that one file made here.

import * as buffer from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The compiler's namespace, as ts-morph exports it (`ts`). */
export type Ts = typeof import('ts-morph').ts;

const require = createRequire(import.meta.url);

/** ts-morph's compiler: `./typescript` of @ts-morph/common, the module whose exports are ts-morph's `ts`. */
function compilerFile(): string {
  const common = createRequire(require.resolve('ts-morph')).resolve('@ts-morph/common');
  return join(dirname(common), 'typescript.js');
}

/** Node 22's API, absent from Node 20's types. */
interface NodeCompileCache {
  enableCompileCache?: (dir: string) => unknown;
  flushCompileCache?: () => void;
}
const nodeCache = Module as unknown as NodeCompileCache;

let loaded: { ts: Ts; saveCache: () => void } | undefined;

/** ts-morph's TypeScript compiler, compiled from the cache when one is there. */
export function compiler(): Ts {
  loaded ??= load();
  return loaded.ts;
}

/** Keeps what V8 compiled while the compiler ran (the printer's functions too) for the next run. */
export function saveCompilerCache(): void {
  loaded?.saveCache();
}

/**
 * Node 22+: its compile cache for every module this thread loads from now on (the CLI calls
 * it first). False where Node has none or the cache is off.
 */
export function useNodeCompileCache(): boolean {
  const dir = nodeCache.enableCompileCache ? cacheFolder() : undefined;
  if (dir) nodeCache.enableCompileCache?.(dir);
  return dir !== undefined;
}

function load(): { ts: Ts; saveCache: () => void } {
  const file = compilerFile();
  if (useNodeCompileCache()) return { ts: require(file) as Ts, saveCache: () => nodeCache.flushCompileCache?.() };
  const dir = cacheFolder();
  const save = dir ? compileWithCache(file, dir) : () => undefined;
  return { ts: require(file) as Ts, saveCache: save };
}

/**
 * The user's own cache folder (never a shared temporary one: V8 trusts a code cache whose
 * source has the same length, so another user must not be able to plant one). Undefined
 * when it cannot be made or `NODE_DISABLE_COMPILE_CACHE` is set (Node's own switch).
 */
function cacheFolder(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = join(base, 'mcp-gen', 'compile-cache');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Compiles `file` as a CommonJS module with V8's code cache and puts it in require's cache,
 * so that the `require()` of it that follows finds it compiled. Answers the function that
 * saves the cache (a no-op when the cache was used as it was).
 */
function compileWithCache(file: string, dir: string): () => void {
  const source = sourceText(file);
  const cacheFile = join(dir, cacheKey(file));
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet
  }
  const script = new Script(wrapped(source), { filename: file, cachedData });
  const module = new Module(file, undefined);
  module.filename = file;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  require.cache[file] = module;
  if (cachedData && !script.cachedDataRejected) return () => undefined;
  return () => writeAtomically(cacheFile, script.createCachedData());
}

/**
 * The file's text. The compiler's is ASCII, which read as Latin-1 (the same text then) skips
 * decoding 9 MB of UTF-8: ~10 ms of the worker's load. `isAscii` is Node 20.10's.
 */
function sourceText(file: string): string {
  const bytes = readFileSync(file);
  const isAscii = (buffer as { isAscii?: (bytes: Buffer) => boolean }).isAscii;
  return isAscii?.(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

const wrapped = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

/** The file as this Node compiles it: a new Node, V8 or file version never reads an old cache. */
function cacheKey(file: string): string {
  const { size, mtimeMs } = statSync(file);
  const identity = [process.version, process.arch, file, size, mtimeMs].join('\0');
  return `${createHash('sha256').update(identity).digest('hex').slice(0, 32)}.v8cache`;
}

/** Another run reading the file meanwhile sees the old cache or the new one, never half of it. */
function writeAtomically(path: string, data: Buffer): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, path);
  } catch {
    // a cache that cannot be written only costs the next run its compile time
  }
}
