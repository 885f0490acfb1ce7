// Reading V8 CPU profiles (`node --cpu-prof`): where a process spent its time, either
// inclusively (a sample counts for every matching frame on its stack) or by self time.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Frame {
  functionName: string;
  url: string;
  /** 0-based, as V8 reports them. */
  lineNumber: number;
  columnNumber: number;
}

interface CpuProfile {
  /** Microseconds on the system's monotonic clock (the same as `process.hrtime`, in every process). */
  startTime: number;
  nodes: { id: number; callFrame: Frame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The newest profile of a thread written into `dir`, if any: the main thread's (0) by default.
 * Node names them `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`, one per thread.
 */
export function readProfile(dir: string, thread = 0): CpuProfile | undefined {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && Number(f.split('.').at(-3)) === thread)
    .sort()
    .pop();
  return file ? (JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile) : undefined;
}

/** Total sampled time and, per part, the time of the samples that have a matching frame on their stack (ms). */
export function inclusive(
  profile: CpuProfile,
  parts: Record<string, (frame: Frame) => boolean>,
): { totalMs: number; parts: Record<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out: Record<string, number> = Object.fromEntries(Object.keys(parts).map((k) => [k, 0]));
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const hit = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame) break;
      for (const [name, match] of Object.entries(parts)) if (match(frame)) hit.add(name);
    }
    for (const name of hit) out[name] = (out[name] ?? 0) + dt;
  });
  return { totalMs: total, parts: out };
}

/** Now on the clock of CPU profiles, in microseconds. */
export const profileClock = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time per category: each sample goes to the category `classify` gives its leaf frame
 * (ms); only samples within [from, to] (profileClock() values) when given.
 */
export function selfTime(
  profile: CpuProfile,
  classify: (frame: Frame) => string,
  window?: { from: number; to: number },
): Record<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out: Record<string, number> = {};
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (window && (t < window.from || t > window.to)) return;
    const frame = byId.get(id)?.callFrame;
    const key = frame ? classify(frame) : 'other';
    out[key] = (out[key] ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000;
  });
  return out;
}
