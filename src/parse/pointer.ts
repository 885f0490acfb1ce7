// JSON Pointer (RFC 6901) helpers for walking a bundled OpenAPI document.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of an array, or none: a spec may put anything where a list belongs. */
export const asArray = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...tokens: string[]): string {
  return '#' + tokens.map((t) => '/' + escapeToken(t)).join('');
}

/** parsePointer's answers: a spec names the same few thousand refs over and over (each followed anew). */
const parsedPointers = new Map<string, readonly string[] | undefined>();

/** Splits `#/a/b~1c` into ['a', 'b/c']; refs may also be percent-encoded (URI fragment form). */
export function parsePointer(ref: string): readonly string[] | undefined {
  if (parsedPointers.has(ref)) return parsedPointers.get(ref);
  if (parsedPointers.size >= 100_000) parsedPointers.clear(); // bounded: one spec's refs, not every string ever seen
  const tokens = splitPointer(ref);
  parsedPointers.set(ref, tokens);
  return tokens;
}

function splitPointer(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // keep the raw text: a lone % is not an encoding, just a character
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  return fragment
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function getAt(doc: unknown, tokens: readonly string[]): unknown {
  let node: unknown = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * What a `$ref` that is not a `#/…` pointer into this document stands for: nothing (`drop`:
 * the model cannot read another file), or the reference itself (`keep`: a later stage may).
 */
export type NonLocalRef = 'drop' | 'keep';

/**
 * What `node` stands for once its `$ref`s are followed, one after another (a loop ends where it
 * closes; a pointer to nothing gives undefined). A loop, not recursion: a chain of 100,000 refs
 * is as good as one.
 */
export function followRefs(doc: unknown, node: Json | undefined, nonLocal: NonLocalRef = 'drop'): Json | undefined {
  const seen = new Set<string>();
  let current = node;
  while (isObject(current) && typeof current.$ref === 'string' && !seen.has(current.$ref)) {
    const tokens = parsePointer(current.$ref);
    if (!tokens) return nonLocal === 'keep' ? current : undefined;
    seen.add(current.$ref);
    current = getAt(doc, tokens) as Json | undefined;
  }
  return current;
}
