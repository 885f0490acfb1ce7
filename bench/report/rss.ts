// Section 8, the generator's peak memory on the largest specs of the corpus, against the
// target of ≤ 4× the spec's size beyond Node's own baseline.
import type { Results } from '../lib/results.js';
import { int, mb, notMeasured, s, table, x, type Target } from './format.js';

const RSS_LIMIT = 4;

/** (peak − Node's baseline) / the spec's size on disk. */
const overSize = (peakMb: number, baselineMb: number, bytes: number) => ((peakMb - baselineMb) * 2 ** 20) / bytes;

export function rssTarget(r: Results): Target {
  const rss = r.rss;
  const target = `Generator peak RSS ≤ ${RSS_LIMIT}× the spec's size beyond Node's baseline (largest corpus specs)`;
  if (!rss?.rows.length) return notMeasured(target);
  const ratios = rss.rows.map((row) => overSize(row.mcpGenMb, rss.baselineMb, row.bytes));
  return {
    target,
    measured: rss.rows
      .map((row) => `${row.label} ${int(row.mcpGenMb)} MB for ${mb(row.bytes, 1)}${row.error ? ' (failed)' : ''}`)
      .join('; '),
    ratio: rss.rows.map((row, i) => `${row.label} ${x(ratios[i] as number, 1)}`).join(', '),
    met: rss.rows.every((row, i) => !row.error && (ratios[i] as number) <= RSS_LIMIT),
  };
}

/** For each spec over the limit: whether the dereferenced document alone is over it (the floor), or what mcp-gen adds to it. */
export function whyRss(r: Results): string[] {
  const rss = r.rss;
  if (!rss) return [];
  const over = rss.rows.filter((row) => row.error || overSize(row.mcpGenMb, rss.baselineMb, row.bytes) > RSS_LIMIT);
  if (!over.length) return [];
  const rows = over.filter((row) => !row.error);
  const floorOver = rows.filter((row) => overSize(row.floorMb, rss.baselineMb, row.bytes) > RSS_LIMIT);
  const overFloor = rows.map((row) => row.mcpGenMb / row.floorMb);
  const failed = over.filter((row) => row.error);
  return [
    `**Generator memory.** Node's own baseline (\`node -e 0\`) peaks at ${int(rss.baselineMb)} MB. Over ${RSS_LIMIT}× the spec's size: ` +
      rows
        .map(
          (row) =>
            `${row.label} ${x(overSize(row.mcpGenMb, rss.baselineMb, row.bytes), 1)} (floor ${x(overSize(row.floorMb, rss.baselineMb, row.bytes), 1)})`,
        )
        .join(', ') +
      (failed.length ? `; failed: ${failed.map((row) => `${row.label} (${row.error})`).join(', ')}` : '') +
      '. ' +
      (floorOver.length
        ? `On ${floorOver.length === rows.length ? 'every one of them' : floorOver.map((row) => row.label).join(', ')} the floor — swagger-parser's \`dereference()\` and nothing else — is itself over ${RSS_LIMIT}×: JSON parsed into JavaScript objects takes several times its text (every string, object and property is a heap object), so no generator that holds the whole document in memory can meet the target as stated. `
        : '') +
      (rows.length
        ? `What mcp-gen adds is measured against that floor: its peak is ${x(Math.min(...overFloor), 1)}–${x(Math.max(...overFloor), 1)} the floor's (${rows.map((row) => `${row.label} ${int(row.mcpGenMb)} vs ${int(row.floorMb)} MB`).join(', ')}). `
        : '') +
      `*Next step:* restate the target against the floor (mcp-gen's peak ≤ a small multiple of the dereferenced document's), and find which stage holds the rest with a heap profile at the peak (\`node --heap-prof\`): the parsed spec, the model, or the emitted files kept in memory before writing — then drop each as soon as the next stage has what it needs.`,
  ];
}

export function rssSection(r: Results): string[] {
  const rss = r.rss;
  if (!rss) return [];
  return [
    '## 8. Generator memory on the largest specs',
    '',
    `Peak RSS (\`/usr/bin/time\`) of one \`mcp-gen <spec>\` run with default options on the largest specs of the corpus, and of the dereference floor (\`node bench/floor.mjs dereference <spec>\`) on the same spec. Node's baseline — the peak of \`node -e 0\`, median of 3 — is ${int(rss.baselineMb)} MB; the ratio is (peak − baseline) / the spec's size on disk. One run per spec: peak memory moves little between runs.`,
    '',
    table(
      [
        'spec',
        'size',
        'operations',
        'mcp-gen peak',
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
