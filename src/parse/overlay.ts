// OpenAPI Overlays (Overlay Specification 1.0.0, 1.1.0 and 1.2.0): ordered actions, each an
// RFC 9535 JSONPath `target` and an `update`, `copy` (1.1 on) or `remove`, applied to the spec
// as its author wrote it, before anything else reads it. An overlay is untrusted like a spec:
// read behind the same screening (sources.ts), checked whole before its first action applies,
// and never more than data (its JSONPath filters are screened by overlay-path.ts).

import { readFileSync, statSync } from 'node:fs';
import { extname, resolve as resolvePath } from 'node:path';
import { SpecError } from '../errors.js';
import type { GenerationWarning } from '../warnings.js';
import { isObject, type Json, type JsonObject } from './pointer.js';
import { MAX_SPEC_BYTES, SourceGuard } from './sources.js';
import { didYouMean } from '../contract/did-you-mean.js';
import { applyAction, type OverlayAction } from './overlay-actions.js';
import { jsonPathProblem } from './overlay-path.js';

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** The versions whose actions mcp-gen applies; the patch number is not considered (Overlay 1.1.0 §Versions). */
const VERSION = /^1\.([012])\.\d+$/;
const ROOT_FIELDS = ['overlay', 'info', 'extends', 'actions'];
const INFO_FIELDS = ['title', 'version', 'description'];
const ACTION_FIELDS = ['target', 'description', 'update', 'copy', 'remove'];

/** Applies each overlay in turn to `doc` (changed in place); a target that matches nothing is a warning. */
export async function applyOverlays(doc: JsonObject, sources: readonly string[], warnings: GenerationWarning[]): Promise<void> {
  for (const source of sources) {
    const actions = checkOverlay(await readOverlay(source), source);
    actions.forEach((action, index) => applyAction(doc, action, `${source}#/actions/${index}`, warnings));
  }
}

/** The overlay's text, parsed: a file, or a URL downloaded as a spec URL is (its own origin only, bounded, no internal redirects). */
async function readOverlay(source: string): Promise<unknown> {
  const guard = new SourceGuard({ source, allowRemoteRefs: false, allowRefDirs: [] });
  const as = extname(isUrl(source) ? new URL(source).pathname : source).toLowerCase() === '.json' ? 'json' : 'yaml';
  try {
    const data = isUrl(source) ? await guard.download(source) : readLocal(source);
    return await guard.parse({ url: source, data }, as);
  } catch (error) {
    if (guard.refused) throw new SpecError(inOverlayWords(guard.refused.message), source);
    if (error instanceof SpecError) throw error;
    // a syntax error: js-yaml's first line names the line and column
    throw new SpecError(`the overlay is not valid ${as === 'json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`, source);
  }
}

/** SourceGuard's refusal, said of an overlay: it has no $refs, and a redirect off its origin is never followed. */
const inOverlayWords = (message: string) =>
  message
    .replace(/^the document/, 'the overlay')
    .replace(/^\$ref to another origin not followed: .*$/, 'the overlay URL redirects to another origin, which is not followed');

function readLocal(source: string): Buffer {
  const path = resolvePath(source);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new SpecError('overlay file not found', source);
  }
  if (size > MAX_SPEC_BYTES) throw new SpecError(`the overlay is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`, source);
  return readFileSync(path);
}

/** The overlay's actions, once the whole document is known to be a well-formed overlay (its version's JSON Schema, and JSONPath). */
function checkOverlay(overlay: unknown, source: string): OverlayAction[] {
  if (!isObject(overlay)) throw new SpecError('the overlay is not a JSON/YAML object', source);
  const minor = checkVersion(overlay, source);
  checkFields(overlay, ROOT_FIELDS, source);
  checkInfo(overlay.info, `${source}#/info`);
  if (overlay.extends !== undefined && typeof overlay.extends !== 'string')
    throw new SpecError('"extends" must be a URI reference (a string)', `${source}#/extends`);
  const actions = overlay.actions;
  if (!Array.isArray(actions) || actions.length === 0)
    throw new SpecError('"actions" must be a list of at least one action', `${source}#/actions`);
  const seen = new Map<string, number>();
  return actions.map((action, index) => {
    const where = `${source}#/actions/${index}`;
    const checked = checkAction(action, minor, where);
    const key = canonical(action);
    const first = seen.get(key);
    if (first !== undefined) throw new SpecError(`action ${index} repeats action ${first} (actions must be unique)`, where);
    seen.set(key, index);
    return checked;
  });
}

/** The minor version (0, 1 or 2); anything else is not an overlay mcp-gen can apply faithfully. */
function checkVersion(overlay: JsonObject, source: string): number {
  const declared = overlay.overlay;
  if (declared === undefined) {
    const hint = overlay.openapi !== undefined || overlay.swagger !== undefined ? ': this is an OpenAPI document, not an overlay' : '';
    throw new SpecError(`no "overlay" version field${hint || ': not an Overlay document'}`, source);
  }
  const match = typeof declared === 'string' ? VERSION.exec(declared) : null;
  if (!match)
    throw new SpecError(
      `unsupported overlay version ${JSON.stringify(declared)}: mcp-gen applies Overlay 1.0.x, 1.1.x and 1.2.x`,
      `${source}#/overlay`,
    );
  return Number(match[1]);
}

function checkInfo(info: Json | undefined, where: string): void {
  if (!isObject(info)) throw new SpecError('"info" must be an object with a title and a version', where);
  checkFields(info, INFO_FIELDS, where);
  for (const field of INFO_FIELDS) {
    const value = info[field];
    if (value === undefined && field !== 'description') throw new SpecError(`"info" needs a "${field}"`, where);
    if (value !== undefined && typeof value !== 'string') throw new SpecError(`"${field}" must be a string`, `${where}/${field}`);
  }
}

function checkAction(action: Json, minor: number, where: string): OverlayAction {
  if (!isObject(action)) throw new SpecError('an action must be an object with a target', where);
  checkFields(action, ACTION_FIELDS, where);
  const { target, description, update, copy, remove } = action;
  if (typeof target !== 'string') throw new SpecError('the action has no "target" (an RFC 9535 JSONPath query, a string)', where);
  checkPath(target, 'target', where);
  if (description !== undefined && typeof description !== 'string')
    throw new SpecError('"description" must be a string', `${where}/description`);
  if (remove !== undefined && typeof remove !== 'boolean') throw new SpecError('"remove" must be true or false', `${where}/remove`);
  if (copy !== undefined) {
    if (minor === 0)
      throw new SpecError('"copy" is an Overlay 1.1 action: this overlay declares 1.0 (say "overlay: 1.1.0")', `${where}/copy`);
    if (typeof copy !== 'string') throw new SpecError('"copy" must be an RFC 9535 JSONPath query (a string)', `${where}/copy`);
    checkPath(copy, 'copy', where);
    // Overlay 1.1 §Action Object gives each of update and copy no effect when the other is there: neither wins
    if ('update' in action && remove !== true) throw new SpecError('the action has both "update" and "copy": give one of them', where);
  }
  return {
    target,
    ...('update' in action ? { update: update as Json } : {}),
    ...(copy !== undefined ? { copy } : {}),
    remove: remove === true,
  };
}

function checkPath(query: string, field: 'target' | 'copy', where: string): void {
  const problem = jsonPathProblem(query);
  if (problem) throw new SpecError(`"${field}" ${JSON.stringify(query)} ${problem}`, `${where}/${field}`);
}

/** Only the version's fixed fields and `x-` extensions (each object of the Overlay schema is closed). */
function checkFields(object: JsonObject, fields: readonly string[], where: string): void {
  const unknown = Object.keys(object).find((key) => !fields.includes(key) && !key.startsWith('x-'));
  if (unknown !== undefined)
    throw new SpecError(
      `"${unknown}" is not an overlay field${didYouMean(unknown, fields, (f) => `"${f}"`)} (extensions start with "x-")`,
      where,
    );
}

/** The JSON text of a value with its keys sorted: equal for equal values (JSON Schema's uniqueItems). */
function canonical(value: Json): string {
  return JSON.stringify(value, (_key, v: Json) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}
