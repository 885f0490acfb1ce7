// 10. What a multi-call task costs the model, in bytes, in each tool mode: real generated
// servers (GitHub's and Stripe's specs, generated and built here) driven through the official
// SDK client over stdio with `--tools direct|dynamic|code`, against a local upstream that
// serves recorded-like answers (bench/lib/api-data.ts). Each task is done in the fewest calls
// the mode allows, as an agent that knows what it wants would do it; what is counted is what a
// client passes to the model: the tools listed, the arguments the model writes, and the text
// content of the results. Then the latency of one execute with one api call against one
// direct tool call (and one invoke_operation), on the same upstream.
import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect } from '../harness/project.js';
import { startUpstream, type Recorded } from '../test/harness/upstream.js';
import { DATA, OWNER, REPO_NAME, answer, type Charge, type Customer, type Issue, type Pull, type PullFile } from './lib/api-data.js';
import { GITHUB, mcpGenArgs } from './lib/fixtures.js';
import { STRIPE_SPEC } from '../harness/corpora.js';
import { TOKEN_MODES, type TokenCall, type TokenCell, type TokenMode, type TokenTask, type TokensResult } from './lib/results.js';
import { REPO, TMP, ensureDir, interleave, log, median } from './lib/util.js';

type Api = 'GitHub' | 'Stripe';

/**
 * Every server runs with the defaults users get, --max-answer-bytes among them (its default,
 * recorded with the results): an answer cut for the model is counted as cut (and a wrong answer
 * as wrong), and a program's api calls must still read whole answers.
 */
const MAX_ANSWER_BYTES = 65_536;
const SPECS: Record<Api, { spec: string; env: Record<string, string> }> = {
  GitHub: { spec: GITHUB, env: {} },
  Stripe: {
    spec: STRIPE_SPEC,
    env: { STRIPE_BEARER_AUTH_TOKEN: 'sk_test_bench' },
  },
};

/**
 * A generated and built server. Its node_modules links the repository's own (which has every
 * package a generated project installs), so that nothing is installed for the benchmark.
 */
function builtProject(api: Api): string {
  const dir = join(ensureDir(join(TMP, 'projects')), `mcp-gen-${api.toLowerCase()}-tokens`);
  rmSync(dir, { recursive: true, force: true });
  log(`tokens: generating and building the ${api} server`);
  // The default generation (dynamic for both: over the context budget); the mode is chosen at start.
  execFileSync('node', mcpGenArgs(SPECS[api].spec, dir), { cwd: REPO, stdio: 'pipe' });
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(dir, 'node_modules'), 'dir');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'pipe' });
  return dir;
}

const bytes = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: CallResult) =>
  (result.content as { type: string; text?: string }[]).map((c) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('');

/** A conversation with one server: every tools/call is recorded as the model sees it. */
class Session {
  readonly calls: TokenCall[] = [];
  constructor(readonly client: Client) {}

  /** The call's result; `text` is its first text content (the answer's JSON), the others are notes. */
  async call(name: string, args: Record<string, unknown>): Promise<{ text: string; result: CallResult }> {
    const result = await this.client.callTool({ name, arguments: args });
    const all = textOf(result);
    if (result.isError) throw new Error(`${name} failed: ${all.slice(0, 300)}`);
    // An answer over --max-answer-bytes is cut, and its note says so (src/runtime/call/answer/answer-budget.ts).
    const cut = all.includes('Answer cut to --max-answer-bytes');
    this.calls.push({ tool: name, argBytes: bytes({ name, arguments: args }), resultBytes: bytes(all), ...(cut ? { cut: true } : {}) });
    const first = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text');
    return { text: first?.text ?? '', result };
  }
}

/** Every page of tools/list: the `tools` array's JSON, bytes. */
async function listing(client: Client): Promise<{ tools: number; bytes: number }> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { tools: tools.length, bytes: bytes(tools) };
}

/** A direct or invoke_operation answer's JSON (the text is the upstream's JSON, or a wrapped one). */
function parsed<T>(text: string): T {
  const value = JSON.parse(text) as unknown;
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && 'result' in value
      ? (value as { result: unknown }).result
      : value
  ) as T;
}

interface Step {
  operation: string;
  args: Record<string, unknown>;
}

interface Task {
  key: string;
  label: string;
  api: Api;
  /** What the agent searches for first, then for each operation still not found, its own query. */
  query: string;
  operations: { name: string; query: string }[];
  /** The same work done by the model between calls (direct, dynamic): the next call from the answers so far, or the result. */
  agent(call: (step: Step) => Promise<unknown>): Promise<unknown>;
  /** The same work as an execute program, as an agent writes it. */
  program: string;
  expected(): unknown;
}

const REPO_ARGS = { owner: OWNER, repo: REPO_NAME };
const ISSUE_ARGS = { ...REPO_ARGS, state: 'open', labels: 'bug' };
const PULL_ARGS = { ...REPO_ARGS, state: 'closed', sort: 'updated', direction: 'desc', per_page: 10 };

const lastCharges = (charges: Charge[]) => {
  const last = new Map<string, Charge>();
  for (const c of charges) if (c.customer && !last.has(c.customer)) last.set(c.customer, c);
  return last;
};

const TASKS: Task[] = [
  {
    key: 'bug-titles',
    label: 'titles of the open issues labelled `bug`',
    api: 'GitHub',
    query: 'list repository issues',
    operations: [{ name: 'issues_list-for-repo', query: 'list repository issues' }],
    agent: async (call) => {
      const issues = (await call({ operation: 'issues_list-for-repo', args: ISSUE_ARGS })) as Issue[];
      return issues.map((i) => i.title);
    },
    program: `const issues = await api["issues_list-for-repo"]({ owner: "${OWNER}", repo: "${REPO_NAME}", state: "open", labels: "bug" });
return issues.map((i) => i.title);`,
    expected: () => DATA.issues.filter((i) => i.state === 'open' && i.labels.some((l) => l.name === 'bug')).map((i) => i.title),
  },
  {
    key: 'merged-files',
    label: 'files changed by the last 5 merged pull requests',
    api: 'GitHub',
    query: 'list pull requests files',
    operations: [
      { name: 'pulls_list', query: 'list pull requests' },
      { name: 'pulls_list-files', query: 'list pull request files' },
    ],
    agent: async (call) => {
      const pulls = (await call({ operation: 'pulls_list', args: PULL_ARGS })) as Pull[];
      const out: { number: number; files: string[] }[] = [];
      for (const p of pulls.filter((pull) => pull.merged_at !== null).slice(0, 5)) {
        const files = (await call({ operation: 'pulls_list-files', args: { ...REPO_ARGS, pull_number: p.number } })) as PullFile[];
        out.push({ number: p.number, files: files.map((f) => f.filename) });
      }
      return out;
    },
    program: `const pulls = await api.pulls_list({ owner: "${OWNER}", repo: "${REPO_NAME}", state: "closed", sort: "updated", direction: "desc", per_page: 10 });
const out = [];
for (const p of pulls.filter((p) => p.merged_at !== null).slice(0, 5)) {
  const files = await api["pulls_list-files"]({ owner: "${OWNER}", repo: "${REPO_NAME}", pull_number: p.number });
  out.push({ number: p.number, files: files.map((f) => f.filename) });
}
return out;`,
    expected: () =>
      DATA.pulls.list
        .slice(0, 10)
        .filter((p) => p.merged_at !== null)
        .slice(0, 5)
        .map((p) => ({ number: p.number, files: (DATA.pulls.files.get(p.number) ?? []).map((f) => f.filename) })),
  },
  {
    key: 'failed-customers',
    label: 'customers whose last payment failed',
    api: 'Stripe',
    query: 'list customers charges',
    operations: [
      { name: 'GetCustomers', query: 'list customers' },
      { name: 'GetCharges', query: 'list charges' },
    ],
    agent: async (call) => {
      const customers = (await call({ operation: 'GetCustomers', args: { limit: 100 } })) as { data: Customer[] };
      const charges = (await call({ operation: 'GetCharges', args: { limit: 100 } })) as { data: Charge[] };
      const last = lastCharges(charges.data);
      return customers.data.filter((c) => last.get(c.id)?.status === 'failed').map((c) => ({ id: c.id, email: c.email }));
    },
    program: `const customers = await api.GetCustomers({ limit: 100 });
const charges = await api.GetCharges({ limit: 100 });
const last = {};
for (const c of charges.data) if (c.customer && !(c.customer in last)) last[c.customer] = c;
return customers.data.filter((c) => last[c.id]?.status === "failed").map((c) => ({ id: c.id, email: c.email }));`,
    expected: () => {
      const last = lastCharges(DATA.stripe.charges);
      return DATA.stripe.customers.filter((c) => last.get(c.id)?.status === 'failed').map((c) => ({ id: c.id, email: c.email }));
    },
  },
];

/** Searches as an agent does: the task's query, then one per operation still not found. */
async function search(session: Session, task: Task, tool: 'search_operations' | 'search_api'): Promise<void> {
  const found = (text: string, name: string) =>
    tool === 'search_operations'
      ? text.split('\n').some((line) => line.startsWith(`${name} — `))
      : new RegExp(`^\\s*(?:"${name}"|${name.replace(/[^\w]/g, '\\$&')})\\(`, 'm').test(text);
  let seen = (await session.call(tool, { query: task.query })).text;
  for (const op of task.operations) {
    if (found(seen, op.name)) continue;
    seen += `\n${(await session.call(tool, { query: op.query })).text}`;
    if (!found(seen, op.name)) throw new Error(`${tool} does not find ${op.name} for "${op.query}"`);
  }
}

/** One task in one mode, counted from its first call (the server is the mode's, shared by the tasks: it keeps no conversation state). */
async function runTask(client: Client, task: Task, mode: TokenMode, listed: { bytes: number }): Promise<TokenCell> {
  const session = new Session(client);
  let outcome: unknown;
  if (mode === 'code') {
    await search(session, task, 'search_api');
    const { result } = await session.call('execute', { code: task.program });
    outcome = (result.structuredContent as { result?: unknown } | undefined)?.result;
  } else if (mode === 'dynamic') {
    await search(session, task, 'search_operations');
    for (const op of task.operations) await session.call('describe_operation', { name: op.name });
    outcome = await task.agent(async (step) =>
      parsed((await session.call('invoke_operation', { name: step.operation, arguments: step.args })).text),
    );
  } else {
    outcome = await task.agent(async (step) => parsed((await session.call(step.operation, step.args)).text));
  }
  const listingBytes = mode === 'direct' ? 0 : listed.bytes;
  const total = listingBytes + session.calls.reduce((n, c) => n + c.argBytes + c.resultBytes, 0);
  return { listingBytes, calls: session.calls, total, correct: JSON.stringify(outcome) === JSON.stringify(task.expected()) };
}

export async function runTokens(options: { quick: boolean }): Promise<TokensResult> {
  buildCli();
  let upstreamBytes = 0;
  const upstream = await startUpstream((req: Recorded) => {
    const a = answer(req);
    upstreamBytes += bytes(a.body ?? '');
    return a;
  });
  const projects = { GitHub: builtProject('GitHub'), Stripe: builtProject('Stripe') };
  const clients = new Map<string, Client>();
  const start = async (api: Api, mode: TokenMode) => {
    const key = `${api} ${mode}`;
    const made =
      clients.get(key) ??
      (await connect('stdio', projects[api], {
        args: ['--tools', mode, '--base-url', upstream.url],
        env: SPECS[api].env,
      }));
    clients.set(key, made);
    return made;
  };
  try {
    const listings: TokensResult['listings'] = {};
    for (const api of ['GitHub', 'Stripe'] as const) {
      const perMode: TokensResult['listings'][string] = {};
      for (const mode of TOKEN_MODES) perMode[mode] = await listing(await start(api, mode));
      listings[api] = perMode;
    }
    const tasks: TokenTask[] = [];
    const sent: TokensResult['upstreamBytes'] = {};
    for (const task of TASKS) {
      log(`tokens: ${task.api}, ${task.label}`);
      const cells: TokenTask['cells'] = {};
      let apiCalls = 0;
      for (const mode of TOKEN_MODES) {
        const before = upstream.requests.length;
        upstreamBytes = 0;
        try {
          cells[mode] = await runTask(await start(task.api, mode), task, mode, listings[task.api]?.[mode] ?? { bytes: NaN });
        } catch (error) {
          cells[mode] = {
            listingBytes: NaN,
            calls: [],
            total: NaN,
            correct: false,
            error: (error as Error).message.split('\n')[0] ?? 'failed',
          };
        }
        apiCalls = Math.max(apiCalls, upstream.requests.length - before);
        sent[task.key] = Math.max(sent[task.key] ?? 0, upstreamBytes);
      }
      tasks.push({ key: task.key, label: task.label, api: task.api, apiCalls, cells });
    }

    // ── latency: one call against one API call (task 1's request), interleaved, the same upstream
    const n = options.quick ? 10 : 50;
    const first = TASKS[0] as Task;
    // Each variant: the mode of the server it runs on, and its call.
    const variants: { label: string; mode: TokenMode; call: (c: Client) => Promise<CallResult> }[] = [
      { label: 'direct: one tool call', mode: 'direct', call: (c) => c.callTool({ name: 'issues_list-for-repo', arguments: ISSUE_ARGS }) },
      {
        label: 'dynamic: one invoke_operation',
        mode: 'dynamic',
        call: (c) => c.callTool({ name: 'invoke_operation', arguments: { name: 'issues_list-for-repo', arguments: ISSUE_ARGS } }),
      },
      {
        label: 'code: one execute with one api call',
        mode: 'code',
        call: (c) => c.callTool({ name: 'execute', arguments: { code: first.program } }),
      },
      {
        label: 'code: one execute with no api call (`return 1`)',
        mode: 'code',
        call: (c) => c.callTool({ name: 'execute', arguments: { code: 'return 1;' } }),
      },
    ];
    for (const v of variants) for (let i = 0; i < 5; i++) await v.call(await start('GitHub', v.mode));
    log(`tokens: latency, ${n} × ${variants.map((v) => v.label).join(', ')}`);
    const byLabel = new Map(variants.map((v) => [v.label, v]));
    const runs = await interleave(n, [...byLabel.keys()], async (label) => {
      const v = byLabel.get(label) as (typeof variants)[number];
      const client = await start('GitHub', v.mode);
      const t0 = performance.now();
      try {
        const result = await v.call(client);
        return { ms: performance.now() - t0, error: result.isError === true };
      } catch {
        return { ms: performance.now() - t0, error: true };
      }
    });
    const latency = {
      calls: n,
      rows: variants.map((v) => {
        const list = runs[v.label] ?? [];
        return {
          label: v.label,
          runs: list.map((r) => r.ms),
          median: median(list.map((r) => r.ms)),
          errors: list.filter((r) => r.error).length,
        };
      }),
    };
    return { maxAnswerBytes: MAX_ANSWER_BYTES, tasks, listings, upstreamBytes: sent, latency };
  } finally {
    for (const client of clients.values()) await client.close().catch(() => undefined);
    await upstream.close();
  }
}
