// Redaction, the one place: every text that leaves a call (a tool result, a resources/read
// refusal, a confirmation question, a token endpoint's error) is cleared of the credentials in use.

import { platform } from '../../start/platform.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RequestCredentials } from '../request/credentials.js';
import { namesASecret, type ToolTable } from '../../../contract/table.js';

/** `user:password@` in any URL of a text, which fetch quotes in its errors. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/**
 * Removes every credential value in use, and URL userinfo, from a text bound for a client or
 * a log. Values shorter than 4 characters are left: replacing them would mangle the text and
 * hide nothing.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let out = text.replace(USERINFO, '$1***@');
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
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

/** The secrets of the table's schemes and secret-named hidden arguments (from `env`) and the static headers, plus each call's own credentials and secrets. */
export function createRedactor(table: ToolTable, env: NodeJS.ProcessEnv, staticHeaders: [string, string][]): Redactor {
  const configured = Object.values(table.auth)
    .flatMap((scheme) => Object.values(scheme.env) as string[])
    .concat(secretArgumentVariables(table))
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

/** The variables hidden arguments are read from whose names say they hold secrets (`namesASecret`). */
function secretArgumentVariables(table: ToolTable): string[] {
  return table.tools.flatMap((tool) =>
    Object.values(tool.hidden ?? {}).flatMap((hidden) => ('env' in hidden && namesASecret(hidden.env) ? [hidden.env] : [])),
  );
}

const shared = new WeakMap<ToolTable, WeakMap<[string, string][], Redactor>>();

/**
 * The server's one redactor over the process environment: the executor's answers and the
 * confirmation questions (service.ts) are cleared by the same instance.
 */
export function serverRedactor(table: ToolTable, staticHeaders: [string, string][]): Redactor {
  const byHeaders = shared.get(table) ?? new WeakMap<[string, string][], Redactor>();
  shared.set(table, byHeaders);
  const redactor = byHeaders.get(staticHeaders) ?? createRedactor(table, platform().env, staticHeaders);
  byHeaders.set(staticHeaders, redactor);
  return redactor;
}
