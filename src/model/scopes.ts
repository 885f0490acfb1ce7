// OAuth scopes per tool, for a server that runs as an OAuth resource server: the config file's
// `scopes` rules, first match winning, written into each tool of the table as data. A tool no
// rule matches gets no `scopes`, and the runtime asks for its read or write scope by the tool's
// readOnlyHint; so a project without rules has the tool table it had before rules existed.

import type { ScopeRule } from './model-options.js';
import { ruleMatches, type OperationRef } from './rules.js';
import { warning, type GenerationWarning } from '../warnings.js';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export const isScopeToken = (text: string): boolean => SCOPE_TOKEN.test(text);

/** What a scope rule sees of a tool: its operation, and its toolset once assigned. */
export type ScopeFacts = Pick<OperationRef, 'method' | 'path' | 'operationId' | 'tags'> & { toolset: string };

/** Every criterion the rule gives matches (rules.ts for methods, paths, tags and operations; toolsets by exact name). */
export function scopeRuleMatches(rule: ScopeRule, facts: ScopeFacts): boolean {
  return ruleMatches(rule, facts, 'all') && (rule.toolsets === undefined || rule.toolsets.includes(facts.toolset));
}

/** Which rules have matched a tool so far, and which have been the first to match one. */
export interface ScopeRuleUse {
  matched: Set<number>;
  won: Set<number>;
}

/**
 * The scopes of the first rule that matches (once each, in the rule's order), or undefined when
 * none does; `use` notes every rule that matched, for unusedScopeRules.
 */
export function scopesFor(rules: readonly ScopeRule[], facts: ScopeFacts, use?: ScopeRuleUse): string[] | undefined {
  let first: ScopeRule | undefined;
  for (const [i, rule] of rules.entries()) {
    if (!scopeRuleMatches(rule, facts)) continue;
    use?.matched.add(i);
    if (first) continue;
    first = rule;
    use?.won.add(i);
  }
  return first && [...new Set(first.scopes)];
}

/** An `unused-scope-rule` warning for each rule that set no tool's scopes, saying why. */
export function unusedScopeRules(
  rules: readonly ScopeRule[],
  use: ScopeRuleUse,
  placeOf: (i: number) => string = (i) => `config "scopes"[${i}]`,
): GenerationWarning[] {
  return rules.flatMap((_rule, i) => {
    if (use.won.has(i)) return [];
    const why = use.matched.has(i) ? 'every tool it matches is matched by an earlier rule first (first match wins)' : 'it matches no tool';
    return [warning('unused-scope-rule', `${placeOf(i)} sets no tool's scopes: ${why}`)];
  });
}
