// 1. Generation: wall time and peak RSS of `mcp-gen <spec>` against the floor (a node process
// that only dereferences the spec with swagger-parser) and against openapi-mcp-generator, plus
// swagger-parser's bundle() alone — the call mcp-gen's loader makes — to show where time goes.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OMG_BIN, mcpGenArgs, omgArgs, realSpecs, syntheticSpecs, type Spec } from './lib/fixtures.js';
import { BENCH, TMP, interleave, log, median, timedRun, type TimedRun } from './lib/util.js';

/** floor = dereference(); parse = read + JSON.parse only; bundle = swagger-parser's bundle() as mcp-gen calls it. */
export const GEN_VARIANTS = ['floor', 'parse', 'bundle', 'mcp-gen', 'omg'] as const;
export type GenVariant = (typeof GEN_VARIANTS)[number];

export interface GenCell {
  runs: { ms: number; maxRssMb: number }[];
  ms: number;
  maxRssMb: number;
  /** Set when a run failed: its exit code and first error line. */
  error?: string;
}

export interface GenRow {
  spec: Omit<Spec, 'path'>;
  cells: Partial<Record<GenVariant, GenCell>>;
}

/** Where mcp-gen's time goes, from a V8 CPU profile of one run (inclusive time of each part). */
export interface GenProfile {
  spec: string;
  totalMs: number;
  parts: Record<string, number>;
}

export interface GenResult {
  reps: number;
  rows: GenRow[];
  profiles: GenProfile[];
}

export const SYNTHETIC_SIZES = [1000, 2500, 5000, 10000];
/** bundle() alone is quadratic (see the report): above this size it is not re-measured on its own. */
const BUNDLE_MAX_OPS = 5000;

export async function runGen(options: { quick: boolean }): Promise<GenResult> {
  const reps = options.quick ? 1 : 3;
  const specs = options.quick ? [...realSpecs().filter((s) => s.key === 'k8s'), ...syntheticSpecs([1000, 2500])] : [...realSpecs(), ...syntheticSpecs(SYNTHETIC_SIZES)];
  const out = join(TMP, 'gen-out');
  const rows: GenRow[] = [];
  for (const spec of specs) {
    const variants = GEN_VARIANTS.filter((v) => v !== 'bundle' || spec.operations <= BUNDLE_MAX_OPS);
    log(`generation: ${spec.label} (${spec.operations} operations), ${reps} × ${variants.join(', ')}`);
    const runs = await interleave(reps, [...variants], (variant): Promise<TimedRun> => {
      const dir = join(out, variant);
      rmSync(dir, { recursive: true, force: true });
      if (variant === 'floor') return timedRun('node', [join(BENCH, 'floor.mjs'), 'dereference', spec.path]);
      if (variant === 'parse') return timedRun('node', [join(BENCH, 'floor.mjs'), 'parse', spec.path]);
      if (variant === 'bundle') return timedRun('node', [join(BENCH, 'floor.mjs'), 'bundle', spec.path]);
      if (variant === 'mcp-gen') return timedRun('node', mcpGenArgs(spec.path, dir));
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
  for (const spec of specs.filter((sp) => (options.quick ? sp.key === 'synthetic-1000' : sp.key === 'github' || sp.key === 'synthetic-5000'))) {
    log(`generation: CPU profile of mcp-gen on ${spec.label}`);
    profiles.push(await profile(spec, join(out, 'profiled')));
  }
  rmSync(out, { recursive: true, force: true });
  return { reps, rows, profiles };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

const PARTS: Record<string, (fn: string, url: string) => boolean> = {
  "swagger-parser bundle()": (fn, url) => fn === 'bundle' && url.includes('json-schema-ref-parser/dist/lib/bundle.js'),
  '… of which findInInventory': (fn, url) => fn === 'findInInventory' && url.includes('json-schema-ref-parser'),
  'mcp-gen model (buildModel)': (fn, url) => fn === 'buildModel' && url.includes('/dist/src/model/'),
  'mcp-gen emit (emitProject)': (fn, url) => fn === 'emitProject' && url.includes('/dist/src/emit/'),
  'mcp-gen write (writeProject)': (fn, url) => fn === 'writeProject' && url.includes('/dist/src/write/'),
};

/** One mcp-gen run under `--cpu-prof`; a sample counts for a part when the part is on its stack. */
async function profile(spec: Spec, dir: string): Promise<GenProfile> {
  const profDir = join(TMP, 'gen-profile');
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  await timedRun('node', ['--cpu-prof', `--cpu-prof-dir=${profDir}`, ...mcpGenArgs(spec.path, dir)]);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const parts: Record<string, number> = Object.fromEntries(Object.keys(PARTS).map((k) => [k, 0]));
  if (!file) return { spec: spec.label, totalMs: NaN, parts };
  const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let total = 0;
  prof.samples.forEach((id, i) => {
    const dt = (prof.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const hit = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame) break;
      for (const [name, match] of Object.entries(PARTS)) if (match(frame.functionName, frame.url)) hit.add(name);
    }
    for (const name of hit) parts[name] = (parts[name] ?? 0) + dt;
  });
  rmSync(profDir, { recursive: true, force: true });
  return { spec: spec.label, totalMs: total, parts };
}
