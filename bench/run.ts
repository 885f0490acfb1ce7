// `npm run bench`: runs the measurements and writes docs/benchmarks.md and docs/benchmarks.svg.
//   --only gen,build,start,calls,capacity,list,budget,rss,oauth,tokens,features,platforms,package   run these sections (the others are kept from the last run's results)
//   --quick                             a smoke run: fewer specs, repetitions and calls; writes to bench/.tmp/quick/
//   --render                            measure nothing: rewrite the report from the last results (after editing bench/report/)
import { cpus, totalmem } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCli } from '../harness/project.js';
import { runBudget } from './budget.js';
import { runBuildBench } from './build.js';
import { runCalls } from './calls.js';
import { runCapacity } from './capacity.js';
import { runFeatures } from './features.js';
import { runGen } from './gen.js';
import { omgDepVersions, omgVersion } from './lib/fixtures.js';
import { SECTIONS, type Results, type Section } from './lib/results.js';
import { REPO, TMP, ensureDir, log } from './lib/util.js';
import { runList } from './list.js';
import { runOAuth } from './oauth.js';
import { runPackage } from './package.js';
import { runPlatforms } from './platforms.js';
import { SELF_CONTAINED, keepOwnScriptSections, render, spliceSections } from './report/index.js';
import { runRss } from './rss.js';
import { runStart } from './start.js';
import { runTokens } from './tokens.js';

const version = (file: string) => (JSON.parse(readFileSync(join(REPO, file), 'utf8')) as { version: string }).version;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, quick: { type: 'boolean', default: false }, render: { type: 'boolean', default: false } },
  });
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...SECTIONS];
  const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length) {
    process.stderr.write(`bench: unknown section ${unknown.join(', ')} (known: ${SECTIONS.join(', ')})\n`);
    process.exit(2);
  }
  const quick = values.quick ?? false;
  const outDir = quick ? ensureDir(join(TMP, 'quick')) : join(REPO, 'docs');
  const resultsFile = join(ensureDir(quick ? join(TMP, 'quick') : TMP), 'results.json');
  if (values.render) {
    if (!existsSync(resultsFile)) throw new Error(`no results to render: ${resultsFile} (run the benchmarks first)`);
    log(`rendered from ${resultsFile}: ${writeReport(JSON.parse(readFileSync(resultsFile, 'utf8')) as Results, outDir, resultsFile)}`);
    return;
  }
  const previous: Partial<Results> =
    existsSync(resultsFile) && only.length < SECTIONS.length ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Results) : {};

  const started = performance.now();
  // Node's own printer would repeat a warning thousands of times (see the report): print
  // each kind once and count it.
  const warnings: Record<string, { first: string; count: number }> = {};
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const seen = (warnings[warning.name] ??= { first: warning.message, count: 0 });
    if (seen.count++ === 0) process.stderr.write(`(bench) ${warning.name}: ${warning.message} (printed once; counted)\n`);
  });
  buildCli();
  const results: Results = {
    ...previous,
    meta: {
      date: new Date().toISOString().slice(0, 10),
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      quick,
      mcpGen: version('package.json'),
      omg: omgVersion(),
      omgDeps: previous.meta?.omgDeps ?? {},
      sdk: version('node_modules/@modelcontextprotocol/server/package.json'),
      refParser: version('node_modules/@apidevtools/json-schema-ref-parser/package.json'),
      warnings: {},
      sectionSeconds: previous.meta?.sectionSeconds ?? {},
      totalSeconds: 0,
      lastRun: only as Section[],
    },
  };
  const options = { quick };
  const steps: Record<Section, () => Promise<void>> = {
    gen: async () => void (results.gen = await runGen(options)),
    build: async () => void (results.build = await runBuildBench(options)),
    start: async () => void (results.start = await runStart(options)),
    calls: async () => void (results.calls = await runCalls(options)),
    capacity: async () => void (results.capacity = await runCapacity(options)),
    list: async () => void (results.list = await runList(options)),
    budget: async () => void (results.budget = await runBudget()),
    rss: async () => void (results.rss = await runRss(options)),
    oauth: async () => void (results.oauth = await runOAuth(options)),
    tokens: async () => void (results.tokens = await runTokens(options)),
    features: async () => void (results.features = await runFeatures(options)),
    platforms: async () => void (results.platforms = await runPlatforms(options)),
    package: async () => void (results.package = await runPackage(options)),
  };
  for (const section of SECTIONS) {
    if (!only.includes(section)) continue;
    const t0 = performance.now();
    await steps[section]();
    results.meta.sectionSeconds[section] = (performance.now() - t0) / 1000;
    log(`${section} done in ${results.meta.sectionSeconds[section]?.toFixed(0)} s`);
    writeFileSync(resultsFile, JSON.stringify(results, null, 1));
  }
  results.meta.omgDeps = { ...results.meta.omgDeps, ...omgDepVersions() };
  results.meta.warnings = warnings;
  results.meta.totalSeconds = (performance.now() - started) / 1000;
  writeFileSync(resultsFile, JSON.stringify(results, null, 1));
  log(`done in ${results.meta.totalSeconds.toFixed(0)} s: ${writeReport(results, outDir, resultsFile)}`);
}

/**
 * Writes docs/benchmarks.md and the chart from the results. Sections with no results (neither
 * measured now nor kept from an earlier run) would vanish from a full render: then only the
 * self-contained sections that have results are rewritten in the existing report.
 */
function writeReport(results: Results, outDir: string, resultsFile: string): string {
  const { markdown, svg } = render(results);
  const report = join(outDir, 'benchmarks.md');
  const missing = SECTIONS.filter((s) => results[s] === undefined);
  if (missing.length === 0) {
    writeFileSync(report, existsSync(report) ? keepOwnScriptSections(readFileSync(report, 'utf8'), markdown) : markdown);
    writeFileSync(join(outDir, 'benchmarks.svg'), svg);
    return report;
  }
  const present = SECTIONS.filter((s) => results[s] !== undefined);
  const alone = present.filter((s) => SELF_CONTAINED[s] !== undefined);
  const written = alone.length > 0 && existsSync(report);
  if (written) writeFileSync(report, spliceSections(readFileSync(report, 'utf8'), markdown, alone));
  const unwritten = present.filter((s) => SELF_CONTAINED[s] === undefined);
  return (
    `no results for ${missing.join(', ')} in ${resultsFile}: ` +
    (written ? `rewrote only the ${alone.join(', ')} part of ${report}` : `${report} left as it was`) +
    (unwritten.length ? `; ${unwritten.join(', ')} kept in ${resultsFile} only (rendered after a full run)` : '')
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
