// What a tool call returns, in one place: the tool-error helper, and the structuredContent of
// a good answer (wrapped as `{ result }` when the spec's answer is not an object, and checked
// against the outputSchema the tool advertises). response.ts reads the upstream answer into
// content plus its parsed JSON; this module decides what of that JSON is sent as structure.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { OutputSpec } from '../../contract/table.js';

/** A tool failure: a result with isError (MCP: tool errors are results, not JSON-RPC errors). */
export function toolError(text: string, ...more: CallToolResult['content']): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }, ...more] };
}

/** The parsed body, or one of these when there is no JSON to structure. */
export const NO_JSON = Symbol('no JSON body');
/** The body was empty, or cut by --max-response-bytes: nothing structured to offer. */
export const NOTHING = Symbol('empty or cut body');

export class StructureProblem {
  constructor(readonly reason: string) {}
}

/**
 * Decides the structuredContent for a successful answer from its parsed JSON (or NO_JSON,
 * NOTHING): the object to send, nothing, or a StructureProblem saying why the answer cannot
 * be sent as the tool promised.
 */
export type Structurer = (json: unknown) => Record<string, unknown> | undefined | StructureProblem;

/** Without an outputSchema: objects as they are, other JSON values wrapped. */
export const plainStructure: Structurer = (json) =>
  json === NO_JSON || json === NOTHING
    ? undefined
    : typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : { result: json };

/** A compiled outputSchema check: true when the value fits; `describe` says how it does not. */
export interface OutputCheck {
  (value: unknown): boolean;
  describe(): string;
}

/** structuredContent as the advertised outputSchema promises it, or why it cannot be. */
export function advertisedStructure(output: OutputSpec, check: () => OutputCheck): Structurer {
  return (json) => {
    if (json === NOTHING) return output.wrap ? { result: null } : {};
    if (json === NO_JSON) return new StructureProblem('the answer is not the JSON the spec documents');
    const structured = output.wrap ? { result: json } : json;
    if (typeof structured !== 'object' || structured === null || Array.isArray(structured)) {
      return new StructureProblem('the answer is not the JSON object the spec documents');
    }
    const fits = check();
    if (!fits(structured)) return new StructureProblem(`the answer does not match the spec's response schema (${fits.describe()})`);
    return structured as Record<string, unknown>;
  };
}
