// Pagination detected at generation (src/model/pagination.ts), on the real specs: GitHub's Link
// header, Stripe's `starting_after` + `has_more`, Slack's and Gmail's cursors, Jira's
// `startAt`; operations that do not page get nothing; the description says how to page,
// within --max-description.
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadSpec } from '../../../src/parse/load.js';
import { buildModel } from '../../../src/model/build.js';
import { withSentence } from '../../../src/model/pagination.js';
import { compactDescription } from '../../../src/contract/profiles.js';
import type { ToolSpec } from '../../../src/contract/table.js';
import { corporaMissing, corporaTitle, DIRECTORY, GITHUB_SPEC } from '../../../harness/corpora.js';

const tools = new Map<string, Map<string, ToolSpec>>();

async function load(name: string, path: string, maxDescriptionLength = 1_000) {
  const spec = await loadSpec(path, {});
  const { table } = buildModel(spec, { maxDescriptionLength });
  tools.set(name, new Map(table.tools.map((t) => [t.operationId ?? t.name, t])));
}
const tool = (spec: string, operationId: string): ToolSpec => {
  const found = tools.get(spec)?.get(operationId);
  if (!found) throw new Error(`no ${operationId} in ${spec}`);
  return found;
};

beforeAll(async () => {
  if (corporaMissing) return;
  await load('github', GITHUB_SPEC);
  await load('stripe', join(DIRECTORY, 'stripe.com.json'));
  await load('slack', join(DIRECTORY, 'slack.com.json'));
  await load('gmail', join(DIRECTORY, 'googleapis.com/gmail.json'));
  await load('jira', join(DIRECTORY, 'atlassian.com/jira.json'));
  await load('stripe-short', join(DIRECTORY, 'stripe.com.json'), 200);
}, 300_000);

describe.skipIf(!!corporaMissing)(corporaTitle('detected from the spec'), () => {
  it("GitHub's issues/list-for-repo: the Link header, with per_page", () => {
    const t = tool('github', 'issues/list-for-repo');
    expect(t.pagination).toEqual({ style: 'link-header', sizeParam: 'per_page' });
    expect(t.description).toMatch(
      /\n\nPaginated: when there are more results, the answer ends with a note giving the next page's arguments \(`per_page` sets the page size\)\.$/,
    );
  });

  it("Stripe's GetCustomers: a cursor, the last item's id in starting_after while has_more", () => {
    const t = tool('stripe', 'GetCustomers');
    expect(t.pagination).toEqual({ style: 'cursor', param: 'starting_after', next: 'data.-1.id', hasMore: 'has_more', sizeParam: 'limit' });
    expect(t.description).toContain(
      "Paginated: pass `starting_after` = the last item's id while `has_more` is true (`limit` sets the page size).",
    );
  });

  it("Stripe's search: `page` is a cursor there (a string), the answer's next_page", () => {
    expect(tool('stripe', 'GetChargesSearch').pagination).toMatchObject({
      style: 'cursor',
      param: 'page',
      next: 'next_page',
      hasMore: 'has_more',
    });
  });

  it("Slack's cursor in response_metadata; Gmail's pageToken/nextPageToken; Jira's startAt", () => {
    expect(tool('slack', 'conversations_list').pagination).toMatchObject({
      style: 'cursor',
      param: 'cursor',
      next: 'response_metadata.next_cursor',
    });
    expect(tool('gmail', 'gmail.users.messages.list').pagination).toMatchObject({
      style: 'cursor',
      param: 'pageToken',
      next: 'nextPageToken',
    });
    expect(tool('jira', 'getAllDashboards').pagination).toMatchObject({ style: 'offset', param: 'startAt', sizeParam: 'maxResults' });
  });

  it('operations that do not page get nothing', () => {
    expect(tool('github', 'repos/get').pagination).toBeUndefined();
    expect(tool('github', 'issues/create').pagination).toBeUndefined();
    expect(tool('stripe', 'GetCustomersCustomer').pagination).toBeUndefined();
    expect(tool('stripe', 'PostCustomers').pagination).toBeUndefined();
    expect(tool('gmail', 'gmail.users.messages.get').pagination).toBeUndefined();
  });
});

describe.skipIf(!!corporaMissing)(corporaTitle('the description'), () => {
  it('stays within --max-description with the sentence whole', () => {
    const t = tool('stripe-short', 'GetCustomers');
    expect(t.description.length).toBeLessThanOrEqual(200);
    expect(t.description).toMatch(/…\n\nPaginated: pass `starting_after`/);
  });

  it('withSentence: unchanged when the sentence cannot fit', () => {
    expect(withSentence('short', 'Paginated: x.', 100)).toBe('short\n\nPaginated: x.');
    expect(withSentence('short', 'Paginated: a long sentence that does not fit.', 30)).toBe('short');
  });

  it('compact profiles list the first paragraph and the sentence on paging, within 300 characters', () => {
    const listed = compactDescription(tool('github', 'issues/list-for-repo').description);
    expect(listed.length).toBeLessThanOrEqual(300);
    expect(listed).toMatch(/^List repository issues .*Paginated: when there are more results/);
    expect(compactDescription('One.\n\nTwo.')).toBe('One.');
  });
});
