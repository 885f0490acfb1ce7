// Which shared schemas (`ToolTable.defs`) a schema reaches through `#/$defs/<key>` refs. The
// table does not store each tool's closure: in densely linked specs it is most of the API for
// every tool (Stripe: 700 keys × 452 tools, two thirds of tools.json), so both halves derive it
// from the schemas, each def's own refs read once.

import type { JsonSchema } from './table.js';

const DEFS_PREFIX = '#/$defs/';

/**
 * Calls `visit` with each `$ref` string in a JSON value, walked without recursion (a document
 * may nest deeper than the call stack); stops, answering true, when `visit` answers true.
 */
export function someRef(root: unknown, visit: (ref: string) => boolean | void): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node))
      for (const item of node) stack.push(item); // not push(...node): a 500,000-value enum overflows the argument stack
    else if (typeof node === 'object' && node !== null) {
      // for…in, not Object.entries: no array per object of a document with millions of them
      for (const key in node) {
        const value = (node as Record<string, unknown>)[key];
        if (key === '$ref' && typeof value === 'string') {
          if (visit(value) === true) return true;
        } else if (typeof value === 'object' && value !== null) stack.push(value);
      }
    }
  }
  return false;
}

/** Refs a schema names directly (`#/$defs/<key>` → key), each once. */
export function directRefs(schema: unknown): string[] {
  const found = new Set<string>();
  someRef(schema, (ref) => void (ref.startsWith(DEFS_PREFIX) && found.add(ref.slice(DEFS_PREFIX.length))));
  return [...found];
}

export interface DefGraph {
  /** The keys a def names directly (read once per key). */
  depsOf(key: string): string[];
  /** Every key reachable from `roots`, sorted; the same roots are walked once. */
  closure(roots: Iterable<string>): string[];
  /** The same keys in no particular order, walked each time (for sums, where sorting would cost more than the walk). */
  reached(roots: Iterable<string>): string[];
  /** Every key `schema` reaches, sorted. */
  reachedFrom(schema: JsonSchema): string[];
}

/**
 * The refs between `defs`, read lazily: a server lists a tool's closure only when a client asks.
 * `refsOf`: how a def's own refs are read (directRefs, or a caller's reading of text it already has).
 */
export function defGraph(defs: Readonly<Record<string, JsonSchema>>, refsOf: (def: JsonSchema) => string[] = directRefs): DefGraph {
  const deps = new Map<string, string[]>();
  const closures = new Map<string, string[]>();
  const depsOf = (key: string): string[] => {
    let found = deps.get(key);
    if (!found) deps.set(key, (found = Object.hasOwn(defs, key) ? refsOf(defs[key] as JsonSchema) : []));
    return found;
  };
  const walk = (roots: Iterable<string>): string[] => {
    const seen = new Set<string>();
    const stack = [...roots];
    while (stack.length) {
      const key = stack.pop() as string;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const dep of depsOf(key)) stack.push(dep);
    }
    return [...seen];
  };
  const closure = (roots: Iterable<string>): string[] => {
    const sorted = [...new Set(roots)].sort();
    const id = sorted.join('\n');
    let known = closures.get(id);
    if (!known) closures.set(id, (known = walk(sorted).sort()));
    return known;
  };
  return { depsOf, closure, reached: walk, reachedFrom: (schema) => closure(directRefs(schema)) };
}
