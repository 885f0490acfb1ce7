// Bounds that both halves keep: how many tools a client accepts in one listing, and what one
// tool call's arguments can cost the server. Schemas come from the spec and arguments from
// the client, and neither is trusted: a spec `pattern` such as `^(a+)+$` takes exponential
// time in a backtracking engine (8 s for 28 characters in V8), and a deeply nested argument
// costs every recursive step that follows. While the event loop is stuck, every other client
// waits.

import type { RegExpEngine } from 'ajv/dist/types/index.js';

/** The most tools some clients accept in one tools/list (VS Code, Copilot, the OpenAI API). */
export const CLIENT_TOOL_CAP = 128;

/**
 * Deepest nesting of arrays and objects accepted in JSON from the wire: a request body, and an
 * upstream's answer (past it, JSON.stringify and the SDK's send overflow the stack on the way back).
 */
export const MAX_JSON_DEPTH = 100;

/** Deepest nesting of arrays and objects accepted in a call's arguments. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Most values (every array item, object property and scalar counts one) in a call's arguments. */
export const MAX_ARGUMENT_VALUES = 200_000;

/** Why the arguments are too big to check, or undefined. Iterative, and stops at the first excess. */
export function argumentsTooBig(args: unknown): string | undefined {
  const stack: [unknown, number][] = [[args, 0]];
  let values = 0;
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (++values > MAX_ARGUMENT_VALUES) return `more than ${MAX_ARGUMENT_VALUES} values in all`;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= MAX_ARGUMENT_DEPTH) return `nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return undefined;
}

type RE2Class = typeof import('re2js').RE2JS;

/**
 * An ajv RegExp engine (its `code.regExp` option; the interpreted validator runs spec patterns
 * on it too) on RE2JS, which matches in time linear in the input whatever the pattern. RE2
 * has no lookaround or backreferences; a pattern that
 * needs them is not checked here (the upstream still validates), rather than run on a
 * backtracking engine. JSON Schema `pattern` is an unanchored search, as RE2JS `test` is.
 */
export function linearRegExpEngine(RE2JS: RE2Class, onUnsupported: (pattern: string, reason: string) => void): RegExpEngine {
  const engine = (pattern: string) => {
    try {
      const compiled = RE2JS.compile(pattern);
      return { test: (input: string) => compiled.test(input), toString: () => `re2:${pattern}` };
    } catch (error) {
      onUnsupported(pattern, (error as Error).message);
      return { test: () => true, toString: () => `unchecked:${pattern}` };
    }
  };
  // ajv reads `code` only when it writes standalone code, which this server never does
  return Object.assign(engine, { code: 're2js' });
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`: one pass, strings skipped at
 * native speed. Run before JSON.parse, whose cost (and, for the generator, the recursive
 * walks after it) grows with the nesting.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // whitespace first: half of a pretty-printed spec (GitHub's: 6.3 M of 13 M characters)
    if (c < 0x22) continue;
    if (c === 0x22) {
      // a string: jump to its closing quote (one not escaped by an odd run of backslashes)
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(close - 1 - slashes) === 0x5c) slashes++;
        i = close;
        if (slashes % 2 === 0) break;
      }
    } else if ((c | 0x20) === 0x7b) {
      // `[` or `{`
      if (++depth > max) return true;
    } else if ((c | 0x20) === 0x7d) depth--; // `]` or `}`
  }
  return false;
}

/**
 * Above this, tools/list is paginated (MCP `cursor`/`nextCursor`): one message of a whole
 * large API listed in full (`--tools direct --client-profile full` on Microsoft Graph: 13.8 MiB)
 * is more than clients read at once (the SDK's stdio client stops at 10 MiB). Below it, as
 * almost always, one page, since some clients never ask for a second.
 */
export const LIST_PAGE_BYTES = 8 * 1024 * 1024;

/** Where each page of the listing starts, so that no page is over `maxBytes` (a tool alone may be). */
export function pageStarts(tools: readonly unknown[], maxBytes = LIST_PAGE_BYTES): number[] {
  const starts = [0];
  let bytes = 0;
  tools.forEach((tool, i) => {
    const size = Buffer.byteLength(JSON.stringify(tool)) + 1;
    if (bytes + size > maxBytes && i > (starts.at(-1) as number)) {
      starts.push(i);
      bytes = 0;
    }
    bytes += size;
  });
  return starts;
}
