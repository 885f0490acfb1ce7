// Tool and argument names. MCP tool names must match ^[A-Za-z0-9_-]{1,64}$ (and clients such
// as Claude apply the same rule); argument names must match ^[A-Za-z0-9_.-]{1,64}$.
// Names are derived from the spec alone, so the same spec always gives the same names.

import { createHash } from 'node:crypto';

export const MAX_NAME = 64;

/** Letters outside ASCII lose their accents (é → e) before anything else is replaced. */
function asciiFold(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Cuts a name to `max` characters, keeping it unique to its full text with a short hash. */
function fit(name: string, full: string, max: number): string {
  if (name.length <= max) return name;
  const hash = shortHash(full);
  return name.slice(0, max - hash.length - 1).replace(/[_.-]+$/, '') + '_' + hash;
}

export function sanitizeToolName(raw: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(raw)) return raw;
  const clean = asciiFold(raw)
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
  return fit(clean || 'operation', raw, MAX_NAME);
}

/** `get /pets/{petId}` → `get_/pets/petId`, which sanitizeToolName makes `get_pets_petId`. */
export function nameFromRoute(method: string, path: string): string {
  return `${method.toLowerCase()}_${path.replace(/[{}]/g, '')}`;
}

export function sanitizeArgName(raw: string): string {
  // MCP SDKs drop a `__proto__` key from the arguments a client sends, and ajv skips it in `properties`.
  if (raw === '__proto__') return 'proto';
  if (/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) return raw;
  const clean = asciiFold(raw)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+(?=.)|(?<=.)_+$/g, '');
  return fit(clean || 'arg', raw, MAX_NAME);
}

/**
 * Hands out names that are unique within one scope; a taken name gets `_2`, `_3`, …
 * (cut so that the suffix still fits in 64 characters).
 */
export class NameScope {
  private readonly taken = new Set<string>();

  constructor(private readonly reserved: Iterable<string> = []) {
    for (const name of this.reserved) this.taken.add(name.toLowerCase());
  }

  /** Names are compared case-insensitively: some clients treat `getPet` and `GetPet` as one. */
  has(name: string): boolean {
    return this.taken.has(name.toLowerCase());
  }

  /** Gives a claimed name back (an operation left out after all). */
  release(name: string): void {
    this.taken.delete(name.toLowerCase());
  }

  claim(name: string): string {
    let candidate = name;
    for (let i = 2; this.has(candidate); i++) {
      const suffix = `_${i}`;
      candidate = name.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    this.taken.add(candidate.toLowerCase());
    return candidate;
  }
}

/** Words that say nothing about which API it is ("GitHub's official OpenAPI spec + Octokit extension"). */
const NOISE_WORDS = new Set(
  'a an and api apis definition definitions deprecated docs documentation extension extensions for http https interface json of official on openapi public reference rest restful s service services spec specification the to version with'.split(
    ' ',
  ),
);

/**
 * The generated package's name: up to three telling words of the title (`github-octokit-mcp`,
 * not `github-s-official-openapi-spec-octokit-extension-mcp`), else the server's host name
 * (`api.example.com` → `example-mcp`), else `api-mcp`.
 */
export function packageNameFor(title: string | undefined, serverUrl: string | undefined): string {
  const words = asciiFold(title ?? '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !NOISE_WORDS.has(w) && !/^v?\d+$/.test(w));
  let base = '';
  for (const word of words.slice(0, 3)) {
    if (base && base.length + 1 + word.length > 30) break;
    base = base ? `${base}-${word}` : word.slice(0, 30);
  }
  if (!base && serverUrl) {
    try {
      const labels = new URL(serverUrl).hostname.split('.').filter((l) => !/^(api|www|rest)$/.test(l));
      base = (labels.length > 1 ? labels[labels.length - 2] : labels[0])?.replace(/[^a-z0-9-]/g, '').slice(0, 30) ?? '';
    } catch {
      // not a URL: fall through
    }
  }
  return `${base.replace(/^-+|-+$/g, '') || 'api'}-mcp`;
}
