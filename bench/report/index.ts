// docs/benchmarks.md and docs/benchmarks.svg from the measured results: the targets of
// issue #30 first (#16's after them, for information), then why each missed one is missed,
// then one part per section (each in its own module here). Every number comes from the
// results; absent sections are skipped.
import type { Results, Section } from '../lib/results.js';
import { budgetSection } from './budget.js';
import { buildSection, buildTarget, whyBuild } from './build.js';
import { callsSection, sessionTarget, stdioAboveFloorTarget, stdioCpuTarget, whyAboveFloor, whySessions, whyStdioCpu } from './calls.js';
import { capacitySection, capacityTargets, httpAboveFloor, httpAboveFloorTargets, whyCapacity } from './capacity.js';
import { chart } from './chart.js';
import { featuresSection } from './features.js';
import { int, table, verdict, type Target } from './format.js';
import { genSection, genTargets, genVersusOmg, whyGeneration } from './gen.js';
import { listSection, listTargets, whyList } from './list.js';
import { oauthSection } from './oauth.js';
import { packageSection } from './package.js';
import { platformsSection } from './platforms.js';
import { rssSection, rssTarget, whyRss } from './rss.js';
import { firstCallTarget, startSection, startTarget, whyFirstCall, whyStart } from './start.js';
import { tokensSection } from './tokens.js';

/** The targets of #30 in the issue's order, with #43's cold start to the first call beside #30's (the features' costs are reported in section 11). */
function targets(r: Results): Target[] {
  const [floor] = genTargets(r);
  return [
    genVersusOmg(r),
    floor as Target,
    startTarget(r),
    firstCallTarget(r),
    stdioAboveFloorTarget(r),
    ...httpAboveFloorTargets(r),
    rssTarget(r),
  ];
}

/** Earlier targets (#16), kept for information: they no longer decide anything. */
function informational(r: Results): Target[] {
  const [, linear] = genTargets(r);
  return [...capacityTargets(r), stdioCpuTarget(r), buildTarget(r), linear as Target, sessionTarget(r), ...listTargets(r)];
}

const targetTable = (rows: Target[]) =>
  table(
    ['target', 'measured (median)', 'ratio', 'verdict'],
    rows.map((row) => [row.target, row.measured, row.ratio, verdict(row.met)]),
  );

export function render(r: Results): { markdown: string; svg: string } {
  const m = r.meta;
  const why = [
    ...whyGeneration(r),
    ...whyStart(r),
    ...whyFirstCall(r),
    ...whyAboveFloor(r, httpAboveFloor(r)),
    ...whyRss(r),
    ...whyCapacity(r),
    ...whyStdioCpu(r),
    ...whyBuild(r),
    ...whySessions(r),
  ];
  const seconds = Object.entries(m.sectionSeconds)
    .map(([k, v]) => `${k} ${Math.round(v)} s`)
    .join(', ');
  const md = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` (\`bench/run.ts\`) on ${m.date}${m.quick ? ' — **a --quick smoke run: few repetitions, not for quoting**' : ''}. Machine: ${m.cores} × ${m.cpu}, ${m.memoryGb} GB, Linux VM, Node ${m.node}. ` +
      `mcp-gen ${m.mcpGen} (SDK v2 ${m.sdk}) against openapi-mcp-generator ${m.omg} ("omg" below${
        Object.keys(m.omgDeps).length
          ? `; its generated servers run on ${Object.entries(m.omgDeps)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`
          : ''
      }). ` +
      `Run time: ${Math.round(m.totalSeconds)} s for the sections of the last invocation (${m.lastRun.join(', ')}); per section: ${seconds}.`,
    '',
    'Method: each comparison runs its contenders in the same run, interleaved (the order rotates every round), and reports medians of several repetitions and the ratio of medians. The machine is a 2-core VM shared with other jobs: absolute times move between runs by up to 2× when it is busy; ratios of contenders measured side by side are steadier, but still move by tens of percent. Every repetition is kept in `bench/.tmp/results.json`.',
    '',
    ...Object.entries(m.warnings ?? {}).flatMap(([name, w]) => [
      `The bench process itself received ${int(w.count)} × \`${name}\` (first: "${w.first}").` +
        (name === 'MaxListenersExceededWarning'
          ? " It comes from the SDK's Streamable HTTP client, which passes its transport's one long-lived AbortSignal to every `fetch`; Node 20's undici removes each request's abort listener only when the request is garbage-collected, so a busy client trips the warning (nodejs/node#52635; undici fixed it in nodejs/undici#5318). Memory is reclaimed at GC; the numbers are not affected."
          : ''),
      '',
    ]),
    '![Benchmark chart](benchmarks.svg)',
    '',
    '## Targets (issues #30 and #43)',
    '',
    "CPU per call above the floor is the server's CPU per `tools/call` minus that of the SDK's own server with one tool that only GETs the upstream, measured in the same run: over stdio in section 4, over HTTP with a lean client in section 5. The costs of the new features are in section 11, each beside the call it adds to.",
    '',
    targetTable(targets(r)),
    '',
    'Earlier targets (issue #16), for information only:',
    '',
    targetTable(informational(r)),
    '',
    ...(why.length ? ['## Why the missed targets are missed, and what would close them', '', ...why.flatMap((p) => [p, ''])] : []),
    ...(r.gen ? genSection(r.gen) : []),
    ...buildSection(r),
    ...startSection(r),
    ...callsSection(r),
    ...capacitySection(r),
    ...listSection(r),
    ...whyListParagraphs(r),
    ...budgetSection(r),
    ...rssSection(r),
    ...oauthSection(r),
    ...tokensSection(r),
    ...featuresSection(r),
    ...platformsSection(r),
    ...packageSection(r),
    '## Running it',
    '',
    '```sh',
    'npm run bench                              # everything (about a quarter of an hour on 2 cores); writes this file and benchmarks.svg',
    'npm run bench -- --only capacity,rss       # some sections (gen, build, start, calls, capacity, list, budget, rss, oauth, tokens, features, platforms, package); the others are kept from bench/.tmp/results.json',
    'npm run bench -- --quick                   # smoke run: fewer specs, repetitions and calls; writes bench/.tmp/quick/',
    'npm run bench -- --render                  # measure nothing: rewrite this file from bench/.tmp/results.json',
    'npx tsx bench/validators.ts                # section 12 alone (after npm run corpora and npm run build); a full run keeps it',
    '```',
    '',
    "Work files go to `bench/.tmp/` (ignored by git): the Kubernetes spec gunzipped, the synthetic specs, the generated projects, openapi-mcp-generator's dependencies (one `npm install`), the raw results (`results.json`, every repetition). mcp-gen's generated projects link the dependencies the end-to-end tests install in `test/.tmp/_deps`.",
    '',
  ].join('\n');
  return { markdown: md, svg: chart(r) };
}

/** The tools/list target is informational now; its explanation stays with its section's numbers. */
function whyListParagraphs(r: Results): string[] {
  const lines = whyList(r);
  return lines.length ? ['### Why the GitHub tools/list is larger than openapi-mcp-generator’s', '', ...lines.flatMap((p) => [p, ''])] : [];
}

/** Sections written by a bench script of their own (bench/validators.ts), which a full render keeps as they are. */
const OWN_SCRIPT_SECTIONS = ['## 12. Validators'];

/** `rendered` with the sections that their own scripts wrote into `existing`, before "Running it". */
export function keepOwnScriptSections(existing: string, rendered: string): string {
  let out = rendered;
  for (const start of OWN_SCRIPT_SECTIONS) out = spliceBlock(out, existing, start);
  return out;
}

/** `into` with the block of `from` that starts with `start` in place of its own (or before "Running it"). */
export function spliceBlock(into: string, from: string, start: string): string {
  const fresh = block(from, start);
  if (!fresh) return into;
  const text = from.slice(fresh.from, fresh.to);
  const old = block(into, start);
  if (old) return into.slice(0, old.from) + text + into.slice(old.to);
  const before = block(into, RUNNING);
  return before ? into.slice(0, before.from) + text + into.slice(before.from) : `${into.trimEnd()}\n\n${text}`;
}

/** Report sections that stand alone (no row in the targets above, no chart): their heading's start. */
export const SELF_CONTAINED: Partial<Record<Section, string>> = {
  tokens: '## 10. ',
  features: '## 11. ',
  platforms: '## 13. ',
  package: '## 14. ',
};
const RUNNING = '## Running it';

/** The block of `markdown` from the heading that starts with `start` to the next `## ` heading. */
function block(markdown: string, start: string): { from: number; to: number } | undefined {
  const from = markdown.startsWith(start) ? 0 : markdown.indexOf(`\n${start}`) + 1;
  if (from === 0 && !markdown.startsWith(start)) return undefined;
  const next = markdown.indexOf('\n## ', from + 1);
  return { from, to: next < 0 ? markdown.length : next + 1 };
}

/**
 * When the other sections' results are not at hand (no bench/.tmp/results.json), a run of
 * self-contained sections rewrites only their own parts of the existing report (and the
 * "Running it" part, which names the sections), leaving the rest as the last full run wrote it.
 */
export function spliceSections(existing: string, rendered: string, sections: Section[]): string {
  let out = existing;
  for (const start of [...sections.map((s) => SELF_CONTAINED[s] as string), RUNNING]) out = spliceBlock(out, rendered, start);
  return out;
}
