// One overlay action applied to the document, as Overlay 1.1.0 §Action Object says: `remove`
// takes each selected node out of its object or array; `update` (or the node `copy` selects)
// merges into objects, is appended to arrays and replaces primitives. Values are copied in,
// never shared, so a later action that changes one place changes no other.

import { SpecError } from '../errors.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { isObject, type Json, type JsonObject } from './pointer.js';
import { select, type Selected } from './overlay-path.js';

export interface OverlayAction {
  target: string;
  /** Present when the action has an `update` field, whatever its value (null included). */
  update?: Json;
  copy?: string;
  remove: boolean;
}

type Kind = 'object' | 'array' | 'primitive';
const kindOf = (value: Json): Kind => (Array.isArray(value) ? 'array' : isObject(value) ? 'object' : 'primitive');
const KIND_WORDS: Record<Kind, string> = { object: 'an object', array: 'an array', primitive: 'a primitive value' };

/** Applies one action; `where` is the action in its overlay (`file#/actions/<index>`). */
export function applyAction(doc: JsonObject, action: OverlayAction, where: string, warnings: GenerationWarning[]): void {
  const targets = select(doc, action.target);
  if (targets.length === 0) {
    warnings.push(
      warning(
        'unmatched-overlay-target',
        `overlay action ${indexOf(where)}: target ${JSON.stringify(action.target)} matches nothing, so it changes nothing`,
        where,
      ),
    );
    return;
  }
  if (action.remove) return removeAll(doc, targets, where);
  if (action.copy !== undefined) updateAll(doc, targets, copied(doc, action.copy, where), 'copy', where);
  else if (action.update !== undefined) updateAll(doc, targets, action.update, 'update', where);
}

const indexOf = (where: string) => where.slice(where.lastIndexOf('/') + 1);

/** The one node `copy` selects, as a value of its own. */
function copied(doc: JsonObject, query: string, where: string): Json {
  const found = select(doc, query);
  if (found.length !== 1)
    throw new SpecError(`"copy" ${JSON.stringify(query)} selects ${found.length} nodes; it must select exactly one`, `${where}/copy`);
  return structuredClone(found[0]!.value);
}

/** Every selected node taken out of its object or array; array items from the last, so the indexes stay true. */
function removeAll(doc: JsonObject, targets: Selected[], where: string): void {
  const places = targets.map(({ path }) => {
    if (path.length === 0) throw new SpecError('"target" selects the whole document, which "remove" cannot take out of anything', where);
    return { parent: parentOf(doc, path), key: path[path.length - 1]! };
  });
  for (const { parent, key } of places) if (isObject(parent) && typeof key === 'string') delete parent[key];
  // an RFC 9535 nodelist may hold a node twice (`$.tags[0,0]`): each array item goes once
  const items = new Map<Json[], Set<number>>();
  for (const { parent, key } of places)
    if (Array.isArray(parent) && typeof key === 'number') items.set(parent, (items.get(parent) ?? new Set()).add(key));
  for (const [array, indexes] of items) for (const index of [...indexes].sort((a, b) => b - a)) array.splice(index, 1);
}

/** The value merged into objects, appended to arrays, or put in place of primitives: the selected nodes must be of one kind. */
function updateAll(doc: JsonObject, targets: Selected[], value: Json, field: 'update' | 'copy', where: string): void {
  const kinds = new Set(targets.map((t) => kindOf(t.value)));
  if (kinds.size > 1)
    throw new SpecError(
      `"target" selects ${[...kinds].map((k) => `${k}s`).join(' and ')} at once; an ${field} applies to one kind of node`,
      where,
    );
  const kind = [...kinds][0]!;
  const given = kindOf(value);
  if (kind === 'object' && given !== 'object')
    throw new SpecError(`"target" selects objects, so "${field}" must be an object (it is ${KIND_WORDS[given]})`, where);
  if (kind === 'primitive' && given !== 'primitive')
    throw new SpecError(`"target" selects primitive values, so "${field}" must be one (it is ${KIND_WORDS[given]})`, where);
  for (const { value: node, path } of targets) {
    if (kind === 'object') mergeInto(node as JsonObject, value as JsonObject, where, path.join('.'));
    else if (kind === 'array') (node as Json[]).push(...(Array.isArray(value) ? structuredClone(value) : [structuredClone(value)]));
    else setMember(parentOf(doc, path), path[path.length - 1]!, value);
  }
}

/**
 * The update's members merged into `target`, recursively: new members are added, primitives
 * replace primitives, arrays are concatenated, objects merged; other pairs are an error. A null
 * over an object or array leaves it as it is: the specification's own Structured Overlay Example
 * writes `components:` and `tags:` with no value to mirror the document's shape.
 */
function mergeInto(target: JsonObject, update: JsonObject, where: string, at: string): void {
  for (const [key, value] of Object.entries(update)) {
    const place = at ? `${at}.${key}` : key;
    if (!Object.prototype.hasOwnProperty.call(target, key)) {
      setMember(target, key, structuredClone(value));
      continue;
    }
    const existing = target[key]!;
    const [was, now] = [kindOf(existing), kindOf(value)];
    if (now === 'primitive' && was === 'primitive') setMember(target, key, value);
    else if (now === 'array' && was === 'array') (existing as Json[]).push(...structuredClone(value as Json[]));
    else if (now === 'object' && was === 'object') mergeInto(existing as JsonObject, value as JsonObject, where, place);
    else if (value !== null)
      throw new SpecError(
        `merging ${JSON.stringify(place)}: the spec has ${KIND_WORDS[was]} there and the overlay ${KIND_WORDS[now]}; remove it first to replace it`,
        where,
      );
  }
}

/** Sets a member as data, even one named `__proto__`: an overlay must not reach an object's prototype. */
function setMember(parent: Json, key: string | number, value: Json): void {
  if (Array.isArray(parent) && typeof key === 'number') parent[key] = value;
  else if (isObject(parent)) Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
}

function parentOf(doc: JsonObject, path: (string | number)[]): Json {
  let node: Json = doc;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, Json>)[key]!;
  return node;
}
