// Tag Objects (OAS 3.2.0): a tag's `parent` nests its toolset in the parent's, and its
// `kind` says whether it is for navigation at all (`nav`, or none given) or a badge, an audience…

import { asArray, isObject, type JsonObject } from '../parse/pointer.js';
import type { ToolSpec } from '../contract/table.js';
import { toolsetOf, toolsetSlug } from '../contract/toolsets.js';

/** What the document's tags say, by tag name. */
export type TagFacts = Map<string, { parent?: string; kind?: string }>;

export function tagFacts(doc: JsonObject): TagFacts {
  const facts: TagFacts = new Map();
  for (const tag of asArray(doc.tags)) {
    if (!isObject(tag) || typeof tag.name !== 'string') continue;
    facts.set(tag.name, {
      ...(typeof tag.parent === 'string' ? { parent: tag.parent } : {}),
      ...(typeof tag.kind === 'string' ? { kind: tag.kind } : {}),
    });
  }
  return facts;
}

/** The operation's tags, those for navigation first: a `badge` or `audience` tag names a toolset only when nothing else does. */
export function navigationFirst(tags: string[], facts: TagFacts): string[] {
  const navigates = (tag: string) => (facts.get(tag)?.kind ?? 'nav') === 'nav';
  return [...tags.filter(navigates), ...tags.filter((tag) => !navigates(tag))];
}

/**
 * Toolset → the toolset it is nested in, for the tools' toolsets and their ancestors: a tag's
 * toolset is its slug, as defaultToolset names it. A loop, which OAS 3.2 forbids, is cut where it closes.
 */
export function toolsetParents(tools: ToolSpec[], facts: TagFacts): Record<string, string> | undefined {
  const bySlug = new Map([...facts].filter(([, f]) => f.parent !== undefined).map(([name, f]) => [toolsetSlug(name), f.parent as string]));
  const parents: Record<string, string> = {};
  for (const start of new Set(tools.map(toolsetOf))) {
    const seen = new Set([start]);
    for (let child = start, parent = bySlug.get(child); parent !== undefined; child = toolsetSlug(parent), parent = bySlug.get(child)) {
      const slug = toolsetSlug(parent);
      if (!slug || seen.has(slug)) break;
      parents[child] = slug;
      seen.add(slug);
    }
  }
  return Object.keys(parents).length ? parents : undefined;
}
