// What tools/list shows of each schema. A tool's schema carries, as `$defs`, every shared
// schema it reaches; in densely linked specs that closure is most of the API (a Stripe
// response reaches 500 KB of schemas, a DocuSign request 1 MB), so listing it whole gives
// tools/list messages of 30–140 MB that no client reads (the SDK's stdio reader stops at
// 10 MiB). So each listed schema keeps its own properties and the shared schemas nearest to
// it, within a byte budget; the shared schemas beyond are listed as stubs (type and
// description only). A stub accepts everything the schema it stands for accepts, so a client
// checking against the listed schema never refuses a valid value; the server itself still
// checks arguments against the full schema and names the failing nested field.

import { defGraph } from '../contract/def-refs.js';
import { stubSchema, type JsonSchema, type Listing, type ToolTable } from '../contract/table.js';

export interface ListingBudget {
  /** Bytes of shared schemas listed in full with one inputSchema, beyond the nearest ones. */
  inputDefsBytes: number;
  /** The same for an outputSchema, nearest ones included (it documents the answer: smaller). */
  outputDefsBytes: number;
  /** The whole tools/list answer: budgets are halved until it fits. */
  totalBytes: number;
}

export const DEFAULT_LISTING_BUDGET: ListingBudget = {
  inputDefsBytes: 16 * 1024,
  outputDefsBytes: 4 * 1024,
  totalBytes: 8 * 1024 * 1024,
};

export interface ListingReport {
  /** Tools with at least one shared schema listed as a stub. */
  trimmedTools: number;
  /** Size of the tools' schemas as listed, and as they would be listed whole. */
  listedBytes: number;
  wholeBytes: number;
}

const size = (value: unknown) => JSON.stringify(value).length;

/** Each tool schema's and def's JSON text, made once: the listing measures it here and chooseServing (serving.ts) keys by it. */
const schemaTexts = new WeakMap<JsonSchema, string>();
export function schemaText(schema: JsonSchema): string {
  let text = schemaTexts.get(schema);
  if (text === undefined) schemaTexts.set(schema, (text = JSON.stringify(schema)));
  return text;
}

/**
 * directRefs (contract/def-refs.ts) read from a schema's JSON text: the same `$ref`s, anywhere
 * in the value, without walking it again. In JSON text a `"` inside a string is escaped, so
 * `"$ref":"` only matches a member named `$ref` whose value is a string.
 */
const DEFS_REF = /"\$ref":"#\/\$defs\/((?:[^"\\]|\\.)*)"/g;
function refsInText(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(DEFS_REF)) {
    const key = match[1] as string;
    found.add(key.includes('\\') ? (JSON.parse(`"${key}"`) as string) : key);
  }
  return [...found];
}

/**
 * Splits the defs of one schema into those listed in full and those listed as stubs: breadth
 * first from the schema's own refs, the ones it names directly always in full (they are its
 * shape) unless `firstLevel` is false, then deeper ones while they fit in `budget` bytes.
 * Defs reachable only through a stub are not listed at all.
 */
export function splitDefs(
  rootRefs: string[],
  deps: (key: string) => Iterable<string>,
  defSize: (key: string) => number,
  budget: number,
  firstLevel: boolean,
): Listing {
  const full = new Set<string>();
  const stubs = new Set<string>();
  let spent = 0;
  let level = [...new Set(rootRefs)].sort();
  for (let depth = 0; level.length; depth++) {
    const next = new Set<string>();
    for (const key of level) {
      const free = depth === 0 && firstLevel;
      if (free || spent + defSize(key) <= budget) {
        if (!free) spent += defSize(key);
        full.add(key);
        for (const dep of deps(key)) next.add(dep);
      } else stubs.add(key);
    }
    level = [...next].filter((k) => !full.has(k) && !stubs.has(k)).sort();
  }
  return { defs: [...full].sort(), stubs: [...stubs].sort() };
}

/** A tool schema that names shared defs: where its `listing` goes, and the defs it names directly. */
type Holder = { holder: { listing?: Listing }; output: boolean; tool: string; rootRefs: string[]; refsKey: string };

/** The input and output schemas of the table's tools that name shared defs. */
function schemaHolders(table: ToolTable): Holder[] {
  return table.tools.flatMap((tool) => {
    const found: Holder[] = [];
    const add = (holder: Holder['holder'], root: JsonSchema, output: boolean) => {
      const rootRefs = refsInText(schemaText(root));
      if (rootRefs.length) found.push({ holder, output, tool: tool.name, rootRefs, refsKey: rootRefs.join(' ') });
    };
    add(tool, tool.inputSchema, false);
    if (tool.output) add(tool.output, tool.output.schema, true);
    return found;
  });
}

/** Holders grouped by what their split depends on: `first` of each group, its `size`, and the group `of` each holder. */
function sameSplitGroups(holders: Holder[]): { first: Holder[]; size: number[]; of: number[] } {
  const index = new Map<string, number>();
  const first: Holder[] = [];
  const size: number[] = [];
  const of = holders.map((h) => {
    const id = `${h.output ? 'output' : 'input'} ${h.refsKey}`;
    let g = index.get(id);
    if (g === undefined) {
      index.set(id, (g = first.length));
      first.push(h);
      size.push(0);
    }
    size[g] = (size[g] as number) + 1;
    return g;
  });
  return { first, size, of };
}

/**
 * The bytes of the defs `roots` reach, each counted once. In densely linked specs every
 * trimmed schema reaches most of the API (Stripe: ~700 defs from each of 135 sets of roots),
 * so the walk runs over integer indices, visits stamped rather than a Set per walk.
 */
function closureSummer(keys: string[], depsOf: (key: string) => string[], sizeOf: (key: string) => number): (roots: string[]) => number {
  const index = new Map(keys.map((key, i) => [key, i]));
  // keys that are not defs reach nothing and weigh nothing
  const indices = (list: string[]) => list.flatMap((key) => index.get(key) ?? []);
  const sizes = keys.map(sizeOf);
  const deps: number[][] = [];
  const depsAt = (i: number) => (deps[i] ??= indices(depsOf(keys[i] as string)));
  const visited = new Uint32Array(keys.length);
  let walk = 0;
  return (roots) => {
    walk++;
    let bytes = 0;
    const stack = indices(roots);
    while (stack.length) {
      const i = stack.pop() as number;
      if (visited[i] === walk) continue;
      visited[i] = walk;
      bytes += sizes[i] as number;
      for (const dep of depsAt(i)) if (visited[dep] !== walk) stack.push(dep);
    }
    return bytes;
  };
}

/** Sets `listing` on every tool schema whose defs do not all fit, so that tools/list fits the budget. */
export function fitListing(table: ToolTable, budget: ListingBudget = DEFAULT_LISTING_BUDGET): ListingReport {
  // schemaText: the portable lister (serving.ts) measures the same defs, and reads them from its memo
  const defSizes = new Map(Object.entries(table.defs).map(([k, v]) => [k, schemaText(v).length]));
  const stubSizes = new Map(Object.entries(table.defs).map(([k, v]) => [k, size(stubSchema(v))]));
  const deps = defGraph(table.defs, (def) => refsInText(schemaText(def))).depsOf;
  const defSize = (key: string) => defSizes.get(key) ?? 0;
  const reachedBytes = closureSummer(Object.keys(table.defs), deps, defSize);
  const closureSizes = new Map<string, number>();
  const closureBytes = (refsKey: string, roots: string[]) => {
    let bytes = closureSizes.get(refsKey);
    if (bytes === undefined) closureSizes.set(refsKey, (bytes = reachedBytes(roots)));
    return bytes;
  };
  const holders = schemaHolders(table);
  const fixedBytes = table.tools.reduce(
    (n, t) =>
      n + t.name.length + size(t.description) + schemaText(t.inputSchema).length + (t.output ? schemaText(t.output.schema).length : 0),
    0,
  );

  type Split = { listing: Listing; bytes: number; spent: number; firstLevel: boolean };
  const split = (h: Holder, bytes: number, firstLevel: boolean): Split => {
    const listing = splitDefs(h.rootRefs, deps, defSize, bytes, firstLevel);
    const free = firstLevel ? new Set(h.rootRefs) : new Set<string>();
    // bytes of the defs bought from the budget: under any budget that still holds them, the split is the same
    const spent = listing.defs.reduce((m, k) => m + (free.has(k) ? 0 : defSize(k)), 0);
    const listed = listing.defs.reduce((m, k) => m + defSize(k), 0) + listing.stubs.reduce((m, k) => m + (stubSizes.get(k) ?? 0), 0);
    return { listing, bytes: listed, spent, firstLevel };
  };
  // Tools often name the same schemas (an error body, a list envelope): holders of the same refs,
  // both inputs or both outputs, are split alike under every budget, so an attempt splits and
  // counts each such group once.
  const groups = sameSplitGroups(holders);
  // A split is the same under any smaller budget that still holds the defs it bought (each def
  // it stubbed was over the larger budget already): the next, halved, attempt reuses it rather
  // than walking its defs again.
  const lastSplits: (Split | undefined)[] = [];
  // Every attempt lists each holder's own refs, each in full or as a stub: when even the
  // smaller of the two cannot fit, no attempt fits and the last one is what remains.
  const floorBytes = holders.reduce((n, h) => h.rootRefs.reduce((m, k) => m + Math.min(defSize(k), stubSizes.get(k) ?? 0), n), fixedBytes);
  // Halving 12 times takes any budget below one def; then even the first level is stubbed.
  const LAST = 12;
  // An attempt only adds up bytes; the listings of the attempt that ends the search are set after it.
  let chosen: Split[] = [];
  let listedBytes = fixedBytes;
  for (let attempt = floorBytes > budget.totalBytes ? LAST : 0; attempt <= LAST; attempt++) {
    const scale = 2 ** -attempt;
    listedBytes = fixedBytes;
    chosen = groups.first.map((h, g) => {
      const bytes = Math.floor((h.output ? budget.outputDefsBytes : budget.inputDefsBytes) * scale);
      // An answer's shape is documentation: it gets no free first level; an input's is its arguments.
      const firstLevel = !h.output && attempt < LAST;
      const known = lastSplits[g];
      const done = known && known.firstLevel === firstLevel && known.spent <= bytes ? known : split(h, bytes, firstLevel);
      lastSplits[g] = done;
      listedBytes += done.bytes * (groups.size[g] as number);
      return done;
    });
    if (listedBytes <= budget.totalBytes) break;
  }
  const trimmed = new Set<string>();
  let wholeBytes = fixedBytes;
  holders.forEach((h, i) => {
    const done = chosen[groups.of[i] as number] as Split;
    // a split without stubs lists every def its schema reaches: only a trimmed one's closure is walked
    wholeBytes += done.listing.stubs.length ? closureBytes(h.refsKey, h.rootRefs) : done.bytes;
    if (done.listing.stubs.length) {
      h.holder.listing = done.listing;
      trimmed.add(h.tool);
    } else if (h.holder.listing !== undefined) delete h.holder.listing; // delete makes an object slow to read: only when there is one
  });
  return { trimmedTools: trimmed.size, listedBytes, wholeBytes };
}
