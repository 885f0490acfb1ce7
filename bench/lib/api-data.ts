// Recorded-like answers for the token benchmark (bench/tokens.ts): synthetic, deterministic
// (a seeded generator), but shaped like GitHub's and Stripe's real objects, field for field
// where it matters for size — issues (3–4.5 KB each) with their user, labels, reactions and a body;
// pull requests with head and base repositories; a pull request's files with patches; Stripe
// customers and charges in `{ object: 'list', data, has_more }` pages. The upstream filters
// and pages as the real APIs do for the parameters the tasks use (state, labels, per_page,
// limit), so that what an agent asks for decides what comes back.

import type { Answer, Recorded } from '../../test/harness/upstream.js';

export const OWNER = 'octo-org';
export const REPO_NAME = 'hello-world';
const REPO_API = `https://api.github.com/repos/${OWNER}/${REPO_NAME}`;

/** mulberry32: a small seeded generator, so that every run serves the same data. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the server client request response token cache error when after before with without retry timeout header body page ' +
  'list returns fails empty null value field schema version upgrade build test run log stack trace expected actual ' +
  'behaviour config option default flag user repository branch commit merge review file line column parser encoder ' +
  'decoder stream buffer socket connection pool worker thread memory leak crash regression since release on in of to'
).split(' ');

const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const int = (r: () => number, low: number, high: number) => low + Math.floor(r() * (high - low + 1));

function sentence(r: () => number): string {
  const words = Array.from({ length: int(r, 6, 16) }, () => pick(r, WORDS));
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function prose(r: () => number, chars: number): string {
  let text = '';
  while (text.length < chars) text += `${sentence(r)} `;
  return text.trim();
}

/** An issue body as people write them: headings, steps, a code block, an environment list. */
function issueBody(r: () => number, chars: number): string {
  const third = Math.floor(chars / 3);
  return [
    '### Describe the bug',
    prose(r, third),
    '### Steps to reproduce',
    `1. ${sentence(r)}\n2. ${sentence(r)}\n3. ${sentence(r)}`,
    '```',
    `Error: ${sentence(r)}\n    at Parser.parse (src/parser.ts:${int(r, 10, 900)}:${int(r, 1, 80)})\n    at run (src/cli.ts:${int(r, 10, 300)}:${int(r, 1, 80)})`,
    '```',
    '### Expected behaviour',
    prose(r, third),
    '### Environment',
    `- version: 2.${int(r, 0, 9)}.${int(r, 0, 20)}\n- node: 20.${int(r, 0, 19)}.${int(r, 0, 9)}\n- os: ${pick(r, ['Ubuntu 24.04', 'macOS 15.1', 'Windows 11'])}`,
  ].join('\n\n');
}

const LOGINS = ['octocat', 'hubot', 'monalisa', 'defunkt', 'mojombo', 'pjhyett', 'wycats', 'ezmobius', 'ivey', 'evanphx'];

function ghUser(login: string) {
  const id = 1_000 + LOGINS.indexOf(login) * 7_919;
  const api = `https://api.github.com/users/${login}`;
  return {
    login,
    id,
    node_id: `MDQ6VXNlcj${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `https://github.com/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

const LABELS: Record<string, { color: string; description: string }> = {
  bug: { color: 'd73a4a', description: "Something isn't working" },
  enhancement: { color: 'a2eeef', description: 'New feature or request' },
  documentation: { color: '0075ca', description: 'Improvements or additions to documentation' },
  question: { color: 'd876e3', description: 'Further information is requested' },
  'good first issue': { color: '7057ff', description: 'Good for newcomers' },
};

function label(name: string) {
  const id = 5_000_000 + Object.keys(LABELS).indexOf(name);
  return {
    id,
    node_id: `LA_kwDOA${id}`,
    url: `${REPO_API}/labels/${encodeURIComponent(name)}`,
    name,
    color: LABELS[name]?.color,
    default: name in LABELS,
    description: LABELS[name]?.description,
  };
}

const iso = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, 1 + day, hour)).toISOString().replace('.000', '');

export interface Issue {
  number: number;
  title: string;
  state: string;
  labels: { name: string }[];
  [key: string]: unknown;
}

function issues(): Issue[] {
  const r = seeded(16);
  const out: Issue[] = [];
  for (let n = 60; n >= 1; n--) {
    const names = Object.keys(LABELS).filter((name) => r() < (name === 'bug' ? 0.35 : 0.15));
    const user = ghUser(pick(r, LOGINS));
    const open = r() < 0.65;
    const url = `${REPO_API}/issues/${n}`;
    out.push({
      url,
      repository_url: REPO_API,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: `https://github.com/${OWNER}/${REPO_NAME}/issues/${n}`,
      id: 2_400_000_000 + n,
      node_id: `I_kwDOAbCdEf${n}`,
      number: n,
      title: sentence(r).slice(0, -1),
      user,
      labels: names.map(label),
      state: open ? 'open' : 'closed',
      locked: false,
      assignee: r() < 0.3 ? ghUser(pick(r, LOGINS)) : null,
      assignees: [],
      milestone: null,
      comments: int(r, 0, 14),
      created_at: iso(n),
      updated_at: iso(n + int(r, 0, 20)),
      closed_at: open ? null : iso(n + int(r, 1, 30)),
      author_association: pick(r, ['CONTRIBUTOR', 'MEMBER', 'NONE']),
      type: null,
      active_lock_reason: null,
      sub_issues_summary: { total: 0, completed: 0, percent_completed: 0 },
      body: issueBody(r, int(r, 100, 700)),
      closed_by: null,
      reactions: {
        url: `${url}/reactions`,
        total_count: 0,
        '+1': int(r, 0, 9),
        '-1': 0,
        laugh: 0,
        hooray: 0,
        confused: 0,
        heart: int(r, 0, 3),
        rocket: 0,
        eyes: int(r, 0, 2),
      },
      timeline_url: `${url}/timeline`,
      performed_via_github_app: null,
      state_reason: open ? null : 'completed',
    });
  }
  return out;
}

/** A repository as pull requests' head and base carry it: every field GitHub's `repository` schema requires. */
function repository() {
  const owner = ghUser('octocat');
  const api = REPO_API;
  const urls = Object.fromEntries(
    (
      [
        ['archive_url', '/{archive_format}{/ref}'],
        ['assignees_url', '/assignees{/user}'],
        ['blobs_url', '/git/blobs{/sha}'],
        ['branches_url', '/branches{/branch}'],
        ['collaborators_url', '/collaborators{/collaborator}'],
        ['comments_url', '/comments{/number}'],
        ['commits_url', '/commits{/sha}'],
        ['compare_url', '/compare/{base}...{head}'],
        ['contents_url', '/contents/{+path}'],
        ['contributors_url', '/contributors'],
        ['deployments_url', '/deployments'],
        ['downloads_url', '/downloads'],
        ['events_url', '/events'],
        ['forks_url', '/forks'],
        ['git_commits_url', '/git/commits{/sha}'],
        ['git_refs_url', '/git/refs{/sha}'],
        ['git_tags_url', '/git/tags{/sha}'],
        ['hooks_url', '/hooks'],
        ['issue_comment_url', '/issues/comments{/number}'],
        ['issue_events_url', '/issues/events{/number}'],
        ['issues_url', '/issues{/number}'],
        ['keys_url', '/keys{/key_id}'],
        ['labels_url', '/labels{/name}'],
        ['languages_url', '/languages'],
        ['merges_url', '/merges'],
        ['milestones_url', '/milestones{/number}'],
        ['notifications_url', '/notifications{?since,all,participating}'],
        ['pulls_url', '/pulls{/number}'],
        ['releases_url', '/releases{/id}'],
        ['stargazers_url', '/stargazers'],
        ['statuses_url', '/statuses/{sha}'],
        ['subscribers_url', '/subscribers'],
        ['subscription_url', '/subscription'],
        ['tags_url', '/tags'],
        ['teams_url', '/teams'],
        ['trees_url', '/git/trees{/sha}'],
      ] as const
    ).map(([key, tail]) => [key, `${api}${tail}`]),
  );
  return {
    id: 1_296_269,
    node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
    name: REPO_NAME,
    full_name: `${OWNER}/${REPO_NAME}`,
    private: false,
    owner,
    html_url: `https://github.com/${OWNER}/${REPO_NAME}`,
    description: 'A parser and encoder for streams of records',
    fork: false,
    url: api,
    ...urls,
    created_at: '2021-01-26T19:01:12Z',
    updated_at: '2026-11-20T10:03:11Z',
    pushed_at: '2026-11-25T16:44:02Z',
    git_url: `git://github.com/${OWNER}/${REPO_NAME}.git`,
    ssh_url: `git@github.com:${OWNER}/${REPO_NAME}.git`,
    clone_url: `https://github.com/${OWNER}/${REPO_NAME}.git`,
    svn_url: `https://github.com/${OWNER}/${REPO_NAME}`,
    mirror_url: null,
    homepage: null,
    size: 10_842,
    stargazers_count: 1_523,
    watchers_count: 1_523,
    watchers: 1_523,
    language: 'TypeScript',
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: false,
    has_pages: false,
    forks_count: 212,
    forks: 212,
    archived: false,
    disabled: false,
    open_issues_count: 39,
    open_issues: 39,
    license: { key: 'mit', name: 'MIT License', spdx_id: 'MIT', url: 'https://api.github.com/licenses/mit', node_id: 'MDc6TGljZW5zZTEz' },
    topics: ['parser', 'streams'],
    visibility: 'public',
    default_branch: 'main',
  };
}

export interface Pull {
  number: number;
  merged_at: string | null;
  [key: string]: unknown;
}

export interface PullFile {
  filename: string;
  [key: string]: unknown;
}

const DIRS = ['src/parse', 'src/emit', 'src/runtime', 'test/unit', 'docs'];
const FILES = ['index.ts', 'reader.ts', 'writer.ts', 'stream.ts', 'buffer.ts', 'options.ts', 'errors.ts', 'README.md'];

function pulls(): { list: Pull[]; files: Map<number, PullFile[]> } {
  const r = seeded(27);
  const repo = repository();
  const list: Pull[] = [];
  const files = new Map<number, PullFile[]>();
  for (let n = 130; n >= 101; n--) {
    const user = ghUser(pick(r, LOGINS));
    const url = `${REPO_API}/pulls/${n}`;
    const sha = Array.from({ length: 40 }, () => pick(r, [...'0123456789abcdef'])).join('');
    // one closed pull request in four is closed without being merged
    const merged = n % 4 !== 0;
    const branch = `${pick(r, ['fix', 'feat', 'docs', 'refactor'])}/${pick(r, WORDS)}-${pick(r, WORDS)}`;
    list.push({
      url,
      id: 1_900_000_000 + n,
      node_id: `PR_kwDOAbCdEf${n}`,
      html_url: `https://github.com/${OWNER}/${REPO_NAME}/pull/${n}`,
      diff_url: `https://github.com/${OWNER}/${REPO_NAME}/pull/${n}.diff`,
      patch_url: `https://github.com/${OWNER}/${REPO_NAME}/pull/${n}.patch`,
      issue_url: `${REPO_API}/issues/${n}`,
      number: n,
      state: 'closed',
      locked: false,
      title: sentence(r).slice(0, -1),
      user,
      body: prose(r, int(r, 200, 700)),
      created_at: iso(n - 100),
      updated_at: iso(n - 98),
      closed_at: iso(n - 98),
      merged_at: merged ? iso(n - 98) : null,
      merge_commit_sha: sha,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      labels: r() < 0.3 ? [label('bug')] : [],
      milestone: null,
      draft: false,
      commits_url: `${url}/commits`,
      review_comments_url: `${url}/comments`,
      review_comment_url: `${REPO_API}/pulls/comments{/number}`,
      comments_url: `${REPO_API}/issues/${n}/comments`,
      statuses_url: `${REPO_API}/statuses/${sha}`,
      head: { label: `${OWNER}:${branch}`, ref: branch, sha, user, repo },
      base: { label: `${OWNER}:main`, ref: 'main', sha, user: repo.owner, repo },
      _links: {
        self: { href: url },
        html: { href: `https://github.com/${OWNER}/${REPO_NAME}/pull/${n}` },
        issue: { href: `${REPO_API}/issues/${n}` },
        comments: { href: `${REPO_API}/issues/${n}/comments` },
        review_comments: { href: `${url}/comments` },
        review_comment: { href: `${REPO_API}/pulls/comments{/number}` },
        commits: { href: `${url}/commits` },
        statuses: { href: `${REPO_API}/statuses/${sha}` },
      },
      author_association: 'MEMBER',
      auto_merge: null,
      active_lock_reason: null,
    });
    const changed: PullFile[] = [];
    for (let f = int(r, 2, 6); f > 0; f--) {
      const filename = `${pick(r, DIRS)}/${pick(r, FILES)}`;
      if (changed.some((c) => c.filename === filename)) continue;
      const lines = Array.from({ length: int(r, 4, 24) }, () => `${pick(r, ['+', '-', ' '])}  ${sentence(r)}`);
      const additions = lines.filter((l) => l.startsWith('+')).length;
      const deletions = lines.filter((l) => l.startsWith('-')).length;
      changed.push({
        sha: sha.split('').reverse().join(''),
        filename,
        status: 'modified',
        additions,
        deletions,
        changes: additions + deletions,
        blob_url: `https://github.com/${OWNER}/${REPO_NAME}/blob/${sha}/${filename}`,
        raw_url: `https://github.com/${OWNER}/${REPO_NAME}/raw/${sha}/${filename}`,
        contents_url: `${REPO_API}/contents/${filename}?ref=${sha}`,
        patch: `@@ -${int(r, 1, 200)},${lines.length} +${int(r, 1, 200)},${lines.length} @@\n${lines.join('\n')}`,
      });
    }
    files.set(n, changed);
  }
  return { list, files };
}

export interface Customer {
  id: string;
  email: string;
  [key: string]: unknown;
}

export interface Charge {
  id: string;
  customer: string;
  status: string;
  created: number;
  [key: string]: unknown;
}

const stripeId = (r: () => number, prefix: string) =>
  `${prefix}_${Array.from({ length: 24 }, () => pick(r, [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'])).join('')}`;

const FIRST = ['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger', 'Frances', 'Donald', 'Margaret', 'Ken', 'Radia', 'Leslie', 'Niklaus'];
const CITIES: [string, string, string][] = [
  ['Berlin', 'DE', '10115'],
  ['Paris', 'FR', '75001'],
  ['Austin', 'US', '78701'],
  ['Toronto', 'CA', 'M5H 2N2'],
];

function stripe(): { customers: Customer[]; charges: Charge[] } {
  const r = seeded(31);
  const customers: Customer[] = [];
  const charges: Charge[] = [];
  const start = 1_764_000_000;
  FIRST.forEach((first, i) => {
    const id = stripeId(r, 'cus');
    const [city, country, postal] = pick(r, CITIES);
    const name = `${first} ${pick(r, ['Lovelace', 'Hopper', 'Turing', 'Liskov', 'Dijkstra', 'Allen', 'Knuth', 'Hamilton'])}`;
    const email = `${first.toLowerCase()}.${i}@example.com`;
    const address = {
      city,
      country,
      line1: `${int(r, 1, 200)} ${pick(r, ['Main', 'Market', 'King'])} Street`,
      line2: null,
      postal_code: postal,
      state: null,
    };
    customers.push({
      id,
      object: 'customer',
      address,
      balance: 0,
      created: start - int(r, 100_000, 9_000_000),
      currency: 'usd',
      default_source: null,
      delinquent: false,
      description: null,
      discount: null,
      email,
      invoice_prefix: id.slice(4, 12).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: stripeId(r, 'pm'), footer: null, rendering_options: null },
      livemode: false,
      metadata: {},
      name,
      next_invoice_sequence: int(r, 1, 9),
      phone: null,
      preferred_locales: ['en'],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    });
    for (let k = int(r, 1, 3); k > 0; k--) {
      const failed = r() < 0.3;
      const amount = int(r, 5, 400) * 100;
      const last4 = String(int(r, 1000, 9999));
      charges.push({
        id: stripeId(r, 'ch'),
        object: 'charge',
        amount,
        amount_captured: failed ? 0 : amount,
        amount_refunded: 0,
        application: null,
        application_fee: null,
        application_fee_amount: null,
        balance_transaction: failed ? null : stripeId(r, 'txn'),
        billing_details: { address: { ...address, state: null }, email, name, phone: null },
        calculated_statement_descriptor: 'HELLO WORLD',
        captured: !failed,
        created: start + int(r, 0, 2_000_000),
        currency: 'usd',
        customer: id,
        description: `Subscription update`,
        disputed: false,
        failure_balance_transaction: null,
        failure_code: failed ? 'card_declined' : null,
        failure_message: failed ? 'Your card was declined.' : null,
        fraud_details: {},
        invoice: stripeId(r, 'in'),
        livemode: false,
        metadata: {},
        on_behalf_of: null,
        outcome: failed
          ? {
              network_status: 'declined_by_network',
              reason: 'generic_decline',
              risk_level: 'normal',
              risk_score: int(r, 0, 60),
              seller_message: 'The bank did not return any further details with this decline.',
              type: 'issuer_declined',
            }
          : {
              network_status: 'approved_by_network',
              reason: null,
              risk_level: 'normal',
              risk_score: int(r, 0, 60),
              seller_message: 'Payment complete.',
              type: 'authorized',
            },
        paid: !failed,
        payment_intent: stripeId(r, 'pi'),
        payment_method: stripeId(r, 'pm'),
        payment_method_details: {
          card: {
            amount_authorized: failed ? null : amount,
            brand: pick(r, ['visa', 'mastercard', 'amex']),
            checks: { address_line1_check: 'pass', address_postal_code_check: 'pass', cvc_check: 'pass' },
            country,
            exp_month: int(r, 1, 12),
            exp_year: int(r, 2027, 2031),
            fingerprint: stripeId(r, 'fp').slice(3, 19),
            funding: 'credit',
            installments: null,
            last4,
            mandate: null,
            network: 'visa',
            network_token: { used: false },
            three_d_secure: null,
            wallet: null,
          },
          type: 'card',
        },
        receipt_email: email,
        receipt_number: null,
        receipt_url: `https://pay.stripe.com/receipts/invoices/${stripeId(r, 'rcpt').slice(5)}?s=ap`,
        refunded: false,
        review: null,
        shipping: null,
        source_transfer: null,
        statement_descriptor: null,
        statement_descriptor_suffix: null,
        status: failed ? 'failed' : 'succeeded',
        transfer_data: null,
        transfer_group: null,
      });
    }
  });
  charges.sort((a, b) => b.created - a.created);
  return { customers, charges };
}

export const DATA = { issues: issues(), pulls: pulls(), stripe: stripe() };

/** A page of at most `per` items, as `?per_page=` and `?page=` (GitHub) ask for it. */
function githubPage<T>(items: T[], query: URLSearchParams): T[] {
  const per = Math.min(Number(query.get('per_page') ?? 30) || 30, 100);
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  return items.slice((page - 1) * per, page * per);
}

function stripeList<T>(items: T[], query: URLSearchParams, url: string) {
  const limit = Math.min(Math.max(Number(query.get('limit') ?? 10) || 10, 1), 100);
  return { object: 'list', data: items.slice(0, limit), has_more: items.length > limit, url };
}

/** The upstream's answer to one request (GitHub under /repos/…, Stripe under /v1/…). */
export function answer(req: Recorded): Answer {
  const q = req.query;
  const json = (value: unknown): Answer => ({ body: JSON.stringify(value) });
  if (req.method !== 'GET') return { status: 405, body: JSON.stringify({ message: 'Method not allowed here' }) };
  if (req.path === `/repos/${OWNER}/${REPO_NAME}/issues`) {
    const state = q.get('state') ?? 'open';
    const wanted = (q.get('labels') ?? '').split(',').filter(Boolean);
    const found = DATA.issues.filter(
      (i) => (state === 'all' || i.state === state) && wanted.every((w) => i.labels.some((l) => l.name === w)),
    );
    return json(githubPage(found, q));
  }
  if (req.path === `/repos/${OWNER}/${REPO_NAME}/pulls`) {
    const state = q.get('state') ?? 'open';
    return json(
      githubPage(
        DATA.pulls.list.filter((p) => state === 'all' || p.state === state),
        q,
      ),
    );
  }
  const files = new RegExp(`^/repos/${OWNER}/${REPO_NAME}/pulls/(\\d+)/files$`).exec(req.path);
  if (files) {
    const changed = DATA.pulls.files.get(Number(files[1]));
    return changed ? json(githubPage(changed, q)) : { status: 404, body: JSON.stringify({ message: 'Not Found' }) };
  }
  if (req.path === '/v1/customers') return json(stripeList(DATA.stripe.customers, q, '/v1/customers'));
  if (req.path === '/v1/charges') {
    const customer = q.get('customer');
    return json(
      stripeList(
        DATA.stripe.charges.filter((c) => !customer || c.customer === customer),
        q,
        '/v1/charges',
      ),
    );
  }
  return { status: 404, body: JSON.stringify({ message: `no recorded answer for ${req.path}` }) };
}
