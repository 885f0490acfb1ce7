// Section 8, the generator's peak memory on the largest specs of the corpus, against #30's
// target: ≤ 1.5× the peak of the dereference floor on the same spec; with the peaks of the
// generator's halves alone (parse and model; the compiler printing tool-types.ts) as its cause.
import type { Results, RssRow } from '../lib/results.js';
import { int, mb, notMeasured, s, table, x, type Target } from './format.js';

const FLOOR_LIMIT = 1.5;

/** (peak − Node's baseline) / the spec's size on disk. */
const overSize = (peakMb: number, baselineMb: number, bytes: number) => ((peakMb - baselineMb) * 2 ** 20) / bytes;
const overFloor = (row: RssRow) => row.mcpGenMb / row.floorMb;

export function rssTarget(r: Results): Target {
  const rss = r.rss;
  const target = `Generator peak RSS ≤ ${FLOOR_LIMIT}× the dereference floor's peak (largest corpus specs)`;
  if (!rss?.rows.length) return notMeasured(target);
  return {
    target,
    measured: rss.rows
      .map((row) => `${row.label} ${int(row.mcpGenMb)} vs ${int(row.floorMb)} MB${row.error ? ' (failed)' : ''}`)
      .join('; '),
    ratio: rss.rows.map((row) => `${row.label} ${x(overFloor(row), 1)}`).join(', '),
    met: rss.rows.every((row) => !row.error && overFloor(row) <= FLOOR_LIMIT),
  };
}

/** For each spec over the limit: which half of the generator holds the peak, measured alone. */
export function whyRss(r: Results): string[] {
  const rss = r.rss;
  if (!rss) return [];
  const over = rss.rows.filter((row) => !row.error && overFloor(row) > FLOOR_LIMIT);
  if (!over.length) return [];
  const base = rss.baselineMb;
  const split = over
    .filter((row) => row.modelMb !== undefined && row.typesMb !== undefined)
    .map(
      (row) =>
        `${row.label}: floor ${int(row.floorMb)} MB, mcp-gen ${int(row.mcpGenMb)} MB; parsing and modelling alone ${int(row.modelMb ?? NaN)} MB (${x((row.modelMb ?? NaN) / row.floorMb, 1)} the floor), the compiler printing tool-types.ts alone ${int(row.typesMb ?? NaN)} MB`,
    );
  return [
    `**Generator memory.** mcp-gen's peak is over ${FLOOR_LIMIT}× the dereference floor's on ${over.map((row) => `${row.label} (${x(overFloor(row), 1)})`).join(', ')}. ` +
      `Each half measured alone (\`bench/generator-parts.mjs\`, Node's baseline ${int(base)} MB): ${split.join('; ')}. ` +
      `Parsing and modelling stay near the floor's peak: the document and its model are what the floor holds too. The rest is the TypeScript compiler, which \`src/tool-types.ts\` needs (ts-morph's bundled compiler, a fixed choice; ts-morph's own project API is not loaded): in a worker with its V8 code cache it adds about 50 MB to the process before printing anything, and printing holds a copy of only the schema keywords it reads (the declarations are printed one tool at a time, each tool's syntax nodes dropped once printed); it runs beside the model, so the two peaks add up. Printing in the worker after the listing is decided lowered no peak; printing in the main thread after the other files are emitted (no worker) lowered Stripe's by ~23 MB, Kubernetes' by ~11 MB and GitHub's not at all, at the price of the worker's ~0.7 s of CPU (about half of these runs' wall time) coming after the model instead of beside it. ` +
      `*What would close it:* nothing while the compiler shares the generator's process — on specs whose floor is under ~150 MB the compiler's 50 MB comes on top of parsing and modelling's 1.0–1.4× the floor, so the target cannot be met on this design there. *Next step:* the main thread's young generation (V8's default: up to 2 × 16 MB of semi-spaces; \`--max-semi-space-size=2\` for the whole process lowered Kubernetes' peak by ~30 MB, but it can only be set when the process starts); on Microsoft Graph the peak is the emit stage, where the Buffers of tools.json (42 MB for Graph v1.0) reached 82 MB of external memory.`,
  ];
}

export function rssSection(r: Results): string[] {
  const rss = r.rss;
  if (!rss) return [];
  return [
    '## 8. Generator memory on the largest specs',
    '',
    `Peak RSS (\`/usr/bin/time\`) of one \`mcp-gen <spec>\` run with default options on the largest specs of the corpus, of the dereference floor (\`node bench/floor.mjs dereference <spec>\`) on the same spec, and of the generator's halves alone (\`node bench/generator-parts.mjs model <spec>\`: parse and model; \`… types <tools.json>\`: the compiler printing tool-types.ts from the generated table). Node's baseline — the peak of \`node -e 0\`, median of 3 — is ${int(rss.baselineMb)} MB; (peak − baseline) / size is the earlier target's measure (≤ 4×). One run per spec: peak memory moves little between runs.`,
    '',
    table(
      [
        'spec',
        'size',
        'operations',
        'mcp-gen peak',
        '× floor peak',
        'parse + model alone',
        'compiler printing alone',
        '(peak − baseline) / size',
        'mcp-gen time',
        'floor peak',
        'floor (peak − baseline) / size',
        'result',
      ],
      rss.rows.map((row) => [
        row.label,
        mb(row.bytes, 1),
        int(row.operations),
        `${int(row.mcpGenMb)} MB`,
        x(overFloor(row), 1),
        row.modelMb === undefined ? 'n/a' : `${int(row.modelMb)} MB`,
        row.typesMb === undefined ? 'n/a' : `${int(row.typesMb)} MB`,
        x(overSize(row.mcpGenMb, rss.baselineMb, row.bytes), 1),
        s(row.mcpGenMs, 1),
        `${int(row.floorMb)} MB`,
        x(overSize(row.floorMb, rss.baselineMb, row.bytes), 1),
        row.error ? `**failed**: ${row.error}` : 'ok',
      ]),
    ),
    '',
  ];
}
