// Parse stage: read a spec (file or URL, YAML or JSON), resolve external $refs into one
// document, and hand back a single dialect (OpenAPI 3.x shape) to everything after.

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, resolve as resolvePath } from 'node:path';
import type SwaggerParser from '@apidevtools/swagger-parser';
import { SpecError } from '../errors.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { getAt, isObject, parsePointer, type JsonObject } from './pointer.js';
import { SourceGuard } from './sources.js';
import { someRef } from '../contract/def-refs.js';
import { convertSwagger2 } from './swagger2.js';
import { folderError, notOpenApiError, SUPPORTED, toSpecError } from './spec-errors.js';
import {
  checkAdditionalOperationsExtension,
  inlineMediaTypes,
  isOpenApi32,
  refParser,
  selfAwareOptions,
  selfMappingOf,
  validateOpenApi32,
  withSelfBase,
} from './openapi32.js';

export interface LoadedSpec {
  /** OpenAPI 3.x-shaped document; internal `#/...` refs are kept (cycles stay finite). */
  doc: JsonObject;
  /** The version the spec declared (`2.0`, `3.0.3`, `3.1.0`, …). */
  specVersion: string;
  /** Path or URL as the user gave it, for messages and headers. */
  source: string;
  warnings: GenerationWarning[];
}

export interface LoadOptions {
  /** Follow `$ref`s to http(s) URLs of other origins. Off by default: a spec must not make us fetch arbitrary URLs. */
  allowRemoteRefs?: boolean;
  /** Folders local `$ref`s may read besides the spec's own. */
  allowRefDirs?: string[];
  /** Overlay files or URLs, applied in order to the document as its author wrote it (see overlay.ts). */
  overlays?: readonly string[];
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

// swagger-parser is CommonJS and takes ~130 ms to load: loaded only when a spec needs it.
const require = createRequire(import.meta.url);
const swaggerParser = () => new (require('@apidevtools/swagger-parser') as typeof SwaggerParser)();

/**
 * True when bundle() is needed: some `$ref` points outside the document, or an internal
 * one does not resolve as written (bundle() then resolves it or names it in its error).
 */
function needsBundle(root: unknown): boolean {
  const checked = new Set<string>();
  let external = false;
  const unresolved = someRef(root, (ref) => {
    if (!ref.startsWith('#')) external = true;
    else if (!checked.has(ref)) {
      checked.add(ref);
      const tokens = parsePointer(ref);
      // bundle() knows the lenient spellings (an unescaped `/` in a key) and the exact error
      return !tokens || getAt(root, tokens) === undefined;
    }
  });
  return unresolved || external;
}

/**
 * The common case without swagger-parser's parse(): a local .json/.yaml file whose version
 * swagger-parser accepts, read and parsed exactly as its parse() does with our hooks. Anything
 * else (undefined) takes swagger-parser's path, which gives the established messages for every problem.
 */
async function readPlainLocalSpec(source: string, guard: SourceGuard): Promise<JsonObject | undefined> {
  const as = isUrl(source) ? undefined : PARSED_AS[extname(source).toLowerCase()];
  if (!as) return undefined;
  const path = resolvePath(source);
  let root: unknown;
  try {
    if (statSync(path).size > MAX_PLAIN_BYTES) return undefined;
    root = await guard.parse({ url: path, data: readFileSync(path) }, as);
  } catch {
    guard.refused = undefined;
    return undefined;
  }
  const notOpenApi = notOpenApiError(root, source);
  if (notOpenApi) throw notOpenApi;
  return isObject(root) && (versionAccepted(root) || isOpenApi32(root.openapi)) ? root : undefined;
}

/** The parser swagger-parser tries first for a root document, by its extension. */
const PARSED_AS: Record<string, 'json' | 'yaml'> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };
/** Below SourceGuard's size limit: larger files take the full path, which refuses them by name. */
const MAX_PLAIN_BYTES = 32 * 1024 * 1024;
const SWAGGER_PARSER_VERSIONS = ['3.0.0', '3.0.1', '3.0.2', '3.0.3', '3.0.4', '3.1.0', '3.1.1', '3.1.2'];

/** What swagger-parser's parse() lets through without an error. */
function versionAccepted(root: JsonObject): boolean {
  if (isObject(root.info) && typeof root.info.version === 'number') return false;
  if (root.swagger !== undefined) return root.swagger === '2.0';
  return root.paths !== undefined && typeof root.openapi === 'string' && SWAGGER_PARSER_VERSIONS.includes(root.openapi);
}

/** The document with its external $refs brought in; swagger-parser reads it unless the plain path already has. */
async function withExternalRefs(source: string, guard: SourceGuard, plain: JsonObject | undefined): Promise<unknown> {
  const parserOptions = {
    ...guard.parserOptions(),
    // validation is ours (below); swagger-parser's schema validation costs ~0.4 s per spec
    validate: { schema: false, spec: false },
  } as SwaggerParser.Options;
  // bundle() only resolves external $refs for us, and costs 85% of generating GitHub's spec
  // (it grows with the square of the refs): skip it when every $ref is internal.
  const parsed: unknown = plain ?? (await parseRoot(source, parserOptions));
  if (isObject(parsed) && isOpenApi32(parsed.openapi)) {
    const mapping = selfMappingOf(parsed, source);
    const based = withSelfBase(parsed, source, mapping);
    return needsBundle(based) ? await refParser().bundle(source, based, selfAwareOptions(parserOptions, mapping)) : based;
  }
  return needsBundle(parsed) ? await swaggerParser().bundle(source, parserOptions) : parsed;
}

/** swagger-parser's parse(); a 3.2 document, which it refuses by version, is read by its resolver alone. */
async function parseRoot(source: string, parserOptions: SwaggerParser.Options): Promise<unknown> {
  try {
    return await swaggerParser().parse(source, parserOptions);
  } catch (error) {
    if (!/^Unsupported OpenAPI version: 3\.2\./.test(String((error as Error)?.message))) throw error;
    return refParser().parse(source, parserOptions);
  }
}

export async function loadSpec(source: string, options: LoadOptions = {}): Promise<LoadedSpec> {
  const folder = folderError(source);
  if (folder) throw folder;
  const guard = new SourceGuard({ source, allowRemoteRefs: options.allowRemoteRefs ?? false, allowRefDirs: options.allowRefDirs ?? [] });
  let bundled: unknown;
  try {
    bundled = await withExternalRefs(source, guard, await readPlainLocalSpec(source, guard));
  } catch (error) {
    if (guard.refused) throw guard.refused;
    if (error instanceof SpecError) throw error;
    throw toSpecError(error, source);
  }
  if (!isObject(bundled)) throw new SpecError('the document is not a JSON/YAML object', source);
  if (isUrl(source)) restorePorts(bundled, source);
  const warnings: GenerationWarning[] = [];
  // the JSONPath library costs ~40 ms to load: only a run with overlays loads it
  if (options.overlays?.length) await (await import('./overlay.js')).applyOverlays(bundled, options.overlays, warnings);
  const declared = bundled.openapi ?? bundled.swagger;
  if (typeof declared !== 'string') {
    throw new SpecError('no "openapi" or "swagger" version field: not an OpenAPI document', source + '#/');
  }
  let doc: JsonObject;
  if (/^2\.0(\.\d+)?$/.test(declared)) {
    doc = convertSwagger2(bundled, warnings);
  } else if (/^3\.[01]\.\d+$/.test(declared)) {
    checkAdditionalOperationsExtension(bundled, source);
    doc = bundled;
  } else if (isOpenApi32(declared)) {
    await validateOpenApi32(bundled, source);
    inlineMediaTypes(bundled);
    doc = bundled;
  } else {
    throw new SpecError(
      `unsupported version ${JSON.stringify(declared)}: ${SUPPORTED}`,
      source + (bundled.openapi !== undefined ? '#/openapi' : '#/swagger'),
    );
  }
  if (!isObject(doc.info)) warnings.push(warning('no-info', 'the spec has no "info" object'));
  if (doc.paths !== undefined && !isObject(doc.paths)) {
    throw new SpecError('"paths" must be an object', source + '#/paths');
  }
  return { doc, specVersion: declared, source, warnings };
}

/**
 * swagger-parser makes a spec URL's `/relative` server URLs absolute but drops the port
 * (`http://host:8080/openapi.json` + `/v1` → `http://host/v1`); put the port back.
 */
function restorePorts(doc: JsonObject, source: string): void {
  const origin = new URL(source);
  if (!origin.port) return;
  const broken = `${origin.protocol}//${origin.hostname}/`;
  const fix = (servers: unknown) => {
    if (!Array.isArray(servers)) return;
    for (const server of servers) {
      if (isObject(server) && typeof server.url === 'string' && server.url.startsWith(broken)) {
        server.url = `${origin.origin}/${server.url.slice(broken.length)}`;
      }
    }
  };
  fix(doc.servers);
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    fix(item.servers);
    for (const op of Object.values(item)) if (isObject(op)) fix(op.servers);
  }
}
