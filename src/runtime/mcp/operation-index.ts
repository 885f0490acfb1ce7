// Dynamic mode for large APIs: instead of one tool per operation (a tools/list of hundreds of
// KB drowns an agent), three meta-tools let the agent search the operations, read one's
// full input schema, and invoke it. Arguments are checked against the same schema as in
// direct mode, so errors still name the argument.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Invoke } from '../confirm/confirm.js';
import { toolError } from './output.js';
import { DESCRIBE, INVOKE, QUERY_MAX_CHARS, QUERY_MAX_WORDS, SEARCH } from '../../contract/meta-tools.js';
import type { ListedTool } from '../../contract/profiles.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../contract/table.js';

/** Words, lower-cased, camelCase split, plurals folded (`Repositories` → `repository`). */
const tokenize = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1)
    .map((t) =>
      t.length > 4 && t.endsWith('ies') ? t.slice(0, -3) + 'y' : t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t,
    );

/**
 * Words for the caller, as a query says it and as APIs name it (Spotify's `/me/playlists`,
 * GitHub's "for the authenticated user", `/users/self`): each counts as `me`, so "my playlists"
 * finds GET /me/playlists. The pairs are phrases whose two words, side by side, add `me`.
 */
const CALLER = 'me';
const CALLER_WORDS = new Set(['my', 'mine', 'myself', 'self', 'own']);
const CALLER_PHRASES = new Set(['current user', 'authenticated user', 'signed in', 'logged in']);

/** `words` (from tokenize) with the caller's words as `me`. */
function withCaller(words: string[]): string[] {
  const folded = words.map((word) => (CALLER_WORDS.has(word) ? CALLER : word));
  const phrase = words.some((word, i) => i > 0 && CALLER_PHRASES.has(`${words[i - 1]} ${word}`));
  return phrase ? [...folded, CALLER] : folded;
}

/** The words an operation's text is indexed by, and a query looked up by. */
const wordsOf = (text: string): string[] => withCaller(tokenize(text));

/** The distinct words of a query, or why it is not searched: the cost of a search is bounded by these limits. */
export function queryWords(query: string): string[] | { problem: string } {
  if (query.length > QUERY_MAX_CHARS)
    return { problem: `argument "query" is ${query.length} characters long; at most ${QUERY_MAX_CHARS} are searched` };
  const words = tokenize(query);
  const distinct = new Set(words).size;
  if (distinct > QUERY_MAX_WORDS)
    return { problem: `argument "query" has ${distinct} distinct words; at most ${QUERY_MAX_WORDS} are searched, use fewer` };
  // The caller's words are counted as said: a phrase's added `me` does not reach the limit.
  return [...new Set(withCaller(words))];
}

/** How well a word matches an operation: in its name, path or tags; its summary; its description. */
const STRONG = 3;
const TITLE = 2;
const WEAK = 1;
/** A word that is a prefix of a name/path/tag word, or has one as its prefix (`repo` ~ `repository`). */
const PREFIX = 1;

/**
 * Operations by the words they contain, built once per table: a search looks up each query
 * word (never scans every operation's text per word), so its cost is the words' postings.
 */
export class OperationIndex {
  private readonly tools: ToolSpec[];
  private readonly tags: Set<string>[];
  private readonly titleSizes: number[];
  /** word → operation index → the best weight of that word in it. */
  private readonly postings = new Map<string, Map<number, number>>();
  /** word → operations whose summary has it. */
  private readonly titled = new Map<string, number[]>();
  /** The distinct name/path/tag words, sorted, for prefix matches. */
  private readonly strongWords: string[];
  private readonly longestStrong: number;

  constructor(tools: ToolSpec[]) {
    this.tools = tools;
    this.tags = tools.map((t) => new Set((t.tags ?? []).map((tag) => tag.toLowerCase())));
    const strong = new Set<string>();
    this.titleSizes = tools.map((tool, i) => {
      const title = new Set(wordsOf(tool.title ?? ''));
      for (const word of title) (this.titled.get(word) ?? this.titled.set(word, []).get(word))?.push(i);
      const named = [...wordsOf(tool.name), ...wordsOf(tool.http.path), ...(tool.tags ?? []).flatMap(wordsOf)];
      for (const word of named) strong.add(word);
      this.post(named, i, STRONG);
      this.post(title, i, TITLE);
      this.post(wordsOf(tool.description.slice(0, 400)), i, WEAK);
      return title.size;
    });
    this.strongWords = [...strong].sort();
    this.longestStrong = this.strongWords.reduce((n, w) => Math.max(n, w.length), 0);
  }

  private post(words: Iterable<string>, tool: number, weight: number): void {
    for (const word of words) {
      const posting = this.postings.get(word) ?? this.postings.set(word, new Map()).get(word);
      if ((posting?.get(tool) ?? 0) < weight) posting?.set(tool, weight);
    }
  }

  /** Name/path/tag words that start with `word`, and those `word` starts with. */
  private prefixRelatives(word: string): string[] {
    const related: string[] = [];
    let low = 0;
    let high = this.strongWords.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.strongWords[mid] as string) < word) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.strongWords.length && (this.strongWords[i] as string).startsWith(word); i++)
      related.push(this.strongWords[i] as string);
    for (let n = 2; n < Math.min(word.length, this.longestStrong + 1); n++) related.push(word.slice(0, n));
    return related;
  }

  /** Operations for words from queryWords(), best first, among those `visible` to the caller. */
  search(words: string[], tag: string | undefined, limit: number, visible: (tool: ToolSpec) => boolean = () => true): ToolSpec[] {
    const wanted = tag?.toLowerCase();
    const allowed = (i: number) =>
      (wanted === undefined || (this.tags[i] as Set<string>).has(wanted)) && visible(this.tools[i] as ToolSpec);
    const scores = new Map<number, number>();
    for (const word of words) {
      const exact = this.postings.get(word);
      for (const [i, weight] of exact ?? []) if (allowed(i)) scores.set(i, (scores.get(i) ?? 0) + weight);
      const near = new Set<number>();
      for (const relative of this.prefixRelatives(word))
        for (const [i, weight] of this.postings.get(relative) ?? []) if (weight === STRONG && !exact?.has(i) && allowed(i)) near.add(i);
      for (const i of near) scores.set(i, (scores.get(i) ?? 0) + PREFIX);
      // A summary that says just what was asked ("Get a repository") beats one that merely mentions it.
      for (const i of this.titled.get(word) ?? [])
        if (allowed(i)) scores.set(i, (scores.get(i) ?? 0) + STRONG / (this.titleSizes[i] as number));
    }
    const scored =
      words.length === 0
        ? this.tools
            .map((_, i) => i)
            .filter(allowed)
            .map((i) => ({ i, score: 0 }))
        : [...scores].map(([i, score]) => ({ i, score }));
    const byName = (a: number, b: number) => ((this.tools[a] as ToolSpec).name < (this.tools[b] as ToolSpec).name ? -1 : 1);
    scored.sort((a, b) => b.score - a.score || byName(a.i, b.i));
    return scored.slice(0, limit).map((s) => this.tools[s.i] as ToolSpec);
  }
}

function searchResult(found: ToolSpec[]): CallToolResult {
  const results = found.map((t) => ({
    name: t.name,
    operation: `${t.http.method} ${t.http.path}`,
    summary: (t.title ?? t.description.split('\n')[0] ?? '').slice(0, 200),
    ...(t.tags?.length ? { tags: t.tags } : {}),
  }));
  const text = results.length
    ? results.map((r) => `${r.name} — ${r.operation} — ${r.summary}`).join('\n')
    : 'No operation matches; try other words or no tag.';
  return { content: [{ type: 'text', text }], structuredContent: { results } };
}

export function describeResult(tool: ToolSpec, inputSchema: JsonSchema): CallToolResult {
  const described = {
    name: tool.name,
    operation: `${tool.http.method} ${tool.http.path}`,
    description: tool.description,
    inputSchema,
    annotations: tool.annotations,
  };
  return { content: [{ type: 'text', text: JSON.stringify(described) }], structuredContent: described };
}

/** What a meta-tool call needs from the server around it. */
export interface MetaContext {
  table: ToolTable;
  byName: ReadonlyMap<string, ToolSpec>;
  /** The operation's input schema as describe_operation shows it. */
  inputSchema(tool: ToolSpec): JsonSchema;
  /** Checks arguments against a schema with the executor's validator: why they do not fit, or undefined. */
  checkArguments(schema: JsonSchema, args: Record<string, unknown>): Promise<string | undefined>;
  /** Calls an operation for invoke_operation (its outputSchema is not advertised there), or for a code-mode program. */
  invoke: Invoke;
  /** Whether the caller may see and call an operation (its token's scopes); the others are as if absent. */
  visible(tool: ToolSpec): boolean;
  /** The search index, built on first use. */
  index(): OperationIndex;
}

/**
 * A call of search_operations, describe_operation or invoke_operation (`meta`, one of
 * metaTools()). Its arguments are checked (checks.ts) against the meta-tool's own schema, as
 * every tool's are.
 */
export async function callMetaTool(meta: ListedTool, given: Record<string, unknown>, ctx: MetaContext): Promise<CallToolResult> {
  const { name } = meta;
  // Strict profiles list every property and send null for the ones not meant; absent is what they mean.
  const args = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null));
  // Profiles that cannot list a free-form object (openai-strict, gemini) ask for the operation's arguments as JSON text.
  if (name === INVOKE && typeof args.arguments === 'string') {
    try {
      args.arguments = JSON.parse(args.arguments) as unknown;
    } catch {
      return toolError(`Invalid arguments for ${INVOKE}: argument "arguments" is text but not JSON`);
    }
  }
  // Checked before the schema, so that an oversized query costs no more than its length.
  const words = name === SEARCH && typeof args.query === 'string' ? queryWords(args.query) : [];
  if (!Array.isArray(words)) return toolError(`Invalid arguments for ${SEARCH}: ${words.problem}`);
  const problem = await ctx.checkArguments(meta.inputSchema as JsonSchema, args);
  if (problem) return toolError(`Invalid arguments for ${name}: ${problem}`);
  if (name === SEARCH) {
    return searchResult(ctx.index().search(words, args.tag as string | undefined, (args.limit as number | undefined) ?? 10, ctx.visible));
  }
  const operation = ctx.byName.get(args.name as string);
  if (!operation || !ctx.visible(operation)) return toolError(`No operation named ${JSON.stringify(args.name)}; find names with ${SEARCH}`);
  if (name === DESCRIBE) return describeResult(operation, ctx.inputSchema(operation));
  return ctx.invoke(operation, (args.arguments ?? {}) as Record<string, unknown>);
}
