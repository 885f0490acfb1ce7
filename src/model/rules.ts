// Rules that name operations: the selection flags (--include-paths …), the config file's route
// and toolset rules, and --direct-tools all pick operations by method, path, tag and
// operationId, with the same globs. One matcher, so that a glob means the same everywhere.

import type { JsonObject } from '../parse/pointer.js';

/** An operation as rules and overrides see it. */
export interface OperationRef {
  method: string;
  path: string;
  operationId?: string;
  tags: string[];
  op: JsonObject;
  item: JsonObject;
  doc: JsonObject;
}

/** What a rule can ask of an operation; each criterion given matches when any of its values does. */
export interface OperationCriteria {
  /** HTTP methods, any case. */
  methods?: string[];
  /** Globs over path templates, e.g. `/repos/**`. */
  paths?: string[];
  tags?: string[];
  /** Globs over operationIds. */
  operations?: string[];
}

/** `*` matches within one `/`-separated part, `**` across parts, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** True when one of `globs` matches `value`; a missing value (no operationId) matches none. */
export function globsMatch(globs: readonly string[], value: string | undefined): boolean {
  return value !== undefined && globs.some((g) => globToRegExp(g).test(value));
}

type Criterion = keyof OperationCriteria;
type Facts = Pick<OperationRef, 'method' | 'path' | 'operationId' | 'tags'>;

const CRITERIA: Record<Criterion, (values: string[], ref: Facts) => boolean> = {
  methods: (values, ref) => values.some((m) => m.toUpperCase() === ref.method.toUpperCase()),
  paths: (values, ref) => globsMatch(values, ref.path),
  tags: (values, ref) => values.some((t) => ref.tags.includes(t)),
  operations: (values, ref) => globsMatch(values, ref.operationId),
};

/**
 * Whether `rule` picks the operation: `all` of the criteria it gives must match (route rules:
 * a rule with none matches every operation), or `any` of them (toolset rules: one with none
 * matches nothing).
 */
export function ruleMatches(rule: OperationCriteria, ref: Facts, combine: 'all' | 'any'): boolean {
  const given = (Object.keys(CRITERIA) as Criterion[]).filter((c) => rule[c] !== undefined);
  const matches = (c: Criterion) => CRITERIA[c](rule[c] as string[], ref);
  return combine === 'all' ? given.every(matches) : given.some(matches);
}
