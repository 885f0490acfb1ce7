// Section 13, the generated servers on the platforms' runtimes (issue #40): cold start, CPU per
// call against the Node server of the same run, and the Worker bundle against Cloudflare's limits.
import { PLATFORM_TARGETS, type PlatformProject, type PlatformTarget, type PlatformsResult, type Results } from '../lib/results.js';
import { int, mb, msf, pct, table, x } from './format.js';

/** Cloudflare's limits on a Worker's compressed size (https://developers.cloudflare.com/workers/platform/limits/#worker-size), MB taken as 10^6 bytes: the stricter reading. */
const FREE_LIMIT = 3e6;
const PAID_LIMIT = 10e6;

const TARGET_LABEL: Record<PlatformTarget, string> = {
  node: 'Node (`node dist/main.js --transport http --stateless`)',
  cloudflare: 'workerd (`wrangler dev`)',
  deno: 'Deno (`deno task start`)',
};

const range = (runs: number[]) => {
  const ok = runs.filter(Number.isFinite);
  return ok.length ? `${msf(Math.min(...ok))} – ${msf(Math.max(...ok))}` : 'n/a';
};

function startRows(projects: PlatformProject[]): string[][] {
  return projects.flatMap((p) =>
    PLATFORM_TARGETS.map((t) => {
      const cell = p.start[t];
      const node = p.start.node?.ms ?? NaN;
      if (!cell) return [p.label, TARGET_LABEL[t], 'not measured', '', ''];
      if (cell.error && !Number.isFinite(cell.ms)) return [p.label, TARGET_LABEL[t], `failed: ${cell.error}`, '', ''];
      return [p.label, TARGET_LABEL[t], msf(cell.ms), t === 'node' ? '' : x(cell.ms / node), range(cell.runs)];
    }),
  );
}

/** CPU of one process kind per call, or of all but wrangler's dev server (its node process and esbuild). */
const workerdOnly = (byProcess: Record<string, number>) => byProcess.workerd ?? NaN;

function callRows(projects: PlatformProject[]): string[][] {
  return projects.flatMap((p) =>
    PLATFORM_TARGETS.map((t) => {
      const cell = p.calls[t];
      const node = p.calls.node?.cpuMs ?? NaN;
      if (!cell) return [p.label, TARGET_LABEL[t], 'not measured', '', '', '', '', ''];
      if (cell.error) return [p.label, TARGET_LABEL[t], `**could not be measured** — ${cell.error}`, '', '', '', '', ''];
      const parts = Object.entries(cell.byProcess)
        .sort((a, b) => b[1] - a[1])
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(', ');
      const ratio =
        t === 'node'
          ? ''
          : t === 'cloudflare'
            ? `${x(cell.cpuMs / node)} (workerd alone ${x(workerdOnly(cell.byProcess) / node)})`
            : x(cell.cpuMs / node);
      const checks = cell.checksArguments === undefined ? 'n/a' : cell.checksArguments ? 'yes' : '**no**';
      return [p.label, TARGET_LABEL[t], msf(cell.cpuMs, 2), ratio, parts, msf(cell.wallMs, 2), checks, int(cell.errors)];
    }),
  );
}

/** workerd's refusal to generate code from strings, when that is what stopped a measurement. */
function whyNotMeasured(projects: PlatformProject[]): string[] {
  const refused = projects.filter((p) => /code generation from strings/i.test(p.calls.cloudflare?.error ?? ''));
  const unchecked = projects.filter((p) => p.calls.cloudflare?.checksArguments === false);
  return [
    ...(refused.length
      ? [
          `${refused.map((p) => p.label).join(', ')} on workerd: the server answered the call with workerd's refusal to generate code from strings at request time (\`eval\`, \`new Function\`), which compiling a JSON Schema validator with ajv does; the tool could not be called, so there is nothing to measure.`,
          '',
        ]
      : []),
    ...(unchecked.length
      ? [
          `${unchecked.map((p) => p.label).join(', ')} on workerd let the wrong arguments through to the upstream: the checks compile their validators with ajv, which workerd refuses, and a validator that cannot be compiled lets every call pass. Its CPU per call is that of a call without argument and answer checks.`,
          '',
        ]
      : []),
  ];
}

function bundleRows(projects: PlatformProject[]): string[][] {
  return projects.map(({ label, bundle: b }) =>
    b.error
      ? [label, `**failed** — ${b.error}`, '', '', '', '', '']
      : [
          label,
          `${mb(b.bytes)} (${int(b.files)} file${b.files === 1 ? '' : 's'})`,
          mb(b.gzipBytes),
          b.wrangler ? `${int(b.wrangler.kib)} KiB / gzip ${int(b.wrangler.gzipKib)} KiB` : 'n/a',
          `${pct(b.gzipBytes, FREE_LIMIT)} of 3 MB`,
          `${pct(b.gzipBytes, PAID_LIMIT)} of 10 MB`,
          msf(b.ms),
        ],
  );
}

function intro(pl: PlatformsResult): string {
  return (
    `The Petstore and GitHub (1,223 operations, \`--tools dynamic\`) projects generated with \`--target node,cloudflare,deno\` and built as users build them, each served three ways from the same folder (outside this repository, in the system's temporary folder): by Node, by workerd through wrangler ${pl.versions.wrangler}'s \`wrangler dev\` (local, offline), and by ${pl.versions.deno.split(' (')[0]} with \`deno task start\`. ` +
    "The platforms serve the runtime's web handler (`src/runtime/web/web-server.ts`), which answers statelessly; the Node server is started with `--stateless` to match. " +
    'All three call the same local upstream (`bench/upstream.mjs`, a fixed JSON Pet for every path) and are driven by the official SDK client over Streamable HTTP.'
  );
}

export function platformsSection(r: Results): string[] {
  const pl = r.platforms;
  if (!pl) return [];
  const bundling = pl.projects
    .filter((p) => !p.bundle.error)
    .map((p) => `${msf(p.bundle.ms)} for ${p.key}`)
    .join(', ');
  const calls = pl.projects.map((p) => `${p.key}: \`${p.call}\``).join('; ');
  const wrong = pl.projects.map((p) => `\`${p.wrongCall ?? 'n/a'}\``).join(', ');
  return [
    '## 13. Platforms: Cloudflare Workers (workerd) and Deno',
    '',
    intro(pl),
    '',
    `**Cold start**: from spawning the command to the first \`initialize\` answered through the SDK client (\`Client.connect()\` tried every 10 ms until it succeeds), median of ${pl.reps} runs, the targets interleaved.`,
    '',
    table(['project', 'served by', 'median', '× Node', 'range'], startRows(pl.projects)),
    '',
    "What the numbers include. **Node**: Node's start, the server's modules, listening, the first answer. **Deno**: `deno task` and deno's start, its module graph (TypeScript stripped and cached by deno on the first run, read from its cache afterwards), listening, the first answer. " +
      `**workerd**: a *local development* start — wrangler's own start (Node), its esbuild bundling of the Worker (the same step as \`wrangler deploy --dry-run\`, ${bundling} alone, table below, wrangler's start included), Miniflare starting workerd and wrangler's proxy, then the Worker's first answer. ` +
      "None of that is a deployed Worker's cold start: Cloudflare loads the uploaded bundle into an isolate (parse and top-level evaluation of the script) on its own machines (by Cloudflare's account, while the TLS handshake is still under way), which cannot be measured offline here.",
    '',
    `**CPU per call**: ${pl.callReps} round${pl.callReps === 1 ? '' : 's'} of ${int(pl.calls)} sequential \`tools/call\` per target (after 30 warm-up calls), interleaved; the CPU time of the server's whole process group from \`/proc/<pid>/stat\` (10 ms ticks) before and after, divided by the calls; median of the rounds. Per process: the CPU per call of each process of the group, averaged over the rounds. The calls: ${calls} (the GitHub one answers with the upstream's Pet, which the dynamic tool passes through). *Arguments checked*: whether the server refused a call with wrong arguments (${wrong}) itself, with an error result and no request to the upstream — a server that cannot run its checks is cheaper per call and not comparable.`,
    '',
    table(
      ['project', 'served by', 'server CPU per call', '× Node', 'by process, ms', 'wall per call', 'arguments checked', 'errors'],
      callRows(pl.projects),
    ),
    '',
    ...whyNotMeasured(pl.projects),
    "Under `wrangler dev` the process group holds wrangler's Node process (the local dev server in front of workerd: its proxy, logging and, offline, a failed look-up of the `Request.cf` data) and esbuild (watching the sources) beside workerd; only workerd's share is what the Worker itself spends, and even that is a local workerd in development mode, not Cloudflare's production runtime.",
    '',
    "**The Worker bundle**: `wrangler deploy --dry-run --outdir <tmp>` (no account, no network) bundles the Worker as a deploy uploads it; its files (source maps aside), their size, and their gzip size (node:zlib, default level) against Cloudflare's limits on a Worker's compressed size: 3 MB on the free plan, 10 MB on the paid one (MB read as 10^6 bytes, the stricter reading). Wrangler's own `Total Upload` line is shown beside it.",
    '',
    table(['project', 'bundle', 'gzip', "wrangler's Total Upload", 'free plan', 'paid plan', 'bundling time'], bundleRows(pl.projects)),
    '',
  ];
}
