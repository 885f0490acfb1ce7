// 1. Generation: wall time and peak RSS of `mcp-gen <spec>` against the floor (a node process
// that only dereferences the spec with swagger-parser) and against openapi-mcp-generator; then
// a CPU profile of mcp-gen per spec, to show where its time goes.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, posix } from 'node:path';
import { inclusive, readProfile, selfTime, type Frame } from './lib/profile.js';
import { OMG_BIN, mcpGenArgs, omgArgs, realSpecs, syntheticSpecs } from './lib/fixtures.js';
import { GEN_VARIANTS, WORKER_PART, type GenProfile, type GenResult, type GenRow, type Spec } from './lib/results.js';
import { BENCH, REPO, TMP, interleave, log, median, timedRun, type TimedRun } from './lib/util.js';

export const SYNTHETIC_SIZES = [1000, 2500, 5000, 10000];

export async function runGen(options: { quick: boolean }): Promise<GenResult> {
  const reps = options.quick ? 1 : 5;
  const specs = options.quick
    ? [...realSpecs().filter((s) => s.key === 'k8s'), ...syntheticSpecs([1000, 2500])]
    : [...realSpecs(), ...syntheticSpecs(SYNTHETIC_SIZES)];
  const out = join(TMP, 'gen-out');
  const rows: GenRow[] = [];
  for (const spec of specs) {
    const variants = [...GEN_VARIANTS];
    log(`generation: ${spec.label} (${spec.operations} operations), ${reps} × ${variants.join(', ')}`);
    // the folder regenerated into holds the previous run's project from the start
    await timedRun('node', mcpGenArgs(spec.path, join(out, 'mcp-gen-regen')));
    const runs = await interleave(reps, [...variants], (variant): Promise<TimedRun> => {
      const dir = join(out, variant);
      if (variant !== 'mcp-gen-regen') rmSync(dir, { recursive: true, force: true });
      if (variant === 'floor') return timedRun('node', [join(BENCH, 'floor.mjs'), 'dereference', spec.path]);
      if (variant === 'parse') return timedRun('node', [join(BENCH, 'floor.mjs'), 'parse', spec.path]);
      if (variant === 'mcp-gen' || variant === 'mcp-gen-regen') return timedRun('node', mcpGenArgs(spec.path, dir));
      if (variant === 'mcp-gen-first')
        return timedRun('node', mcpGenArgs(spec.path, dir), { env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' } });
      return timedRun(OMG_BIN, omgArgs(spec.path, dir));
    });
    const cells: GenRow['cells'] = {};
    for (const variant of variants) {
      const list = runs[variant];
      const failed = list.find((r) => r.code !== 0);
      cells[variant] = {
        runs: list.map((r) => ({ ms: r.ms, maxRssMb: r.maxRssMb })),
        ms: median(list.map((r) => r.ms)),
        maxRssMb: median(list.map((r) => r.maxRssMb)),
        ...(failed ? { error: `exit ${failed.code}: ${failed.output.trim().split('\n').slice(-1)[0] ?? ''}` } : {}),
      };
    }
    const { path: _path, ...about } = spec;
    rows.push({ spec: about, cells });
  }
  const profiles: GenProfile[] = [];
  const profiled = options.quick
    ? ['k8s', 'synthetic-1000', 'synthetic-2500']
    : ['github', 'stripe', 'k8s', 'synthetic-1000', 'synthetic-10000'];
  for (const spec of specs.filter((sp) => profiled.includes(sp.key))) {
    log(`generation: CPU profile of mcp-gen on ${spec.label}`);
    profiles.push(await profile(spec, join(out, 'profiled')));
  }
  rmSync(out, { recursive: true, force: true });
  return { reps, rows, profiles };
}

/** The model stage's entry points: the tools built from the document, then the listing decided. */
const MODEL_STAGE = ['buildModel', 'buildTools', 'decideListing'];

/** The bundled CLI's map to its sources (scripts/bundle-cli.js writes it beside the bundle, unpublished). */
let bundleMap: SourceMap | undefined;
const sourceFiles = new Map<string, string | undefined>();

/** The mcp-gen source file (`src/….ts`) a frame's function is in: tsc's build names it, the bundle's map finds it. */
function sourceFile(f: Frame): string | undefined {
  if (f.url.includes('/dist/src/')) return f.url.replace(/^.*\/dist\/src\//, 'src/').replace(/\.js$/, '.ts');
  if (!f.url.endsWith('/dist/bundle/cli.mjs')) return undefined;
  const at = `${f.lineNumber}:${f.columnNumber}`;
  if (!sourceFiles.has(at)) {
    bundleMap ??= new SourceMap(JSON.parse(readFileSync(join(REPO, 'dist/bundle/cli.mjs.map'), 'utf8')) as never);
    const entry = bundleMap.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string };
    const file = entry.originalSource === undefined ? undefined : posix.normalize(entry.originalSource).replace(/^(\.\.\/)+/, '');
    sourceFiles.set(at, file?.startsWith('src/') ? file : undefined);
  }
  return sourceFiles.get(at);
}

const inStage = (f: Frame, names: string[], folder: string) => names.includes(f.functionName) && !!sourceFile(f)?.startsWith(folder);

const PARTS: Record<string, (frame: Frame) => boolean> = {
  'loading modules': (f) => f.url.startsWith('node:internal/modules/'),
  'parse (loadSpec)': (f) => inStage(f, ['loadSpec'], 'src/parse/'),
  '… of which swagger-parser bundle()': (f) => f.functionName === 'bundle' && f.url.includes('json-schema-ref-parser/dist/lib/bundle.js'),
  'mcp-gen model (buildModel)': (f) => inStage(f, MODEL_STAGE, 'src/model/'),
  'mcp-gen emit (emitProject)': (f) => inStage(f, ['emitProject'], 'src/emit/'),
  // a new folder is begun by startFreshWrite, which writes the prebuilt runtime, and ended by
  // finish(); add() writes the other files while tool-types.ts is printed
  'mcp-gen write (writeProject)': (f) => inStage(f, ['writeProject', 'startFreshWrite', 'finish', 'add'], 'src/write/'),
};

/** One mcp-gen run under `--cpu-prof`; a sample counts for a part when the part is on its stack. */
async function profile(spec: Spec, dir: string): Promise<GenProfile> {
  const profDir = join(TMP, 'gen-profile');
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  await timedRun('node', ['--cpu-prof', `--cpu-prof-dir=${profDir}`, ...mcpGenArgs(spec.path, dir)]);
  const prof = readProfile(profDir);
  // src/tool-types.ts is printed in a worker thread (src/emit/types-worker.ts): its own profile.
  const worker = readProfile(profDir, 1);
  rmSync(profDir, { recursive: true, force: true });
  const about = { key: spec.key, spec: spec.label, operations: spec.operations };
  if (!prof) return { ...about, totalMs: NaN, parts: Object.fromEntries(Object.keys(PARTS).map((k) => [k, NaN])), hot: [] };
  const own = selfTime(prof, (f) => {
    const file = sourceFile(f);
    return file ? `${f.functionName || '(anonymous)'} (${file})` : '';
  });
  const hot = Object.entries(own)
    .filter(([name]) => name !== '')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, ms]) => ({ name, ms }));
  const main = inclusive(prof, PARTS);
  // Busy time only: the worker idles while it waits for the table.
  const threadTime = worker ? inclusive(worker, { idle: (f) => f.functionName === '(idle)' }) : undefined;
  const printing = threadTime ? threadTime.totalMs - (threadTime.parts.idle ?? 0) : 0;
  return {
    ...about,
    ...main,
    parts: { ...main.parts, [WORKER_PART]: printing },
    hot,
  };
}
