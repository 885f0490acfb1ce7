// An overlay document checked whole, as its version's JSON Schema and text say, before its first
// action applies: Overlay 1.0.0, 1.1.0 (`copy`, `info.description`) and 1.2.0 (`$self`, reusable
// actions in `components.actions` used by `$ref`, `extends` and `$self` without a fragment). Each
// object of the schema is closed but for `x-` extensions. Every problem is one SpecError whose
// `where` is the overlay file and the JSON pointer of the place (`#/actions/3/target`).

import { SpecError } from '../errors.js';
import { escapeToken, isObject, type Json, type JsonObject } from './pointer.js';
import { didYouMean } from '../contract/did-you-mean.js';
import type { OverlayAction } from './overlay-actions.js';
import { jsonPathProblem } from './overlay-path.js';

/** The versions whose actions mcp-gen applies; the patch number is not considered (Overlay 1.1.0 §Versions). */
const VERSION = /^1\.([012])\.\d+$/;
const INFO_FIELDS = ['title', 'version', 'description'];
/** Each version's fields, by the minor version that brought them. */
const ROOT_FIELDS: [string, number][] = [
  ['overlay', 0],
  ['info', 0],
  ['extends', 0],
  ['actions', 0],
  ['$self', 2],
  ['components', 2],
];
const ACTION_FIELDS: [string, number][] = [
  ['target', 0],
  ['description', 0],
  ['update', 0],
  ['remove', 0],
  ['copy', 1],
];
const REFERENCE_FIELDS: [string, number][] = [
  ['$ref', 2],
  ['target', 2],
  ['description', 2],
];
/** A Reusable Action Reference's `$ref`: a pointer below `#/components/actions/`, its key RFC 6901-escaped. */
const ACTION_REF = /^#\/components\/actions\/((?:[^~/]|~0|~1)+)$/;

type ActionFields = Omit<OverlayAction, 'target'>;

/** The overlay's actions, once the whole document is known to be a well-formed overlay. */
export function checkOverlay(overlay: unknown, source: string): OverlayAction[] {
  if (!isObject(overlay)) throw new SpecError('the overlay is not a JSON/YAML object', source);
  const minor = checkVersion(overlay, source);
  checkFields(overlay, ROOT_FIELDS, minor, source);
  checkInfo(overlay.info, `${source}#/info`);
  for (const field of ['extends', '$self']) checkDocumentUri(overlay[field], minor, `${source}#/${escapeToken(field)}`);
  const reusable = reusableActions(overlay.components, minor, `${source}#/components`);
  const actions = overlay.actions;
  if (!Array.isArray(actions) || actions.length === 0)
    throw new SpecError('"actions" must be a list of at least one action', `${source}#/actions`);
  const seen = new Map<string, number>();
  return actions.map((action, index) => {
    const where = `${source}#/actions/${index}`;
    const checked =
      isObject(action) && '$ref' in action ? referencedAction(action, reusable, minor, where) : checkAction(action, minor, where);
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
  checkFields(
    info,
    INFO_FIELDS.map((f) => [f, 0]),
    2,
    where,
  );
  for (const field of INFO_FIELDS) {
    const value = info[field];
    if (value === undefined && field !== 'description') throw new SpecError(`"info" needs a "${field}"`, where);
    if (value !== undefined && typeof value !== 'string') throw new SpecError(`"${field}" must be a string`, `${where}/${field}`);
  }
}

/** `extends` and `$self` name whole documents: URI references, and from 1.2 on without a fragment. Neither is read. */
function checkDocumentUri(value: Json | undefined, minor: number, where: string): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new SpecError('must be a URI reference (a string)', where);
  if (minor === 2 && value.includes('#')) throw new SpecError('names a whole document: Overlay 1.2 allows no "#" fragment here', where);
}

/** `components.actions` (1.2): each reusable action's fields, checked as an action without its target. */
function reusableActions(components: Json | undefined, minor: number, where: string): Map<string, ActionFields> {
  const found = new Map<string, ActionFields>();
  if (components === undefined) return found;
  if (!isObject(components)) throw new SpecError('"components" must be an object', where);
  checkFields(components, [['actions', 2]], minor, where);
  if (components.actions === undefined) return found;
  if (!isObject(components.actions)) throw new SpecError('"actions" must map names to reusable actions', `${where}/actions`);
  for (const [name, reusable] of Object.entries(components.actions)) {
    const at = `${where}/actions/${escapeToken(name)}`;
    if (!isObject(reusable)) throw new SpecError('a reusable action must be an object with "fields"', at);
    checkFields(
      reusable,
      [
        ['description', 2],
        ['fields', 2],
      ],
      minor,
      at,
    );
    if (reusable.description !== undefined && typeof reusable.description !== 'string')
      throw new SpecError('"description" must be a string', `${at}/description`);
    if (!isObject(reusable.fields ?? {})) throw new SpecError('"fields" must be an action object without a target', `${at}/fields`);
    found.set(name, checkFieldsOfAction((reusable.fields ?? {}) as JsonObject, minor, `${at}/fields`, false));
  }
  return found;
}

/** A Reusable Action Reference Object (1.2): the reusable action's fields at its own target. */
function referencedAction(reference: JsonObject, reusable: Map<string, ActionFields>, minor: number, where: string): OverlayAction {
  if (minor < 2) throw new SpecError(`a "$ref" to a reusable action is Overlay 1.2: this overlay declares 1.${minor}`, `${where}/$ref`);
  checkFields(reference, REFERENCE_FIELDS, minor, where);
  const { $ref, target, description } = reference;
  const key = typeof $ref === 'string' ? ACTION_REF.exec($ref)?.[1] : undefined;
  if (key === undefined) throw new SpecError('"$ref" must point into #/components/actions/', `${where}/$ref`);
  const fields = reusable.get(key.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (!fields) throw new SpecError(`"$ref" ${JSON.stringify($ref)} points to no reusable action`, `${where}/$ref`);
  if (description !== undefined && typeof description !== 'string')
    throw new SpecError('"description" must be a string', `${where}/description`);
  return { ...fields, target: checkTarget(target, where) };
}

function checkAction(action: Json, minor: number, where: string): OverlayAction {
  if (!isObject(action)) throw new SpecError('an action must be an object with a target', where);
  const fields = checkFieldsOfAction(action, minor, where, true);
  return { ...fields, target: checkTarget(action.target, where) };
}

function checkTarget(target: Json | undefined, where: string): string {
  if (typeof target !== 'string') throw new SpecError('the action has no "target" (an RFC 9535 JSONPath query, a string)', where);
  checkPath(target, 'target', where);
  return target;
}

/** An action's fields but its target (a reusable action's `fields` may not have one). */
function checkFieldsOfAction(action: JsonObject, minor: number, where: string, targeted: boolean): ActionFields {
  checkFields(action, targeted ? ACTION_FIELDS : ACTION_FIELDS.filter(([f]) => f !== 'target'), minor, where);
  const { description, update, copy, remove } = action;
  if (description !== undefined && typeof description !== 'string')
    throw new SpecError('"description" must be a string', `${where}/description`);
  if (remove !== undefined && typeof remove !== 'boolean') throw new SpecError('"remove" must be true or false', `${where}/remove`);
  if (copy !== undefined) {
    if (typeof copy !== 'string') throw new SpecError('"copy" must be an RFC 9535 JSONPath query (a string)', `${where}/copy`);
    checkPath(copy, 'copy', where);
    // Overlay 1.1 §Action Object gives each of update and copy no effect when the other is there: neither wins
    if ('update' in action && remove !== true) throw new SpecError('the action has both "update" and "copy": give one of them', where);
  }
  return { ...('update' in action ? { update: update as Json } : {}), ...(copy !== undefined ? { copy } : {}), remove: remove === true };
}

function checkPath(query: string, field: 'target' | 'copy', where: string): void {
  const problem = jsonPathProblem(query);
  if (problem) throw new SpecError(`"${field}" ${JSON.stringify(query)} ${problem}`, `${where}/${field}`);
}

/** Only the fields the declared version defines, and `x-` extensions; a later version's field says which version brought it. */
function checkFields(object: JsonObject, fields: [string, number][], minor: number, where: string): void {
  for (const key of Object.keys(object)) {
    if (key.startsWith('x-')) continue;
    const since = fields.find(([name]) => name === key)?.[1];
    if (since === undefined) {
      const known = fields.filter(([, v]) => v <= minor).map(([name]) => name);
      throw new SpecError(`"${key}" is not an overlay field${didYouMean(key, known, (f) => `"${f}"`)} (extensions start with "x-")`, where);
    }
    if (since > minor)
      throw new SpecError(`"${key}" is an Overlay 1.${since} field: this overlay declares 1.${minor} (say "overlay: 1.${since}.0")`, where);
  }
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
