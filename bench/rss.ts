// 8. Peak memory of the generator on the largest specs of the corpus: peak RSS of one
// `mcp-gen <spec>` run (/usr/bin/time), against Node's own baseline (`node -e 0`) and the
// spec's size on disk — the target is ≤ 4× the spec's size beyond the baseline — with the
// dereference floor's peak on the same spec for reference, and the peaks of the generator's
// two halves alone (bench/generator-parts.mjs): parsing and modelling, and the compiler
// printing tool-types.ts from the spec's table. One run per spec: peak memory varies far less
// between runs than time does, and Graph beta alone takes tens of seconds.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { largestSpecs, mcpGenArgs } from './lib/fixtures.js';
import type { RssResult, RssRow } from './lib/results.js';
import { BENCH, TMP, firstErrorLine, log, median, timedRun } from './lib/util.js';

export async function runRss(options: { quick: boolean }): Promise<RssResult> {
  const baseline: number[] = [];
  for (let i = 0; i < 3; i++) baseline.push((await timedRun('node', ['-e', '0'])).maxRssMb);
  const out = join(TMP, 'rss-out');
  const rows: RssRow[] = [];
  for (const spec of largestSpecs(options.quick)) {
    log(`peak RSS: ${spec.label} (${(spec.bytes / 1e6).toFixed(1)} MB, ${spec.operations} operations)`);
    rmSync(out, { recursive: true, force: true });
    const gen = await timedRun('node', mcpGenArgs(spec.path, out), { timeoutMs: 600_000 });
    const parts = join(BENCH, 'generator-parts.mjs');
    const model = await timedRun('node', [parts, 'model', spec.path], { timeoutMs: 600_000 });
    const types = gen.code === 0 ? await timedRun('node', [parts, 'types', join(out, 'tools.json')], { timeoutMs: 600_000 }) : undefined;
    rmSync(out, { recursive: true, force: true });
    const floor = await timedRun('node', [join(BENCH, 'floor.mjs'), 'dereference', spec.path], { timeoutMs: 600_000 });
    rows.push({
      key: spec.key,
      label: spec.label,
      bytes: spec.bytes,
      operations: spec.operations,
      mcpGenMb: gen.maxRssMb,
      mcpGenMs: gen.ms,
      floorMb: floor.maxRssMb,
      floorMs: floor.ms,
      modelMb: model.maxRssMb,
      ...(types ? { typesMb: types.maxRssMb } : {}),
      ...(gen.code === 0 ? {} : { error: `exit ${gen.code}: ${firstErrorLine(gen.output)}` }),
    });
  }
  return { baselineMb: median(baseline), rows };
}
