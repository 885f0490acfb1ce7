// RFC 9535 JSONPath for overlays, by jsonpath-rfc9535 (the library Redocly applies overlays
// with): what a query selects, with each node's path, and what makes a query unusable. The
// match() and search() patterns an overlay brings run in JavaScript's backtracking RegExp, so
// those that could backtrack without bound (a repeated group that itself repeats or branches,
// `(a+)+`, `(a|ab)*`) are refused: an overlay, like a spec, must not hang the generator.

import { exec } from 'jsonpath-rfc9535';
import parse from 'jsonpath-rfc9535/parser';
import type { Json } from './pointer.js';

/** A selected node and where it is: member names and array indexes from the root. */
export interface Selected {
  value: Json;
  path: (string | number)[];
}

/** The nodes `query` selects in `doc`, in the order RFC 9535 gives them. */
export function select(doc: Json, query: string): Selected[] {
  const found: Selected[] = [];
  exec(doc, query, (value, path) => found.push({ value: value as Json, path: [...path] }));
  return found;
}

/** Why `query` cannot be used, in words that follow the query; undefined when it can. */
export function jsonPathProblem(query: string): string | undefined {
  let ast: unknown;
  try {
    ast = parse(query);
  } catch (error) {
    return `is not an RFC 9535 JSONPath query: ${(error as Error).message.split('\n')[0]}`;
  }
  return patternProblem(ast);
}

/** The first match()/search() in the query whose pattern is not a literal, or could backtrack without bound. */
function patternProblem(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const { type, name, arguments: args } = node as { type?: unknown; name?: unknown; arguments?: unknown[] };
  if (type === 'FunctionExpr' && (name === 'match' || name === 'search')) {
    const pattern = args?.[1] as { type?: unknown; value?: unknown } | undefined;
    if (pattern?.type !== 'Literal' || typeof pattern.value !== 'string')
      return `gives ${name}() a pattern that is not a string literal: an overlay's patterns must be written in it`;
    if (unboundedBacktracking(pattern.value))
      return `gives ${name}() the pattern ${JSON.stringify(pattern.value)}, whose repeated group repeats or branches inside: it could take exponential time`;
  }
  for (const child of Object.values(node)) {
    const problem = patternProblem(child);
    if (problem) return problem;
  }
  return undefined;
}

const repeats = (c: string | undefined) => c === '*' || c === '+' || c === '{';

/** True when an I-Regexp (RFC 9485) has a repeated group that contains a repetition or an alternation. */
function unboundedBacktracking(pattern: string): boolean {
  const groups: boolean[] = []; // per open group: does it repeat or branch inside?
  const mark = () => {
    if (groups.length) groups[groups.length - 1] = true;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i += pattern[i + 1] === 'p' || pattern[i + 1] === 'P' ? pattern.indexOf('}', i) - i : 1;
    else if (c === '[') i = classEnd(pattern, i);
    else if (c === '(') groups.push(false);
    else if (c === '|') mark();
    else if (repeats(c)) mark();
    else if (c === ')') {
      const inner = groups.pop() ?? false;
      if (inner && repeats(pattern[i + 1])) return true;
      if (inner) mark();
    }
    if (i < 0) return false; // an unterminated \p{: the library refuses it
  }
  return false;
}

/** The index of the `]` that closes the class opened at `start`. */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}
