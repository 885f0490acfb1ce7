// What a spec that cannot be read is told: one line that names the place (file:line:column for
// syntax, the $ref for a broken reference, a JSON pointer for content), in the words of the
// format the user wrote, never a parser's stack or its internal phrasing.

import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { SpecError } from '../errors.js';
import { isObject } from './pointer.js';

const isUrl = (s: string) => /^https?:\/\//i.test(s);
export const SUPPORTED = 'mcp-gen reads Swagger 2.0 and OpenAPI 3.0.x / 3.1.x / 3.2.x';

/** A folder given where a spec file belongs: named, with the spec files it holds, if any. */
export function folderError(source: string): SpecError | undefined {
  if (isUrl(source)) return undefined;
  try {
    if (!statSync(source).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const candidates = ['openapi.yaml', 'openapi.yml', 'openapi.json', 'swagger.yaml', 'swagger.yml', 'swagger.json'].filter((name) => {
    try {
      return statSync(resolvePath(source, name)).isFile();
    } catch {
      return false;
    }
  });
  const hint =
    candidates.length > 0
      ? `: did you mean ${candidates.map((c) => `${source.replace(/\/$/, '')}/${c}`).join(' or ')}?`
      : ': give the path of the OpenAPI document (YAML or JSON) inside it';
  return new SpecError(`is a folder, not a spec file${hint}`, source);
}

/** A parsed document that is no OpenAPI document at all: what it lacks, said plainly. */
export function notOpenApiError(root: unknown, source: string): SpecError | undefined {
  if (!isObject(root)) {
    const found = Array.isArray(root) ? 'a list' : root === null ? 'null' : `a ${typeof root}`;
    return new SpecError(
      `not an OpenAPI document: its top level is ${found}, not an object with "openapi" (or "swagger"), "info" and "paths"`,
      source,
    );
  }
  if (typeof root.openapi === 'string' && root.paths === undefined && root.webhooks === undefined) {
    const needs = root.openapi.startsWith('3.0')
      ? 'an OpenAPI 3.0 document needs one'
      : `an OpenAPI ${root.openapi.startsWith('3.2') ? '3.2' : '3.1'} document needs "paths" or "webhooks"`;
    return new SpecError(`no "paths" object: ${needs}`, source + '#/paths');
  }
  if (root.openapi !== undefined || root.swagger !== undefined) return undefined;
  const keys = Object.keys(root);
  const found =
    keys.length === 0
      ? 'it is empty'
      : `its top-level keys are ${keys
          .slice(0, 5)
          .map((k) => JSON.stringify(k))
          .join(', ')}${keys.length > 5 ? ', …' : ''}`;
  return new SpecError(`not an OpenAPI document: no "openapi" or "swagger" version field (${found})`, source + '#/');
}
/** The number a spec wrote as its version (`swagger: 1.2`), read back from the file for the message. */
function declaredNumber(source: string, field: string): string | undefined {
  if (isUrl(source)) return undefined;
  try {
    const head = readFileSync(source, 'utf8').slice(0, 4_096);
    return new RegExp(`^\\s*"?${field}"?\\s*:\\s*([0-9.]+)`, 'm').exec(head)?.[1];
  } catch {
    return undefined;
  }
}

/** One line that names the place: file:line:column for syntax errors, the $ref for broken refs. */
export function toSpecError(error: unknown, source: string): SpecError {
  const e = error as { name?: string; message?: string; targetRef?: string; code?: string };
  const message = String(e?.message ?? error);
  if ((error instanceof RangeError || e?.name === 'RangeError') && /call stack/i.test(message)) {
    // swagger-parser follows external $refs recursively: thousands, one inside another, overflow it
    return new SpecError('its $refs nest too deeply to resolve (references one inside another, thousands deep)', source);
  }
  if (e?.name === 'MissingPointerError') {
    const ref = e.targetRef ?? /"(#[^"]*)"/.exec(message)?.[1] ?? '?';
    return new SpecError(`$ref ${JSON.stringify(ref)} points to nothing`, source);
  }
  if (e?.name === 'ParserError') {
    const json = jsonSyntaxError(source);
    if (json) return json;
    const firstLine = message.split('\n')[0] ?? message;
    const at = /\((\d+):(\d+)\)\s*$/.exec(firstLine);
    const what = firstLine.replace(/^Error parsing [^:]*: /, '').replace(/\s*\(\d+:\d+\)\s*$/, '');
    return new SpecError(`invalid YAML/JSON: ${what}`, at ? `${source}:${at[1]}:${at[2]}` : source);
  }
  if (e?.name === 'ResolverError') {
    const firstLine = message.split('\n')[0] ?? message;
    if (/ENOENT/.test(firstLine)) {
      const file = /Error opening file (.*?):/.exec(firstLine)?.[1];
      const missing = file !== undefined && !isUrl(source) && resolvePath(file) !== resolvePath(source);
      return new SpecError(missing ? `referenced file not found: ${file}` : 'file not found', source);
    }
    return new SpecError(firstLine.replace(/^Error (downloading|opening file) /, 'cannot read '), source);
  }
  // swagger-parser checks the version field before anything else; say it our way, with the place.
  const supported = SUPPORTED;
  let m: RegExpExecArray | null;
  if (/is not a valid (Openapi|Swagger) API definition/i.test(message)) {
    // swagger-parser's words for a document without "paths" (or, in 3.1, "webhooks")
    return new SpecError('no "paths" object: an OpenAPI document needs "paths" (3.1: or "webhooks")', source + '#/paths');
  }
  if (/^Unsupported OpenAPI version: undefined\b/i.test(message)) {
    return new SpecError('no "openapi" or "swagger" version field: not an OpenAPI document', source + '#/');
  }
  if ((m = /^Unsupported OpenAPI version: (.+?)\. /.exec(message))) {
    return new SpecError(`unsupported version "${m[1]}": ${supported}`, source + '#/openapi');
  }
  if ((m = /^Unrecognized Swagger version: (.+?)\. /.exec(message))) {
    return new SpecError(`unsupported version "${m[1]}": ${supported}`, source + '#/swagger');
  }
  if ((m = /^(Swagger|Openapi) version number must be a string/.exec(message))) {
    const field = (m[1] as string).toLowerCase();
    const given = declaredNumber(source, field);
    return new SpecError(
      `unsupported version${given ? ` ${given}` : ''}: "${field}" must be a string such as "${field === 'swagger' ? '2.0' : '3.1.0'}"; ${supported}`,
      source + '#/' + field,
    );
  }
  const remote = /^Unable to resolve \$ref pointer "(https?:[^"]*)"/.exec(message);
  if (remote) return new SpecError(`$ref to a URL not followed: ${remote[1]} (pass --allow-remote-refs to fetch it)`, source);
  return new SpecError((message.split('\n')[0] ?? message).slice(0, 300), source);
}

/**
 * A file that reads as JSON (it starts with `{` or `[`) but does not parse: JSON's own words and
 * the line and column of the fault, rather than the YAML parser's, which swagger-parser tries last.
 */
function jsonSyntaxError(source: string): SpecError | undefined {
  if (isUrl(source)) return undefined;
  let text: string;
  try {
    if (statSync(source).size > MAX_TEXT_BYTES) return undefined;
    text = readFileSync(source, 'utf8');
  } catch {
    return undefined;
  }
  if (!/^\uFEFF?\s*[[{]/.test(text)) return undefined;
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : text.length;
    const endedEarly = /Unexpected end of JSON input/.test(message) || offset >= text.trimEnd().length;
    const what = endedEarly
      ? 'it ends before its last object or list is closed (cut short?)'
      : message
          .replace(/\s*\(line \d+ column \d+\)/, '')
          .replace(/ in JSON at position \d+/, '')
          .replace(/^./, (c) => c.toLowerCase());
    return new SpecError(`invalid JSON: ${what}`, `${source}:${lineColumn(text, endedEarly ? text.trimEnd().length : offset)}`);
  }
}

const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** 1-based `line:column` of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}
