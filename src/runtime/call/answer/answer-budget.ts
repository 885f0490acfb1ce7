// What an answer may cost the model: --max-answer-bytes over the JSON text of a good answer
// (structuredContent is the same value). A JSON answer over it is cut where JSON stays valid:
// a list keeps its leading items whole; an object gives up its largest values, deepest first,
// each for a short placeholder. The note says what was cut and where the next page is, from
// the tool's pagination (tools.json) and the answer itself (its Link header, its cursor).
// --max-response-bytes is another limit: how much of the upstream's body is read at all.

import type { Pagination, ParamSpec, ToolSpec } from '../../../contract/table.js';

export interface AnswerBudget {
  /** Most bytes of JSON text (UTF-8) an answer may be; 0: no budget. */
  maxBytes: number;
  pagination?: Pagination;
  /** The tool's parameters: a next page's URL query is given back as their arguments. */
  params: readonly ParamSpec[];
  /** The call's arguments (the page or offset it asked for). */
  args: Record<string, unknown>;
}

/** What a call's answer may cost the model, and how the tool pages (for the note on what was cut). */
export function answerBudget(tool: ToolSpec, args: Record<string, unknown>, maxBytes: number): AnswerBudget {
  return { maxBytes, params: tool.http.params, args, ...(tool.pagination ? { pagination: tool.pagination } : {}) };
}

/** A place in a JSON value: object keys and array indexes. */
type Path = (string | number)[];

/** What goes out: the value (cut or not), its text, and a note when anything was cut. */
export interface Fitted {
  value: unknown;
  text: string;
  /** Set when something was cut (or, for a Link header, when there is a next page). */
  note?: string;
  meta?: Record<string, unknown>;
  /** Where placeholders stand in for cut values: the value with `null` there fits any loosened outputSchema. */
  placeholders: Path[];
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const size = (value: unknown) => bytes(JSON.stringify(value) ?? 'null');
/** Room left for the note's own block is not taken from the budget: the note is short and separate. */
const placeholder = (cut: number) => `[cut: ${cut} bytes]`;

/** `text` (not JSON) within the budget: cut at a character boundary, with a note. */
export function fitText(text: string, maxBytes: number): string {
  const total = bytes(text);
  if (maxBytes <= 0 || total <= maxBytes) return text;
  const kept = cutUtf8(text, maxBytes);
  return `${kept}\n\n[answer cut to its first ${bytes(kept)} of ${total} bytes by --max-answer-bytes]`;
}

/** The start of `text` in at most `maxBytes` UTF-8 bytes, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--; // not inside a multi-byte character
  return encoded.subarray(0, end).toString('utf8');
}

/** A parsed JSON answer within the budget (its text as sent when it fits), with the note and meta that say what was cut. */
export function fitJson(text: string, value: unknown, budget: AnswerBudget, link?: string): Fitted {
  const total = bytes(text);
  const max = budget.maxBytes;
  const nextFromLink = budget.pagination?.style === 'link-header' ? nextLink(link) : undefined;
  if (max <= 0 || total <= max) {
    // A Link header is invisible to the model: the next page is said even when nothing is cut.
    if (nextFromLink === undefined) return { value, text, placeholders: [] };
    const how = linkArguments(nextFromLink, budget.params);
    return { value, text, placeholders: [], note: `More results: next page: ${describe(how)}.`, meta: { nextPage: how } };
  }
  const compact = JSON.stringify(value);
  if (bytes(compact) <= max) return { value, text: compact, placeholders: [] };
  const list = fitList(value, max);
  if (list) {
    const { kept, count, keptCount } = list;
    const keptText = JSON.stringify(kept);
    const next = nextPage(budget, value, kept, count, keptCount, nextFromLink);
    const cut = count - keptCount;
    let note = `Answer cut to --max-answer-bytes: kept ${keptCount} of ${count} items (${bytes(keptText)} bytes of ${total}).`;
    if (next === undefined) note += keptCount === 0 ? ' The first item alone is over the budget.' : '';
    else {
      note += ` Next page: ${describe(next.how)}.`;
      if (next.skipsCut) {
        const size = budget.pagination?.sizeParam;
        note += ` That page starts after all ${count} items, so the ${cut} cut here are not on it${size ? `: pass \`${size}\` ≤ ${Math.max(1, keptCount)} to get every item` : ''}.`;
      }
    }
    const meta = { kept: keptCount, of: count, bytes: bytes(keptText), totalBytes: total, ...(next ? { nextPage: next.how } : {}) };
    return { value: kept, text: keptText, note, meta, placeholders: [] };
  }
  const shrunk = shrinkObject(value, max);
  const keptText = JSON.stringify(shrunk.value);
  const where = shrunk.cuts
    .slice(0, 5)
    .map((c) => `${c.path.join('.') || '(root)'} (${c.bytes} bytes)`)
    .join(', ');
  const note =
    `Answer cut to --max-answer-bytes (${bytes(keptText)} bytes of ${total}): ${shrunk.cuts.length} value(s) replaced by a placeholder or shortened` +
    (where ? `: ${where}${shrunk.cuts.length > 5 ? ', …' : ''}` : '') +
    '. Ask for less (filters, fields, a smaller page) to see them.';
  return {
    value: shrunk.value,
    text: keptText,
    note,
    meta: { bytes: bytes(keptText), totalBytes: total, cut: shrunk.cuts.map((c) => c.path) },
    placeholders: shrunk.cuts.filter((c) => c.placeholder).map((c) => c.path),
  };
}

/** `value` with `null` at each path (where placeholders stood). */
export function withNulls(value: unknown, paths: Path[]): unknown {
  const copy = structuredClone(value);
  for (const path of paths) {
    let node = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (last !== undefined) node[last] = null;
  }
  return copy;
}

// ---- lists ----

/** The answer's list: the answer itself, or the largest array at its first two levels (Stripe's `data`, GitHub search's `items`). */
function mainList(value: unknown): Path | undefined {
  if (Array.isArray(value)) return [];
  if (!isRecord(value)) return undefined;
  let best: { path: Path; size: number } | undefined;
  for (const [key, sub] of Object.entries(value)) {
    const candidates: [Path, unknown][] = [[[key], sub]];
    if (isRecord(sub)) for (const [inner, v] of Object.entries(sub)) candidates.push([[key, inner], v]);
    for (const [path, v] of candidates) {
      if (!Array.isArray(v) || v.length === 0) continue;
      const s = size(v);
      if (!best || s > best.size) best = { path, size: s };
    }
  }
  return best?.path;
}

/** The answer with its list cut to the most leading items that fit, or undefined when the rest of the answer alone is over. */
function fitList(value: unknown, max: number): { kept: unknown; path: Path; count: number; keptCount: number } | undefined {
  const path = mainList(value);
  if (path === undefined) return undefined;
  const list = get(value, path) as unknown[];
  const base = size(set(value, path, []));
  if (base > max) return undefined;
  let used = base;
  let keptCount = 0;
  for (const item of list) {
    const more = size(item) + (keptCount > 0 ? 1 : 0);
    if (used + more > max) break;
    used += more;
    keptCount++;
  }
  return { kept: set(value, path, list.slice(0, keptCount)), path, count: list.length, keptCount };
}

// ---- objects ----

interface Cut {
  path: Path;
  bytes: number;
  placeholder: boolean;
}

/**
 * The answer within `max` bytes, its largest values cut deepest first: from the root, go down
 * into the largest child while cutting inside it could be enough; there, a long string is
 * shortened, anything else is replaced by a placeholder. At the root, with nothing large
 * left, the last keys go.
 */
function shrinkObject(value: unknown, max: number): { value: unknown; cuts: Cut[] } {
  const copy = structuredClone(value);
  const cuts: Cut[] = [];
  for (let round = 0; round < 1_000; round++) {
    const total = size(copy);
    if (total <= max) break;
    const excess = total - max;
    const path: Path = [];
    let node: unknown = copy;
    for (;;) {
      const largest = largestChild(node);
      if (largest === undefined) break;
      const [key, child, childSize] = largest;
      if ((Array.isArray(child) || isRecord(child)) && childSize > excess + 40 && largestChild(child) !== undefined) {
        path.push(key);
        node = child;
        continue;
      }
      const at = [...path, key];
      if (typeof child === 'string' && childSize > excess + 40) {
        const keep = cutUtf8(child, Math.max(0, bytes(child) - excess - 40));
        const cut = bytes(child) - bytes(keep);
        (node as Record<string | number, unknown>)[key] = `${keep}… [cut: ${cut} bytes]`;
        cuts.push({ path: at, bytes: cut, placeholder: false });
      } else if (childSize > 24) {
        (node as Record<string | number, unknown>)[key] = placeholder(childSize);
        cuts.push({ path: at, bytes: childSize, placeholder: true });
      } else if (path.length > 0) {
        // every child is small: the node itself goes
        const parent = get(copy, path.slice(0, -1)) as Record<string | number, unknown>;
        const nodeSize = size(node);
        parent[path[path.length - 1] as string | number] = placeholder(nodeSize);
        cuts.push({ path: [...path], bytes: nodeSize, placeholder: true });
      } else {
        // the root of many small values: its last keys go (or its last items)
        if (Array.isArray(copy)) copy.pop();
        else delete (copy as Record<string, unknown>)[Object.keys(copy as object).pop() as string];
        cuts.push({ path: at, bytes: childSize, placeholder: false });
      }
      break;
    }
    if (largestChild(copy) === undefined) break;
  }
  return { value: copy, cuts };
}

function largestChild(node: unknown): [string | number, unknown, number] | undefined {
  let best: [string | number, unknown, number] | undefined;
  const entries: [string | number, unknown][] = Array.isArray(node)
    ? node.map((v, i) => [i, v])
    : isRecord(node)
      ? Object.entries(node)
      : [];
  for (const [key, child] of entries) {
    const s = size(child);
    if (!best || s > best[2]) best = [key, child, s];
  }
  return best;
}

// ---- the next page ----

export type NextHow = { arguments: Record<string, unknown> } | { url: string };

const describe = (how: NextHow) => ('url' in how ? `the URL ${how.url}` : `call again with ${JSON.stringify(how.arguments)}`);

/**
 * Where the rest is: from the Link header's next URL, the cursor (the last kept item's id when
 * the cursor is an item's id), the next page number, or the offset past the items kept.
 * `skipsCut`: that page starts after the API's whole page, so the items cut here are not on it.
 */
function nextPage(
  budget: AnswerBudget,
  whole: unknown,
  kept: unknown,
  count: number,
  keptCount: number,
  linkNext: string | undefined,
): { how: NextHow; skipsCut: boolean } | undefined {
  const p = budget.pagination;
  const cutSome = keptCount < count;
  switch (p?.style) {
    case undefined:
      return undefined;
    case 'link-header':
      return linkNext === undefined ? undefined : { how: linkArguments(linkNext, budget.params), skipsCut: cutSome };
    case 'cursor': {
      const segments = p.next.split('.');
      const fromItem = segments.includes('-1');
      // an item's id: the last item kept, so that nothing is skipped
      const cursor = dotted(fromItem ? kept : whole, segments);
      if (cursor === undefined || cursor === null || cursor === '') return undefined;
      // After the last item kept of a cut list there is more, whatever the API's has_more says.
      const more = p.hasMore === undefined ? undefined : dotted(whole, p.hasMore.split('.'));
      if (more === false && !(fromItem && cutSome)) return undefined;
      if (typeof cursor === 'string' && /^https?:\/\//i.test(cursor))
        return { how: linkArguments(cursor, budget.params), skipsCut: cutSome };
      return { how: { arguments: { ...pageSize(budget), [p.param]: cursor } }, skipsCut: !fromItem && cutSome };
    }
    case 'page': {
      const current = Number(budget.args[p.param] ?? 1);
      return { how: { arguments: { ...pageSize(budget), [p.param]: (Number.isFinite(current) ? current : 1) + 1 } }, skipsCut: cutSome };
    }
    case 'offset': {
      const current = Number(budget.args[p.param] ?? 0);
      return {
        how: { arguments: { ...pageSize(budget), [p.param]: (Number.isFinite(current) ? current : 0) + keptCount } },
        skipsCut: false,
      };
    }
  }
}

/**
 * The next page of an answer that was not cut, when the answer itself says there is one (a
 * cursor, and its has_more): for an MCP Apps table's Next page (runtime/apps/apps.ts). Page
 * numbers and offsets are left out: such an answer does not say whether more follow.
 */
export function nextOfWhole(budget: AnswerBudget, value: unknown): NextHow | undefined {
  return budget.pagination?.style === 'cursor' ? nextPage(budget, value, value, 0, 0, undefined)?.how : undefined;
}

/** The page size the call asked for, to ask for the same again. */
function pageSize(budget: AnswerBudget): Record<string, unknown> {
  const name = budget.pagination?.sizeParam;
  return name !== undefined && budget.args[name] !== undefined ? { [name]: budget.args[name] } : {};
}

/** RFC 8288: the target of rel="next" in a Link header, if any. */
export function nextLink(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*(?:[^;,"]|"[^"]*")+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) return match[1];
  }
  return undefined;
}

/** A next page's URL as the tool's arguments, when every query parameter in it is one of the tool's; else the URL. */
function linkArguments(url: string, params: readonly ParamSpec[]): NextHow {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url };
  }
  const out: Record<string, unknown> = {};
  for (const [name, raw] of parsed.searchParams) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (param === undefined || out[param.arg] !== undefined) return { url };
    const numeric = (param.type === 'integer' || param.type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw));
    out[param.arg] = numeric ? Number(raw) : raw;
  }
  return { arguments: out };
}

// ---- JSON values ----

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A dotted path's value; `-1` is an array's last item. */
function dotted(value: unknown, segments: string[]): unknown {
  let node = value;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[segment === '-1' ? node.length - 1 : Number(segment)];
    else if (isRecord(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function get(value: unknown, path: Path): unknown {
  let node = value;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node;
}

/** `value` with `replacement` at `path`, copying only the objects on the way. */
function set(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [key, ...rest] = path as [string | number, ...Path];
  const node = value as Record<string | number, unknown>;
  const copy = Array.isArray(node) ? [...(node as unknown[])] : { ...node };
  (copy as Record<string | number, unknown>)[key] = set(node[key], rest, replacement);
  return copy;
}
