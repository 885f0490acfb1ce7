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
  return withoutForms(text, sentForms(secrets));
}

/** The text with URL userinfo and each of `forms` (sentForms) taken out. */
function withoutForms(text: string, forms: readonly string[]): string {
  let out = text.replace(USERINFO, '$1***@');
  for (const form of forms) if (out.includes(form)) out = out.split(form).join('***');
  return out;
}

/**
 * Whether a JSON value may hold userinfo or one of `forms`, read on its JSON text: a string
 * holding a form holds it JSON-escaped there, and userinfo still matches once escaped. Most
 * answers hold none, and are then returned as they are rather than copied string by string.
 */
function mayHoldAny(value: unknown, forms: readonly string[]): boolean {
  const json = JSON.stringify(value);
  USERINFO.lastIndex = 0;
  if (USERINFO.test(json)) return true;
  return forms.some((form) => json.includes(JSON.stringify(form).slice(1, -1)));
}

/**
 * Each secret as the request carried it, for an upstream that quotes the request: as it is,
 * percent-encoded (a query or cookie credential, request.ts's encodeValue, and
 * encodeURIComponent's lighter form) and base64 (HTTP basic's `user:password`, RFC 7617);
 * longest first, so that a form containing another is taken out whole.
 */
function sentForms(secrets: Iterable<string>): string[] {
  const given = [...secrets];
  const key = JSON.stringify(given); // unambiguous: a join could make two sets one key
  let forms = formsBySecrets.get(key);
  if (forms === undefined) {
    if (formsBySecrets.size >= MAX_REMEMBERED_FORMS) formsBySecrets.clear();
    formsBySecrets.set(key, (forms = formsOf(given)));
  }
  return forms;
}

/**
 * The forms of the secret sets seen lately: a server's calls carry the same few (its own
 * credentials, and each caller's token), and working them out again took ~5 % of a call's own
 * CPU. Bounded, as each caller brings its own set.
 */
const formsBySecrets = new Map<string, string[]>();
const MAX_REMEMBERED_FORMS = 256;

function formsOf(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    const encoded = encodeURIComponent(secret);
    forms
      .add(secret)
      .add(encoded)
      .add(encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
    forms.add(Buffer.from(secret, 'utf8').toString('base64'));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Every string of a JSON value (keys too) through `clear`. */
function clearedValue(value: unknown, clear: (text: string) => string): unknown {
  if (typeof value === 'string') return clear(value);
  if (Array.isArray(value)) return value.map((item) => clearedValue(item, clear));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [clear(key), clearedValue(item, clear)]));
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
    .concat(basicPairs(table, env))
    .filter((value): value is string => value !== undefined && value !== '')
    .concat(staticHeaders.map(([, value]) => value));
  const text = (text: string, credentials: RequestCredentials, more: readonly string[] = []) =>
    redact(text, [...configured, ...credentials.values(), ...more]);
  return {
    text,
    result: (result, credentials, more = []) => {
      // the forms made once per result, not once per string of it
      const forms = sentForms([...configured, ...credentials.values(), ...more]);
      const clear = (value: string) => withoutForms(value, forms);
      const cleared: CallToolResult = {
        ...result,
        content: result.content.map((item) => (item.type === 'text' ? { ...item, text: clear(item.text) } : item)),
      };
      if (result.structuredContent !== undefined && mayHoldAny(result.structuredContent, forms))
        cleared.structuredContent = clearedValue(result.structuredContent, clear) as Record<string, unknown>;
      return cleared;
    },
  };
}

/** `user:password` of each HTTP basic scheme whose variables are set: what the Authorization header carries, base64-encoded. */
function basicPairs(table: ToolTable, env: NodeJS.ProcessEnv): string[] {
  return Object.values(table.auth).flatMap((scheme) => {
    if (scheme.type !== 'basic') return [];
    const user = env[scheme.env.username];
    const password = env[scheme.env.password];
    return user || password ? [`${user ?? ''}:${password ?? ''}`] : [];
  });
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
