// The upstream's answer as what goes back to the client: the structuredContent a tool promised,
// a resources/read refusal, and every text without the credentials in use.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RequestCredentials } from '../request/credentials.js';
import { advertisedStructure, plainStructure, type OutputCheck, type Structurer } from '../../mcp/output.js';
import { errorExcerpt, type UpstreamAnswer, type UpstreamRefusal } from './response.js';
import type { ToolSpec, ToolTable } from '../../../contract/table.js';
import { redact } from '../send/upstream.js';

/**
 * How a good answer is structured: as the tool's outputSchema promises, when the client was
 * shown it (`advertised`) and the spec documents one; else as it comes.
 */
export function structureFor(tool: ToolSpec, advertised: boolean, check: (tool: ToolSpec) => OutputCheck): Structurer {
  if (!advertised || !tool.output) return plainStructure;
  return advertisedStructure(tool.output, () => check(tool));
}

/**
 * Takes every credential in use out of what goes back: the HTTP client and the upstream may
 * quote what was sent. `more`: the call's other secrets (a token exchanged for its caller).
 */
export interface Redactor {
  text(text: string, credentials: RequestCredentials, more?: readonly string[]): string;
  /** The result with its texts redacted. */
  result(result: CallToolResult, credentials: RequestCredentials, more?: readonly string[]): CallToolResult;
}

/** The secrets of the table's schemes (from `env`) and the static headers, plus each call's own credentials and secrets. */
export function createRedactor(table: ToolTable, env: NodeJS.ProcessEnv, staticHeaders: [string, string][]): Redactor {
  const configured = Object.values(table.auth)
    .flatMap((scheme) => Object.values(scheme.env) as string[])
    .map((variable) => env[variable])
    .filter((value): value is string => value !== undefined && value !== '')
    .concat(staticHeaders.map(([, value]) => value));
  const text = (text: string, credentials: RequestCredentials, more: readonly string[] = []) =>
    redact(text, [...configured, ...credentials.values(), ...more]);
  return {
    text,
    result: (result, credentials, more) => ({
      ...result,
      content: result.content.map((item) => (item.type === 'text' ? { ...item, text: text(item.text, credentials, more) } : item)),
    }),
  };
}

/** An error answer as resources/read reports it: status, the request, and a bounded excerpt already redacted. */
export function refusal(answer: UpstreamAnswer, redacted: (text: string) => string): UpstreamRefusal {
  const { status, statusText, label } = answer;
  return { status, statusText, label, excerpt: redacted(errorExcerpt(answer)) };
}
