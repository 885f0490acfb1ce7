// What a spec may make mcp-gen read. The spec, and every file or URL it `$ref`s, is untrusted:
// a spec from a URL must not read local files (their text would land in the generated
// project, and from there be sent to the spec's host), refs must not reach internal addresses
// (SSRF), downloads are bounded in time and size, and a document must not expand past what
// memory can hold (YAML aliases) or nest past what a recursive walk can follow.
//
// These are json-schema-ref-parser plugins: the `file` and `http` resolvers and the `json` and
// `yaml` parsers, replaced or wrapped. A refusal is recorded here, because the parser wraps
// whatever a plugin throws into its own errors; loadSpec reports the recorded SpecError.

import { realpathSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { dirname, relative, resolve as resolvePath, sep, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadOptions as YamlLoadOptions } from 'js-yaml';
import { SpecError } from '../errors.js';
import { jsYaml } from './yaml.js';
import { jsonDeeperThan } from '../contract/limits.js';
import { ipLiteral, isInternalAddress, publicOnlyLookup } from '../contract/addresses.js';

export { isInternalAddress };

/** Largest spec or referenced file read, in bytes (Microsoft Graph's spec, the largest known, is ~35 MB). */
export const MAX_SPEC_BYTES = 64 * 1024 * 1024;
/** Time a download may take, redirects included. */
const DOWNLOAD_TIMEOUT_MS = 30_000;
/** Redirect hops followed per download. */
const MAX_REDIRECTS = 5;
/** Values a document may hold once its YAML aliases are expanded (GitHub's 13 MB spec: ~1.5 M). */
const MAX_EXPANDED_VALUES = 10_000_000;
/** Deepest nesting of a document (real specs stay under 60). */
export const MAX_DOCUMENT_DEPTH = 512;

export interface SourcePolicy {
  /** The spec as the user gave it: a path or an http(s) URL. */
  source: string;
  /** Follow refs to other origins (never to internal addresses). */
  allowRemoteRefs: boolean;
  /** Folders local refs may read besides the spec's own. */
  allowRefDirs: string[];
}

const isHttpUrl = (s: string) => /^https?:\/\//i.test(s);

export class SourceGuard {
  /** The first refusal or failure, reported by loadSpec instead of the parser's wrapped error. */
  refused?: SpecError;
  private readonly rootUrl?: URL;
  private readonly readableDirs: string[];

  constructor(private readonly policy: SourcePolicy) {
    if (isHttpUrl(policy.source)) this.rootUrl = new URL(policy.source);
    const dirs = this.rootUrl ? [] : [dirname(resolvePath(policy.source)), ...policy.allowRefDirs.map((d) => resolvePath(d))];
    this.readableDirs = dirs.map((d) => realOrSelf(d));
  }

  private refuse(message: string): SpecError {
    this.refused ??= new SpecError(message, this.policy.source);
    return this.refused;
  }

  /** Options for swagger-parser / json-schema-ref-parser. */
  parserOptions(): object {
    return {
      resolve: {
        external: true,
        // the stock file reader, behind our check of which files may be read
        file: { canRead: (file: { url: string }) => !isHttpUrl(file.url) && this.fileAllowed(file.url) },
        http: {
          order: 200,
          canRead: (file: { url: string }) => isHttpUrl(file.url),
          read: (file: { url: string }) => this.download(file.url),
        },
      },
      parse: {
        json: { parse: (file: { url: string; data: unknown }) => this.parse(file, 'json') },
        yaml: { parse: (file: { url: string; data: unknown }) => this.parse(file, 'yaml') },
      },
    };
  }

  /** A local file may be read when it lies inside an allowed folder (links resolved) and is not too big. */
  private fileAllowed(url: string): boolean {
    const shown = JSON.stringify(url);
    if (this.rootUrl) {
      this.refuse(`$ref ${shown} reads a local file, which a spec loaded from a URL may not (only refs on its own origin are followed)`);
      return false;
    }
    let path: string;
    try {
      path = url.toLowerCase().startsWith('file:') ? fileURLToPath(url) : decodeURI(url);
    } catch {
      this.refuse(`$ref ${shown} is not a file path`);
      return false;
    }
    const real = realOrSelf(path);
    if (!this.readableDirs.some((dir) => isInside(real, dir))) {
      this.refuse(`$ref ${shown} is outside the spec's folder (pass --allow-ref-dir to allow its folder)`);
      return false;
    }
    try {
      const stats = statSync(real);
      // a FIFO never ends a read, and a device's size says nothing of what it yields (/dev/zero: 0)
      if (!stats.isFile()) {
        this.refuse(`$ref ${JSON.stringify(real)} is not a regular file`);
        return false;
      }
      if (stats.size > MAX_SPEC_BYTES) {
        this.refuse(`${shown} is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`);
        return false;
      }
    } catch {
      // missing: the parser's own read says "file not found"
    }
    return true;
  }

  /** The spec's own origin is trusted (the user named it); any other needs --allow-remote-refs and a public address. */
  private checkUrl(url: URL, original: string): void {
    const shown = JSON.stringify(original);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw this.refuse(`$ref ${shown} redirects to a ${url.protocol} URL`);
    if (this.rootUrl && url.origin === this.rootUrl.origin) return;
    if (!this.policy.allowRemoteRefs) {
      throw this.refuse(
        this.rootUrl
          ? `$ref to another origin not followed: ${original} (the spec's own origin is ${this.rootUrl.origin}; pass --allow-remote-refs to follow public URLs)`
          : `$ref to a URL not followed: ${original} (pass --allow-remote-refs to fetch it)`,
      );
    }
    const host = ipLiteral(url);
    if (host !== undefined && isInternalAddress(host))
      throw this.refuse(`$ref ${shown} points to an internal address (${host}); not followed`);
  }

  /** Downloads with every redirect hop and the resolved address checked, within the time and size limits. */
  async download(original: string): Promise<Buffer> {
    // A timer of our own, unref'd and cleared: nothing may hold the process open after a failure.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DOWNLOAD_TIMEOUT_MS).unref();
    try {
      return await this.downloadWithin(original, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async downloadWithin(original: string, deadline: AbortSignal): Promise<Buffer> {
    let url = new URL(original);
    for (let hop = 0; ; hop++) {
      this.checkUrl(url, original);
      const trusted = this.rootUrl !== undefined && url.origin === this.rootUrl.origin;
      let response: IncomingMessage;
      try {
        response = await get(url, deadline, trusted ? undefined : publicOnlyLookup);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        const why = deadline.aborted
          ? `no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s`
          : e.code === 'EINTERNAL'
            ? e.message
            : (e.code ?? e.message);
        throw this.refuse(`cannot download ${original}: ${why}`);
      }
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status) && response.headers.location) {
        response.resume();
        if (hop === MAX_REDIRECTS) throw this.refuse(`cannot download ${original}: more than ${MAX_REDIRECTS} redirects`);
        url = new URL(response.headers.location, url);
        continue;
      }
      if (status >= 400) {
        response.resume();
        throw this.refuse(`cannot download ${original}: HTTP ${status}`);
      }
      return readBounded(response, original, deadline, (message) => this.refuse(message));
    }
  }

  /** Parses JSON or YAML, then refuses a document that expands or nests beyond the limits. */
  async parse(file: { url: string; data: unknown }, as: 'json' | 'yaml'): Promise<unknown> {
    const data = file.data;
    if (!Buffer.isBuffer(data) && typeof data !== 'string') return data;
    const text = data.toString().replace(/^\uFEFF/, '');
    if (text.trim() === '') return undefined; // as the stock parsers: an empty file
    // JSON has no aliases, so only its depth needs checking: a scan of the text is ~10× cheaper
    // than walking the parsed document (GitHub's spec: ~20 ms against ~200 ms).
    if (as === 'json' && jsonDeeperThan(text, MAX_DOCUMENT_DEPTH)) {
      throw this.refuse(`${this.shownName(file.url)} is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    }
    const yaml = as === 'yaml' ? jsYaml() : undefined;
    let value: unknown;
    try {
      // js-yaml stops at 100 levels unless told: YAML gets the same depth as JSON
      value =
        yaml === undefined
          ? JSON.parse(text)
          : yaml.load(text, { schema: yaml.JSON_SCHEMA, maxDepth: MAX_DOCUMENT_DEPTH } as YamlLoadOptions);
    } catch (error) {
      if (yaml && error instanceof yaml.YAMLException && error.reason.startsWith('nesting exceeded maxDepth'))
        throw this.refuse(`${this.shownName(file.url)} is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
      if (error instanceof RangeError)
        throw this.refuse(`${this.shownName(file.url)} is nested too deeply to parse (more than ${MAX_DOCUMENT_DEPTH} levels are refused)`);
      throw error; // a syntax error: JSON falls back to YAML, and YAML's message names line and column
    }
    const problem = as === 'yaml' ? shapeProblem(value) : undefined;
    if (problem) throw this.refuse(`${this.shownName(file.url)} ${problem}`);
    return value;
  }

  private shownName(url: string): string {
    return url === this.policy.source || url === resolvePath(this.policy.source) ? 'the document' : url;
  }
}

async function get(url: URL, signal: AbortSignal, lookup: LookupFunction | undefined): Promise<IncomingMessage> {
  // loaded on the first download, not at every start: a spec file never needs them (~12 ms)
  const { request: send } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    // agent: false — no kept-alive socket holds the process open after a failure
    const req = send(
      url,
      {
        method: 'GET',
        agent: false,
        signal,
        headers: { accept: 'application/json, application/yaml, text/yaml, */*' },
        ...(lookup ? { lookup } : {}),
      },
      resolve,
    );
    req.once('error', reject);
    req.end();
  });
}

async function readBounded(
  response: IncomingMessage,
  url: string,
  signal: AbortSignal,
  refuse: (message: string) => SpecError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_SPEC_BYTES) {
        response.destroy();
        throw refuse(`cannot download ${url}: larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof SpecError) throw error;
    throw refuse(`cannot download ${url}: ${signal.aborted ? `no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s` : 'the answer broke off'}`);
  }
  return Buffer.concat(chunks);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolvePath(path);
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/**
 * Why a parsed document is too big or too deep to walk, if it is. YAML aliases share nodes, so
 * ~600 bytes can stand for a billion values: count each shared node once (memoised by
 * identity), iteratively, and stop at the first excess.
 */
export function shapeProblem(root: unknown): string | undefined {
  if (!isContainer(root)) return undefined;
  const done = new Map<object, { values: number; depth: number }>();
  const onPath = new Set<object>();
  const stack: { node: object; entered: boolean }[] = [{ node: root, entered: false }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const children = Object.values(top.node) as unknown[];
    if (!top.entered) {
      if (done.has(top.node)) {
        stack.pop();
        continue;
      }
      if (onPath.has(top.node)) return 'has a YAML alias inside itself';
      top.entered = true;
      onPath.add(top.node);
      if (onPath.size > MAX_DOCUMENT_DEPTH) return `is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`;
      for (const child of children) if (isContainer(child) && !done.has(child)) stack.push({ node: child, entered: false });
      continue;
    }
    stack.pop();
    onPath.delete(top.node);
    let values = 1;
    let depth = 1;
    for (const child of children) {
      const below = isContainer(child) ? done.get(child) : undefined;
      values += below?.values ?? 1;
      depth = Math.max(depth, (below?.depth ?? 0) + 1);
    }
    if (values > MAX_EXPANDED_VALUES)
      return `expands to more than ${MAX_EXPANDED_VALUES.toLocaleString('en')} values (YAML aliases: an alias bomb?)`;
    if (depth > MAX_DOCUMENT_DEPTH) return `is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`;
    done.set(top.node, { values, depth });
  }
  return undefined;
}
