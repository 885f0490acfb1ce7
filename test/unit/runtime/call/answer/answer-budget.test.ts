// --max-answer-bytes (src/runtime/call/answer/answer-budget.ts, through toToolResult): a good JSON answer
// over the budget is cut where JSON stays valid — a list keeps its leading items whole, an
// object gives up its largest values — its text always parses, what is kept still fits the
// tool's outputSchema, and the note says what was cut and where the next page is.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { toToolResult, type UpstreamAnswer } from '../../../../../src/runtime/call/answer/response.js';
import { advertisedStructure, type OutputCheck } from '../../../../../src/runtime/mcp/output.js';
import { cutUtf8, fitJson, fitText, nextLink, type AnswerBudget } from '../../../../../src/runtime/call/answer/answer-budget.js';
import type { JsonSchema, OutputSpec, ParamSpec } from '../../../../../src/contract/table.js';

const answer = (body: unknown, more: Partial<UpstreamAnswer> = {}): UpstreamAnswer => ({
  status: 200,
  statusText: 'OK',
  contentType: 'application/json',
  bytes: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated: false,
  label: 'GET https://api.example.com/items',
  uri: 'https://api.example.com/items',
  ...more,
});
const query = (name: string, type = 'integer'): ParamSpec => ({
  arg: name,
  name,
  in: 'query',
  style: 'form',
  explode: true,
  required: false,
  type,
});
const budget = (maxBytes: number, more: Partial<AnswerBudget> = {}): AnswerBudget => ({ maxBytes, params: [], args: {}, ...more });
const texts = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text ?? '');
const bytes = (text: string) => Buffer.byteLength(text);
const items = (n: number, extra = 'x'.repeat(80)) => Array.from({ length: n }, (_, i) => ({ id: `it_${i}`, name: `item ${i}`, extra }));

/** An advertised outputSchema, compiled as the runtime does (ajv 2020). */
function structurer(schema: JsonSchema, wrap: boolean) {
  const ajv = new Ajv2020({ strict: false });
  const validate = ajv.compile(schema);
  const check = Object.assign((value: unknown) => validate(value), { describe: () => ajv.errorsText(validate.errors) }) as OutputCheck;
  const output: OutputSpec = { schema, wrap };
  return { structure: advertisedStructure(output, () => check), validate };
}

describe('a list over the budget', () => {
  it('a top-level array keeps its leading items whole: valid JSON within budget, the note counts them', () => {
    const list = items(30);
    const result = toToolResult(answer(list), undefined, budget(2_000));
    const [text, note] = texts(result);
    expect(bytes(text ?? '')).toBeLessThanOrEqual(2_000);
    const kept = JSON.parse(text ?? '') as unknown[];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(list.slice(0, kept.length));
    expect(note).toContain(`kept ${kept.length} of 30 items`);
    expect(result.structuredContent).toEqual({ result: kept });
    expect(result._meta?.['mcp-gen/answer']).toMatchObject({ kept: kept.length, of: 30 });
  });

  it("Stripe-like {data, has_more}: the next page starts after the last item kept, not the API's last", () => {
    const page = { object: 'list', data: items(30), has_more: true, url: '/v1/customers' };
    const pagination = { style: 'cursor', param: 'starting_after', next: 'data.-1.id', hasMore: 'has_more', sizeParam: 'limit' } as const;
    const result = toToolResult(answer(page), undefined, budget(2_000, { pagination, args: { limit: 30 } }));
    const [text, note] = texts(result);
    const kept = JSON.parse(text ?? '') as typeof page;
    expect(kept.has_more).toBe(true);
    expect(kept.object).toBe('list');
    const last = kept.data[kept.data.length - 1]?.id;
    expect(last).not.toBe('it_29');
    expect(note).toContain(`Next page: call again with {"limit":30,"starting_after":"${last}"}`);
    expect(note).not.toContain('not on it');
  });

  it('GitHub-like array + Link header: the next page as the tool’s arguments, and that the cut items are not on it', () => {
    const link =
      '<https://api.github.com/repositories/1/issues?state=open&per_page=30&page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=9>; rel="last"';
    const pagination = { style: 'link-header', sizeParam: 'per_page' } as const;
    const params = [query('state', 'string'), query('per_page'), query('page')];
    const result = toToolResult(answer(items(30), { link }), undefined, budget(2_000, { pagination, params }));
    const note = texts(result)[1] ?? '';
    expect(note).toContain('Next page: call again with {"state":"open","per_page":30,"page":2}');
    expect(note).toMatch(/the \d+ cut here are not on it: pass `per_page` ≤ \d+/);
    // a query parameter the tool does not have: the URL itself
    const other = toToolResult(
      answer(items(30), { link: '<https://x.example/i?zzz=1>; rel="next"' }),
      undefined,
      budget(2_000, { pagination, params }),
    );
    expect(texts(other)[1]).toContain('Next page: the URL https://x.example/i?zzz=1');
  });

  it('a Link header is said even when nothing is cut (the model never sees headers)', () => {
    const result = toToolResult(
      answer(items(2), { link: '<https://api.example.com/items?page=2>; rel="next"' }),
      undefined,
      budget(65_536, { pagination: { style: 'link-header' }, params: [query('page')] }),
    );
    expect(texts(result)).toEqual([JSON.stringify(items(2)), 'More results: next page: call again with {"page":2}.']);
  });

  it('page and offset styles: page + 1, offset + the items kept', () => {
    const paged = toToolResult(
      answer(items(30)),
      undefined,
      budget(2_000, { pagination: { style: 'page', param: 'page' }, args: { page: 3 } }),
    );
    expect(texts(paged)[1]).toContain('{"page":4}');
    const offset = toToolResult(
      answer({ values: items(30), total: 100 }),
      undefined,
      budget(2_000, { pagination: { style: 'offset', param: 'startAt', sizeParam: 'maxResults' }, args: { startAt: 10 } }),
    );
    const kept = (JSON.parse(texts(offset)[0] ?? '') as { values: unknown[] }).values.length;
    expect(texts(offset)[1]).toContain(`{"startAt":${10 + kept}}`);
  });

  it('a budget smaller than one item: valid JSON all the same, and a note that says so', () => {
    const result = toToolResult(answer({ data: items(3, 'y'.repeat(5_000)), has_more: false }), undefined, budget(500));
    const [text, note] = texts(result);
    expect(bytes(text ?? '')).toBeLessThanOrEqual(500);
    expect(() => JSON.parse(text ?? '')).not.toThrow();
    expect(note).toMatch(/Answer cut to --max-answer-bytes/);
  });

  it('an answer that fits once written compactly is sent compact, with nothing cut', () => {
    const pretty = JSON.stringify(items(5), null, 8);
    const compact = JSON.stringify(items(5));
    const result = toToolResult(answer(pretty), undefined, budget(bytes(compact) + 10));
    expect(texts(result)).toEqual([compact]);
  });
});

describe('an object without a list', () => {
  const doc = {
    id: 'repo_1',
    name: 'thing',
    readme: 'r'.repeat(20_000),
    owner: { login: 'me', bio: 'b'.repeat(8_000), stats: { followers: 3 } },
    settings: { flags: Array.from({ length: 10 }, (_, i) => ({ flag: i })) },
  };

  it('its largest values are shortened or replaced, deepest first; the small ones stay', () => {
    const shortened = toToolResult(answer(doc), undefined, budget(12_000));
    const kept = JSON.parse(texts(shortened)[0] ?? '') as typeof doc;
    expect(bytes(texts(shortened)[0] ?? '')).toBeLessThanOrEqual(12_000);
    expect(kept.readme).toMatch(/^r+… \[cut: \d+ bytes\]$/); // the largest value, shortened as much as needed
    expect(kept.owner).toEqual(doc.owner);
    expect(texts(shortened)[1]).toContain('readme');

    const result = toToolResult(answer(doc), undefined, budget(3_000));
    const [text, note] = texts(result);
    expect(bytes(text ?? '')).toBeLessThanOrEqual(3_000);
    const small = JSON.parse(text ?? '') as typeof doc;
    expect(small.id).toBe('repo_1');
    expect(small.readme).toMatch(/^\[cut: \d+ bytes\]$/); // too big to shorten enough: replaced
    expect(small.owner.login).toBe('me');
    expect(small.owner.stats).toEqual({ followers: 3 });
    expect(small.settings).toEqual(doc.settings);
    expect(note).toContain('owner.bio');
  });

  it('unicode: no character split, the text parses', () => {
    const unicode = { title: 'ok', body: '😀é漢'.repeat(3_000) };
    const result = toToolResult(answer(unicode), undefined, budget(1_000));
    const text = texts(result)[0] ?? '';
    expect(bytes(text)).toBeLessThanOrEqual(1_000);
    const kept = JSON.parse(text) as typeof unicode;
    expect(kept.body).not.toContain('\uFFFD');
    expect(cutUtf8('😀😀', 5)).toBe('😀');
    expect(cutUtf8('aé', 2)).toBe('a');
  });

  it('many small keys: the last ones go, the text stays an object', () => {
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    const fitted = fitJson(JSON.stringify(wide), wide, budget(300));
    expect(bytes(fitted.text)).toBeLessThanOrEqual(300);
    expect(Object.keys(JSON.parse(fitted.text) as object)[0]).toBe('k0');
  });
});

describe('what is kept still fits the outputSchema', () => {
  it('a placeholder string where the schema wants an object becomes null (loosened schemas allow null)', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        id: { type: ['string', 'null'] },
        owner: { type: ['object', 'null'], properties: { bio: { type: ['object', 'null'] } } },
      },
    };
    const { structure, validate } = structurer(schema, false);
    const value = { id: 'x', owner: { bio: { text: 't'.repeat(10_000), more: 'm'.repeat(10_000) } } };
    const result = toToolResult(answer(value), structure, budget(1_500));
    expect(result.isError).toBeUndefined();
    expect(validate(result.structuredContent)).toBe(true);
    const text = texts(result)[0] ?? '';
    expect(bytes(text)).toBeLessThanOrEqual(1_500);
    expect(JSON.parse(text)).toEqual(result.structuredContent);
  });

  it('a wrapped list: { result: [...] } with the items kept validates', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        result: { type: ['array', 'null'], items: { type: ['object', 'null'], properties: { id: { type: ['string', 'null'] } } } },
      },
    };
    const { structure, validate } = structurer(schema, true);
    const result = toToolResult(answer(items(50)), structure, budget(1_000));
    expect(validate(result.structuredContent)).toBe(true);
    expect((result.structuredContent as { result: unknown[] }).result.length).toBeLessThan(50);
  });
});

describe('text answers and the upstream read limit', () => {
  it('non-JSON text is cut at the budget with a note', () => {
    expect(fitText('abc', 10)).toBe('abc');
    expect(fitText('a'.repeat(100), 10)).toBe('a'.repeat(10) + '\n\n[answer cut to its first 10 of 100 bytes by --max-answer-bytes]');
    const result = toToolResult(answer('t'.repeat(5_000), { contentType: 'text/plain' }), undefined, budget(1_000));
    expect(texts(result)[0]).toMatch(/^t{1000}\n\n\[answer cut/);
  });

  it('0 means no budget', () => {
    const list = items(100);
    expect(texts(toToolResult(answer(list), undefined, budget(0)))).toEqual([JSON.stringify(list)]);
  });
});

describe('nextLink (RFC 8288)', () => {
  it.each([
    ['<https://a.example/x?page=2>; rel="next", <https://a.example/x?page=5>; rel="last"', 'https://a.example/x?page=2'],
    ['<https://a.example/x?page=1>; rel="prev", <https://a.example/x?page=3>; rel=next', 'https://a.example/x?page=3'],
    ['<https://a.example/x?p=2>; title="a, b"; rel="next last"', 'https://a.example/x?p=2'],
    ['<https://a.example/x?page=5>; rel="last"', undefined],
    ['', undefined],
  ])('%s', (header, want) => {
    expect(nextLink(header)).toBe(want);
  });
});
