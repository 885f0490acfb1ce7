// Section 11, the new features' costs (bench/features.ts, with the JWT row from section 9 and
// the code-mode row from section 10): one row per feature, the call it adds to beside the call
// with it; then how the retried call's extra time divides, and what a server with every feature
// off has loaded by its first answer.
import type { FeaturePair, LatencyCell, LoadedModules, Results } from '../lib/results.js';
import { int, msf, table, x } from './format.js';

/** Milliseconds with two decimals, and a signed difference of them. */
const ms2 = (ms: number) => msf(ms, 2);
const dms2 = (ms: number) => (Number.isFinite(ms) ? `${ms >= 0 ? '+' : '−'}${ms2(Math.abs(ms))}` : 'n/a');

interface Row {
  feature: string;
  base: string;
  with: string;
  /** Median latency of the base call and of the call with the feature, ms. */
  ms: [number, number];
  /** Server CPU per call of each, ms, where measured. */
  cpu?: [number, number];
  /** Which section measured it. */
  source: string;
}

function row(r: Row): string[] {
  const [a, b] = r.ms;
  const cpu = r.cpu ? `${ms2(r.cpu[0])} → ${ms2(r.cpu[1])} (${dms2(r.cpu[1] - r.cpu[0])})` : 'not measured';
  return [r.feature, r.base, ms2(a), r.with, ms2(b), dms2(b - a), x(b / a), cpu, r.source];
}

/** The cached JWT check, from section 9: the same call on a server without any check. */
function jwtRow(r: Results): Row | undefined {
  const none = r.oauth?.cells['no auth'];
  const jwt = r.oauth?.cells['oauth jwt'];
  if (!none || !jwt) return undefined;
  return {
    feature: 'cached JWT check per call (OAuth resource server)',
    base: '`getPetById`, Streamable HTTP, no auth check',
    with: 'the same with `--oauth-issuer` (JWT verified by the issuer’s JWKS, claims cached after the first call)',
    ms: [none.median, jwt.median],
    cpu: [none.serverCpu, jwt.serverCpu],
    source: `section 9, ${int(r.oauth?.calls ?? NaN)} calls × ${r.oauth?.reps} rounds`,
  };
}

/** One execute with one api call against the direct tool call, from section 10. */
function codeRow(r: Results): Row | undefined {
  const rows = r.tokens?.latency.rows ?? [];
  const direct = rows.find((l) => l.label.startsWith('direct'));
  const code = rows.find((l) => l.label.startsWith('code: one execute with one api call'));
  if (!direct || !code) return undefined;
  return {
    feature: 'code mode: one `execute` with one `api` call',
    base: 'the direct tool call (`issues_list-for-repo`, GitHub, stdio)',
    with: 'one `execute` whose program makes that call and returns the titles',
    ms: [direct.median, code.median],
    source: `section 10, ${int(r.tokens?.latency.calls ?? NaN)} calls each`,
  };
}

/** Each pair's row, and what its `events` count (the questions answered, or the retries received) should be. */
const PAIR_TEXT: Record<FeaturePair, Omit<Row, 'ms' | 'cpu' | 'source'> & { events: string; expect: 'one each' | 'none' }> = {
  'confirm stdio': {
    feature: 'confirmation, stdio (2025-11-25: `elicitation/create`)',
    base: '`deletePet`, confirmations off',
    with: 'the same with `--confirm destructive`, the client accepting',
    events: 'questions the client answered',
    expect: 'one each',
  },
  'confirm http': {
    feature: 'confirmation, Streamable HTTP, a 2025-11-25 session (`elicitation/create`)',
    base: '`deletePet`, confirmations off',
    with: 'the same with `--confirm destructive`, the client accepting',
    events: 'questions the client answered',
    expect: 'one each',
  },
  'confirm http 2026-07-28': {
    feature: 'confirmation, Streamable HTTP, 2026-07-28 (input-required)',
    base: '`deletePet`, confirmations off',
    with: 'the same with `--confirm destructive`, the client accepting and sending the call again',
    events: 'questions the client answered',
    expect: 'one each',
  },
  'confirm http, no question': {
    feature: 'confirmations on, a call that asks nothing (Streamable HTTP, a 2025-11-25 session)',
    base: '`getPetById`, confirmations off',
    with: 'the same on the `--confirm destructive` server (its 2025 sessions answer calls on an SSE stream)',
    events: 'questions the client answered',
    expect: 'none',
  },
  'retry stdio': {
    feature: 'a retried call (stdio)',
    base: '`getPetById`, the upstream answering at once',
    with: 'the same call, the upstream answering 503 with `Retry-After: 0` first',
    events: 'retries the upstream received',
    expect: 'one each',
  },
};

function pairRows(r: Results): Row[] {
  const f = r.features;
  if (!f) return [];
  return (Object.keys(PAIR_TEXT) as FeaturePair[]).flatMap((name) => {
    const cells = f.pairs[name];
    if (!cells) return [];
    const cpu = (c: LatencyCell) => c.serverCpu;
    const { feature, base, with: w } = PAIR_TEXT[name];
    return [
      {
        feature,
        base,
        with: w,
        ms: [cells.base.median, cells.feature.median] as [number, number],
        cpu: [cpu(cells.base), cpu(cells.feature)] as [number, number],
        source: `here, ${int(f.calls)} calls × ${f.reps} rounds`,
      },
    ];
  });
}

/** What the paired calls' own checks saw: a question answered, or a retry received, per call. */
function checks(r: Results): string {
  const f = r.features;
  if (!f) return '';
  const parts = (Object.keys(PAIR_TEXT) as FeaturePair[]).flatMap((name) => {
    const c = f.pairs[name];
    if (!c) return [];
    const errors = c.base.errors + c.feature.errors;
    const { events, expect } = PAIR_TEXT[name];
    return [
      `${name}: ${int(c.events)} ${events} for ${int(c.featureCalls)} calls with the feature (${expect} expected), ${int(errors)} errors`,
    ];
  });
  const missing = Object.entries(f.unavailable).map(([name, why]) => `${name}: not measured (${why})`);
  return [...parts, ...missing].join('; ');
}

/** How the retried call's extra time divides: the policy's wait, the server's turnaround, the second try. */
function retryParagraph(r: Results): string[] {
  const f = r.features;
  const c = f?.pairs['retry stdio'];
  if (!f || !c) return [];
  // The upstream's gap is a mean over the retries: it is set against the difference of the means.
  const added = c.feature.mean - c.base.mean;
  const gap = f.retry.gapMs;
  const cpu = c.feature.serverCpu - c.base.serverCpu;
  return [
    `**The retried call** adds ${dms2(c.feature.median - c.base.median)} to the plain call (medians; ${dms2(added)} between the means), and ${dms2(cpu)} of server CPU. The policy's deliberate wait is ${ms2(f.retry.policyWaitMs)}: \`Retry-After: 0\` asks for none, and the runtime follows Retry-After when the API sends it (\`src/runtime/call/send/retry.ts\`; without it the wait would be a jittered backoff anywhere from 0 to ${msf(f.retry.backoffBaseMs)}, ${msf(f.retry.backoffBaseMs / 2)} on average). ` +
      `So all of it is overhead. The server's turnaround between the tries, as the upstream saw it (its 503 written → the retry arrived), was ${ms2(gap)} on average over ${int(f.retry.retries)} retries: reading the 503 to its end (which keeps the connection), the pacing slot, and the retry's way to the upstream (a zero wait sets no timer); the rest of the mean difference, ${ms2(added - gap)}, is the first try's way to the upstream and its answer there. ` +
      reuse(f.retry),
    '',
  ];
}

/** Whether the retries reused their first try's connection. */
function reuse(retry: { retries: number; connections: number }): string {
  if (retry.connections === 0) return 'Every retry reused its first try’s keep-alive connection.';
  if (retry.connections < retry.retries * 0.9)
    return `The upstream accepted ${int(retry.connections)} new TCP connections for the ${int(retry.retries)} retries.`;
  return `The upstream accepted ${int(retry.connections)} new TCP connections for the ${int(retry.retries)} retries: the runtime's \`discard()\` of the 503 (\`src/runtime/call/send/upstream.ts\`) destroys its socket even when the body is complete, so the retry opens a connection of its own — on loopback a fraction of a millisecond, against a remote API over TLS a handshake more.`;
}

/** The modules that import a feature module, in parentheses. */
const importers = (by: string[] | undefined) => (by?.length ? ` (imported by ${by.map((m) => `\`${m}\``).join(', ')})` : '');

/** Each feature's modules as found in one server's list, or "none". */
function loadedCell(l: LoadedModules, feature: string): string {
  if (l.error) return `failed: ${l.error}`;
  const found = l.features[feature] ?? [];
  return found.length ? found.map((m) => `\`${m}\``).join(', ') : 'none';
}

function loadedSection(r: Results): string[] {
  const f = r.features;
  if (!f || f.loaded.length === 0) return [];
  const features = Object.keys(f.loaded.find((l) => !l.error)?.features ?? {});
  const plain = f.loaded.filter((l) => !l.server.startsWith('control'));
  const loadedAnyway = [...new Set(plain.flatMap((l) => Object.values(l.features).flat()))];
  const cost = f.importCost;
  const start = r.start?.cells['mcp-gen petstore']?.ms;
  const lines = [
    '### With each feature off, what is loaded',
    '',
    `Each server is started with \`node --import bench/load-log.mjs\`, a module hook (\`node:module\` \`register\`) that writes every module the ES module loader loads to a file as it loads it; the file is read once the first \`tools/call\` is answered. Servers (columns): ${f.loaded.map((l, i) => `(${i + 1}) ${l.server}`).join('; ')}. The control shows that the hook sees what loads lazily (CommonJS \`require()\`s, such as the sandbox's QuickJS variant, are not seen; a package's ES entry is). ${f.loaded.map((l, i) => `(${i + 1}) loaded ${int(l.modules.length)} modules`).join(', ')}.`,
    '',
    table(
      ['feature', ...f.loaded.map((_, i) => `(${i + 1})`)],
      features.map((feature) => [feature, ...f.loaded.map((l) => loadedCell(l, feature))]),
    ),
    '',
  ];
  if (loadedAnyway.length === 0) {
    lines.push('With every feature off, none of their modules is loaded: the default start is unchanged by them.', '');
    return lines;
  }
  // Retries and pacing are the default call path; any other feature's module here loads for nothing.
  const onlyDefaultPath = loadedAnyway.every((m) => /^runtime\/(retry|pacing)\.js$/.test(m));
  lines.push(
    `**Loaded with every feature off:** ${loadedAnyway.map((m) => `\`${m}\`${importers(cost?.importedBy?.[m])}`).join(', ')}: imported statically by the call path, so every server loads them with its tool table — on the first request that needs the table, after \`initialize\` is answered, so not on cold start (section 3). ` +
      (f.defaults
        ? `The defaults: ${Object.entries(f.defaults)
            .map(([flag, value]) => `\`--${flag} ${value}\``)
            .join(', ')}; retries are on unless \`--retries 0\`, so theirs is the default call path. `
        : '') +
      (onlyDefaultPath
        ? "None of the other features' modules is loaded: they load with the table only when it or the settings use them (decided in `src/runtime/start/optional-features.ts`), an account link's when a call needs one. "
        : 'The others wait for a flag, a client that asks or an operation that needs them, yet every server loads them. ') +
      (cost
        ? `Importing ${cost.modules.map((m) => `\`${m}\``).join(', ')} (${int(cost.bytes)} bytes of JavaScript) after their own imports, which any server loads, takes ${ms2(cost.ms)} (median of ${cost.runs.length} fresh processes, \`bench/import-probe.mjs\`)` +
          (start !== undefined ? `, against ${msf(start)} for the whole cold start of this server (section 3).` : '.')
        : ''),
    '',
  );
  return lines;
}

export function featuresSection(r: Results): string[] {
  const f = r.features;
  if (!f) return [];
  const notHere = (feature: string, section: string) => [
    feature,
    `not in these results: run section ${section}`,
    '',
    '',
    '',
    '',
    '',
    '',
    '',
  ];
  const rows = [
    jwtRow(r) ?? notHere('cached JWT check per call (OAuth resource server)', '`oauth`'),
    codeRow(r) ?? notHere('code mode: one `execute` with one `api` call', '`tokens`'),
    ...pairRows(r),
  ].map((one) => (Array.isArray(one) ? one : row(one)));
  return [
    '## 11. The new features’ costs',
    '',
    `Each feature beside the call it adds to, on real generated servers through the official SDK client, against a local upstream (\`bench/upstream.mjs\`, in its own process), the two calls of a row interleaved with every other row's, medians of the rounds' median latencies; server CPU per call from /proc/<pid>/stat. The confirmation and retry rows are measured here on the Petstore server: ${int(f.calls)} sequential calls a round, ${f.reps} rounds, after ${int(f.warmUp)} warm-up calls each; the confirming servers run with \`--confirm destructive\` and the client answers each form elicitation with yes (\`deletePet\` is a DELETE: destructive). The JWT row comes from section 9 (the same rounds as its table) and the code-mode row from section 10.`,
    '',
    table(
      ['feature', 'base call', 'median', 'call with the feature', 'median', 'difference', 'ratio', 'server CPU per call', 'measured in'],
      rows,
    ),
    '',
    `What each call did (checked): ${checks(r)}.`,
    '',
    "A confirmation's extra round trip: over stdio and a 2025 session the server sends `elicitation/create` to the client in the middle of the call and waits for the answer (on HTTP, a 2025 session's calls are then all answered on an SSE stream, which can carry the question: the row of the call that asks nothing is that stream's cost alone); under 2026-07-28 the first `tools/call` is answered with an input-required result and the client sends the call again with the answer, so the call crosses the wire twice.",
    '',
    ...retryParagraph(r),
    ...loadedSection(r),
  ];
}
