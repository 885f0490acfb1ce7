// One generic executor serves every tool in the table: check the arguments against the
// tool's inputSchema, build the HTTP request, send it, and map the answer.

import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ServerConfig } from './config.js';
import { toolHooks, type Hooks, type OutgoingRequest } from './hooks-api.js';
import type { Logger } from './log.js';
import { Authenticator, type RequestCredentials } from './auth.js';
import { coerceArguments } from './coerce.js';
import { argumentsTooBig, linearRegExpEngine } from './limits.js';
import { ArgumentError, buildRequest, chooseMediaType, getHeader, resolveServerUrl, setHeader, unsendableHeader } from './request.js';
import { advertisedStructure, plainStructure, toolError, type Structurer } from './output.js';
import { errorExcerpt, toToolResult, type UpstreamAnswer, type UpstreamRefusal } from './response.js';
import { ownValue, stubSchema, type JsonSchema, type Listing, type ToolSpec, type ToolTable } from './table.js';
import {
  credentialPlaces,
  fromWebResponse,
  readLimited,
  redact,
  RedirectError,
  sendFollowingRedirects,
  toWebResponse,
} from './upstream.js';

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export interface Executor {
  /** The tool's inputSchema as listed, with the shared `$defs` it references attached. */
  inputSchema(tool: ToolSpec): JsonSchema;
  /** The tool's outputSchema as listed, with its `$defs`, when the spec documents a JSON answer. */
  outputSchema(tool: ToolSpec): JsonSchema | undefined;
  /**
   * `advertised: false` when the answer goes out without the tool's outputSchema (dynamic
   * mode's invoke_operation): then nothing promised a shape, and any good answer is returned.
   */
  call(
    tool: ToolSpec,
    args: Record<string, unknown>,
    signal: AbortSignal,
    credentials?: RequestCredentials,
    options?: { advertised?: boolean },
  ): Promise<CallToolResult>;
  /**
   * The upstream answer to the request a call would make, for resources/read: a successful
   * answer, the upstream's refusal (status ≥ 400), or the tool error that stopped the request.
   */
  read(
    tool: ToolSpec,
    args: Record<string, unknown>,
    signal: AbortSignal,
    credentials?: RequestCredentials,
  ): Promise<{ answer: UpstreamAnswer } | { refused: UpstreamRefusal } | { failure: CallToolResult }>;
  /** Arguments of a tool that is not an operation (the meta-tools) against its schema: why they do not fit, or undefined. */
  checkArguments(schema: JsonSchema, args: Record<string, unknown>): Promise<string | undefined>;
}

/**
 * ajv, loaded on the first tool call rather than at start-up: importing it and its formats
 * costs ~130 ms, a third of a cold start, and `initialize` and `tools/list` never need it.
 */
let ajvLoading: Promise<Ajv2020> | undefined;
function loadAjv(log: Logger): Promise<Ajv2020> {
  return (ajvLoading ??= Promise.all([import('ajv/dist/2020.js'), import('ajv-formats'), import('re2js')]).then(
    ([ajvModule, formatsModule, re2]) => {
      // both are CommonJS: the export is the module itself, or its `default` under some loaders
      const { Ajv2020: AjvClass } = ((ajvModule as { default?: unknown }).default ?? ajvModule) as typeof import('ajv/dist/2020.js');
      const addFormats = ((formatsModule as { default?: unknown }).default ?? formatsModule) as unknown as (ajv: Ajv2020) => void;
      // Spec patterns run on a linear-time engine: no pattern can freeze the server (limits.ts).
      const regExp = linearRegExpEngine(re2.RE2JS, (pattern, reason) =>
        log.warn(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not checked here (${reason}); the API still checks it`),
      );
      // ownProperties: an argument named `constructor` or `toString` is absent unless the client gave it.
      const ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: true, ownProperties: true, code: { regExp } });
      addFormats(ajv);
      return ajv;
    },
  ));
}

const NO_CREDENTIALS: RequestCredentials = new Map();

export function createExecutor(table: ToolTable, config: ServerConfig, hooks: Hooks, log: Logger): Executor {
  const withDefs = (schema: JsonSchema, defs: string[], stubs: string[] = []): JsonSchema =>
    defs.length || stubs.length
      ? {
          ...schema,
          $defs: Object.fromEntries([...defs.map((k) => [k, table.defs[k] ?? {}]), ...stubs.map((k) => [k, stubSchema(table.defs[k])])]),
        }
      : schema;
  /** As tools/list shows it: large schemas in part (Listing). */
  const listed = (schema: JsonSchema, holder: { defs: string[]; listing?: Listing }) =>
    holder.listing ? withDefs(schema, holder.listing.defs, holder.listing.stubs) : withDefs(schema, holder.defs);
  const memo = <T>(make: (tool: ToolSpec) => T) => {
    const cache = new Map<string, T>();
    return (tool: ToolSpec): T => {
      if (!cache.has(tool.name)) cache.set(tool.name, make(tool));
      return cache.get(tool.name) as T;
    };
  };
  const inputSchema = memo((tool) => listed(tool.inputSchema, tool));
  const outputSchema = memo((tool) => (tool.output ? listed(tool.output.schema, tool.output) : undefined));

  // JSON Schema 2020-12, the dialect of MCP tool schemas (prefixItems, $defs, unevaluated*).
  // Set by the first call (loadAjv), before any compile.
  let ajv: Ajv2020 | undefined;
  // Compiled on first use and kept: compiling every schema at start-up would cost seconds
  // for a large API, and compiling per call would cost that on every call.
  const compile = (tool: ToolSpec, schema: JsonSchema, what: string): Validate => {
    if (!ajv) throw new Error('internal: schema compiled before ajv was loaded');
    try {
      return ajv.compile(schema) as Validate;
    } catch (error) {
      // A schema ajv cannot compile must not make the tool unusable: the upstream validates too.
      log.warn(`tool ${tool.name}: ${what} schema not checkable (${(error as Error).message})`);
      return (() => true) as Validate;
    }
  };
  // Arguments are checked against the whole schema, also where the listing shows it in part,
  // so that a wrong nested field is named here rather than by the upstream.
  const inputValidator = memo((tool) => compile(tool, tool.listing ? withDefs(tool.inputSchema, tool.defs) : inputSchema(tool), 'input'));
  const outputValidator = memo((tool) => compile(tool, outputSchema(tool) ?? {}, 'output'));

  // A body whose media types' schemas differ (BodySpec.variants) must fit the form of the type it is sent as.
  const formValidators = new Map<string, Validate>();
  const formProblem = (tool: ToolSpec, args: Record<string, unknown>): string | undefined => {
    const body = tool.http.body;
    const value = body ? args[body.arg] : undefined;
    if (!body?.variants || value === undefined || value === null) return undefined;
    const chosen = body.contentTypeArg ? args[body.contentTypeArg] : undefined;
    let media: string;
    try {
      media = chooseMediaType(body, typeof chosen === 'string' ? chosen : undefined);
    } catch (error) {
      if (error instanceof ArgumentError) return error.message;
      throw error;
    }
    const forms = ((tool.inputSchema.properties as Record<string, JsonSchema> | undefined)?.[body.arg]?.anyOf ?? []) as JsonSchema[];
    const index = body.variants[media];
    const form = index === undefined ? undefined : forms[index];
    if (!form) return undefined;
    const stray = strayField(value, form, forms, body.variants, table.defs);
    if (stray) {
      const how = body.contentTypeArg ? ` (set ${body.contentTypeArg} to ${stray.media})` : '';
      return `argument "${body.arg}": field "${stray.field}" belongs to the ${stray.media} form of the body, not to ${media}${how}`;
    }
    const key = `${tool.name}\n${index}`;
    let validate = formValidators.get(key);
    if (!validate) {
      validate = compile(tool, withDefs({ type: 'object', properties: { [body.arg]: form } }, tool.defs), `${media} body`);
      formValidators.set(key, validate);
    }
    return validate({ [body.arg]: value }) ? undefined : `${describeErrors(validate.errors ?? [])} (as ${media})`;
  };

  const structureFor = (tool: ToolSpec): Structurer => {
    if (!tool.output) return plainStructure;
    return advertisedStructure(tool.output, () => {
      const validate = outputValidator(tool);
      return Object.assign((value: unknown) => validate(value), { describe: () => describeErrors(validate.errors ?? [], 'field') });
    });
  };

  const auth = new Authenticator(table, process.env, log, config.timeoutMs);
  const defaultBase = config.baseUrl ?? (table.servers[0] ? resolveServerUrl(table.servers[0]) : '');
  const places = credentialPlaces(table);
  // Static headers (--header / API_HEADERS) are credentials too: they stay on the API's origin.
  for (const [name] of config.staticHeaders) places.headers.add(name.toLowerCase());
  // The spec's servers, when it came from a URL, reach public addresses only; --base-url is the user's.
  const publicServers = config.baseUrl === undefined ? table.publicServers : undefined;
  const send = (request: OutgoingRequest, signal: AbortSignal) => sendFollowingRedirects(request, signal, places, publicServers);
  const configuredSecrets = Object.values(table.auth)
    .flatMap((scheme) => Object.values(scheme.env) as string[])
    .map((variable) => process.env[variable])
    .filter((value): value is string => value !== undefined && value !== '')
    .concat(config.staticHeaders.map(([, value]) => value));
  /** A failure's text with every credential in use taken out: fetch and the upstream may quote what was sent. */
  const withoutSecrets = (text: string, credentials: RequestCredentials) => redact(text, [...configuredSecrets, ...credentials.values()]);
  const redacted = (result: CallToolResult, credentials: RequestCredentials): CallToolResult => ({
    ...result,
    content: result.content.map((item) => (item.type === 'text' ? { ...item, text: withoutSecrets(item.text, credentials) } : item)),
  });

  const metaValidators = new WeakMap<JsonSchema, Validate>();
  return {
    inputSchema,
    outputSchema,
    async checkArguments(schema, args) {
      ajv ??= await loadAjv(log);
      let validate = metaValidators.get(schema);
      if (!validate) metaValidators.set(schema, (validate = ajv.compile(schema) as Validate));
      return validate(args) ? undefined : describeErrors(validate.errors ?? []);
    },
    async read(tool, args, signal, credentials = NO_CREDENTIALS) {
      try {
        const outcome = await exchange(tool, args, signal, credentials);
        if ('failure' in outcome) return { failure: redacted(outcome.failure, credentials) };
        const { answer } = outcome;
        if (answer.status < 400) return outcome;
        const { status, statusText, label } = answer;
        return { refused: { status, statusText, label, excerpt: withoutSecrets(errorExcerpt(answer), credentials) } };
      } catch (error) {
        return { failure: redacted(toolError(`${tool.name} failed: ${(error as Error)?.message ?? String(error)}`), credentials) };
      }
    },
    async call(tool, args, signal, credentials = NO_CREDENTIALS, options = {}) {
      try {
        const outcome = await exchange(tool, args, signal, credentials);
        if ('failure' in outcome) return redacted(outcome.failure, credentials);
        const result = toToolResult(outcome.answer, options.advertised === false ? plainStructure : structureFor(tool));
        return result.isError ? redacted(result, credentials) : result;
      } catch (error) {
        // A failure inside a call is the tool's failure (isError), never the connection's.
        return redacted(toolError(`${tool.name} failed: ${(error as Error)?.message ?? String(error)}`), credentials);
      }
    },
  };

  /** The request a call of `tool` makes, sent: the upstream's answer, or the tool error that stopped it. */
  async function exchange(
    tool: ToolSpec,
    args: Record<string, unknown>,
    signal: AbortSignal,
    credentials: RequestCredentials,
  ): Promise<{ answer: UpstreamAnswer } | { failure: CallToolResult }> {
    const failure = (text: string) => ({ failure: toolError(text) });
    const tooBig = argumentsTooBig(args);
    if (tooBig) return failure(`Invalid arguments for ${tool.name}: ${tooBig}`);
    args = coerceArguments(args, tool.inputSchema, table.defs);
    ajv ??= await loadAjv(log);
    const validate = inputValidator(tool);
    for (let round = 0; !validate(args); round++) {
      const repaired = round < 8 ? repairArguments(args, validate.errors ?? []) : undefined;
      if (!repaired)
        return failure(`Invalid arguments for ${tool.name}: ${formProblem(tool, args) ?? describeErrors(validate.errors ?? [])}`);
      args = repaired;
    }
    const wrongForm = formProblem(tool, args);
    if (wrongForm) return failure(`Invalid arguments for ${tool.name}: ${wrongForm}`);

    const own = toolHooks(hooks, tool.name);
    if (own?.beforeRequest) args = (await own.beforeRequest(args)) ?? args;

    const base = config.baseUrl ?? (tool.http.servers?.[0] ? resolveServerUrl(tool.http.servers[0]) : defaultBase);
    if (!/^https?:\/\//i.test(base)) {
      return failure(
        `${tool.name}: no upstream base URL${base ? ` (the spec's server "${base}" is relative)` : ''}; start the server with --base-url or set API_BASE_URL`,
      );
    }
    const limit = deadline(signal, config.timeoutMs);
    const both = limit.signal;
    try {
      // Built afresh for a retry: a fetched token may have been refreshed in between.
      const prepare = async (): Promise<{ request: OutgoingRequest } | { failure: CallToolResult }> => {
        let request: OutgoingRequest;
        try {
          const chosen = tool.http.body?.contentTypeArg ? ownValue(args, tool.http.body.contentTypeArg) : undefined;
          const options = typeof chosen === 'string' ? { contentType: chosen } : {};
          request = { tool: tool.name, ...buildRequest(tool.http, args, base, options) };
          // under the tool's own header arguments; the security schemes, applied next, win over both
          for (const [name, value] of config.staticHeaders)
            if (getHeader(request.headers, name) === undefined) setHeader(request.headers, name, value);
        } catch (error) {
          if (error instanceof ArgumentError) return { failure: toolError(`Invalid arguments for ${tool.name}: ${error.message}`) };
          throw error;
        }
        const outcome = await auth.apply(tool, request, credentials, both);
        if (!outcome.ok) return { failure: toolError(outcome.message) };
        // Schemes from a hand-edited tools.json, with values from a client (--auth-from-headers)
        const unsendable = unsendableHeader(request.headers);
        if (unsendable !== undefined) return { failure: toolError(`${tool.name}: ${unsendable}`) };
        fetchedToken = outcome.usedTokenFetch;
        return { request: hooks.beforeRequest ? ((await hooks.beforeRequest(request)) ?? request) : request };
      };
      let fetchedToken = false;
      let prepared = await prepare();
      if ('failure' in prepared) return { failure: prepared.failure };
      let request = prepared.request;

      const target = new URL(request.url);
      const uri = target.origin + target.pathname;
      const label = `${request.method} ${uri}`;
      try {
        let response = await send(request, both);
        if (response.status === 401 && fetchedToken) {
          // RFC 6750 §3.1: the token may have been revoked or expired early; one fresh try.
          response.discard();
          auth.invalidate();
          prepared = await prepare();
          if ('failure' in prepared) return { failure: prepared.failure };
          request = prepared.request;
          response = await send(request, both);
        }
        if (own?.afterResponse || hooks.afterResponse) {
          // The hooks' type is fetch's Response: made only when there is a hook to see it.
          let web = toWebResponse(response);
          if (own?.afterResponse) web = (await own.afterResponse(web, request)) ?? web;
          if (hooks.afterResponse) web = (await hooks.afterResponse(web, request)) ?? web;
          response = fromWebResponse(web);
        }
        const { bytes, truncated } = await readLimited(response, config.maxResponseBytes);
        const declared = Number(response.header('content-length'));
        log.debug(`${label} → ${response.status}`);
        const answer = {
          status: response.status,
          statusText: response.statusText,
          contentType: response.header('content-type') ?? '',
          bytes,
          truncated,
          ...(Number.isFinite(declared) && declared > 0 ? { declaredLength: declared } : {}),
          label,
          uri,
        };
        return { answer };
      } catch (error) {
        return failure(networkFailure(error, label, limit.timedOut(), signal, config.timeoutMs));
      }
    } finally {
      limit.done();
    }
  }
}

/**
 * The call's time limit and the client's cancellation as one signal, from one controller and
 * one timer: AbortSignal.any over AbortSignal.timeout makes three signals per call and keeps
 * its timer alive after the answer. `done` clears the timer once the answer is read.
 */
function deadline(cancel: AbortSignal, ms: number): { signal: AbortSignal; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  const onCancel = () => controller.abort(cancel.reason);
  if (cancel.aborted) onCancel();
  else cancel.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      cancel.removeEventListener('abort', onCancel);
    },
  };
}

function networkFailure(error: unknown, label: string, timedOut: boolean, signal: AbortSignal, timeoutMs: number): string {
  if (timedOut) return `${label}: no answer within ${timeoutMs} ms (timeout; raise it with --timeout)`;
  if (signal.aborted) return `${label}: cancelled by the client`;
  if (error instanceof RedirectError) return `${label}: not followed: ${error.message}`;
  // addresses.ts's InternalAddressError, known by its code: that module loads only when needed
  if ((error as { code?: string }).code === 'EINTERNAL') {
    return `${label}: not sent: ${(error as Error).message}, where the servers of a spec loaded from a URL may not take calls; choose the upstream with --base-url (API_BASE_URL)`;
  }
  // node:http errors carry their code (ECONNREFUSED); fetch's carry it in their cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? (error as { code?: string }).code ?? cause?.message ?? (error as Error).message ?? String(error);
  return `${label}: request failed (${reason})`;
}

/**
 * A field of `value` that another form of the body declares and `form` does not (a JSON field
 * sent as multipart), with the media type of the form it belongs to.
 */
function strayField(
  value: unknown,
  form: JsonSchema,
  forms: JsonSchema[],
  variants: Record<string, number>,
  defs: Record<string, JsonSchema>,
): { field: string; media: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const own = new Set(fieldsOf(form, defs));
  for (const [field, given] of Object.entries(value)) {
    if (own.has(field) || given === null) continue; // null sends nothing (and is openai-strict's "absent")
    const other = forms.findIndex((f) => f !== form && fieldsOf(f, defs).includes(field));
    const media = Object.keys(variants).find((m) => variants[m] === other);
    if (media !== undefined) return { field, media };
  }
  return undefined;
}

/** The property names a body form declares, through `$ref`s and `allOf`. */
function fieldsOf(schema: JsonSchema, defs: Record<string, JsonSchema>, depth = 0): string[] {
  if (depth > 8) return [];
  if (typeof schema.$ref === 'string') {
    const target = defs[schema.$ref.slice('#/$defs/'.length)];
    return target ? fieldsOf(target, defs, depth + 1) : [];
  }
  const own = typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : [];
  const parts = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [];
  return [...own, ...parts.flatMap((part) => fieldsOf(part, defs, depth + 1))];
}

/**
 * Arguments that failed only for how a client wrote them, written as the schema wants them:
 * a `null` where null is not allowed means the argument is absent (models send null for what
 * they leave out, and the openai-strict profile asks them to), and JSON text where only an
 * object or array fits is read as JSON (profiles that cannot list a free-form object ask
 * for it so). Undefined when nothing could be repaired; the input is not changed.
 */
export function repairArguments(args: Record<string, unknown>, errors: AjvError[]): Record<string, unknown> | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const error of errors) {
    if (error.keyword !== 'type' || error.instancePath === '') continue;
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const key = path.pop() as string;
    const parentOf = (root: unknown) =>
      path.reduce<unknown>(
        (node, token) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined),
        root,
      );
    const original = parentOf(args);
    if (typeof original !== 'object' || original === null || !Object.hasOwn(original, key)) continue;
    const value = (original as Record<string, unknown>)[key];
    const wanted = String(error.params.type ?? '').split(',');
    let fixed: { value: unknown } | 'delete' | undefined;
    if (value === null && !Array.isArray(original)) fixed = 'delete';
    else if (typeof value === 'string' && (wanted.includes('object') || wanted.includes('array'))) {
      try {
        const parsed: unknown = JSON.parse(value);
        const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'object' && parsed !== null ? 'object' : undefined;
        if (kind && wanted.includes(kind)) fixed = { value: parsed };
      } catch {
        // not JSON: the error stands
      }
    }
    if (!fixed) continue;
    copy ??= structuredClone(args);
    const parent = parentOf(copy) as Record<string, unknown>;
    if (fixed === 'delete') delete parent[key];
    else parent[key] = fixed.value;
  }
  return copy;
}

/** ajv's errors as one line that names the arguments: `argument "id": must be integer`. */
function describeErrors(errors: AjvError[], noun = 'argument'): string {
  const seen = new Set<string>();
  for (const e of errors) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    let text: string;
    if (e.keyword === 'additionalProperties') {
      const extra = String(e.params.additionalProperty);
      text = path ? `${noun} "${path}": unknown property "${extra}"` : `unknown ${noun} "${extra}"`;
    } else if (e.keyword === 'required') {
      const missing = String(e.params.missingProperty);
      text = path ? `${noun} "${path}": missing property "${missing}"` : `missing required ${noun} "${missing}"`;
    } else if (e.keyword === 'enum') {
      text = `${noun} "${path}": must be one of ${JSON.stringify(e.params.allowedValues)}`;
    } else if (path) {
      text = `${noun} "${path}": ${e.message ?? e.keyword}`;
    } else {
      text = `${noun}s ${e.message ?? e.keyword}`;
    }
    seen.add(text);
    if (seen.size === 3) break;
  }
  return [...seen].join('; ') || 'arguments do not match the input schema';
}
