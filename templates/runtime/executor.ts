// One generic executor serves every tool in the table: check the arguments against the
// tool's inputSchema, build the HTTP request, send it, and map the answer.

import { Ajv, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ServerConfig } from './config.js';
import type { Hooks, OutgoingRequest } from './hooks-api.js';
import type { Logger } from './log.js';
import { ArgumentError, buildRequest, resolveServerUrl } from './request.js';
import { toToolResult } from './response.js';
import type { JsonSchema, ToolSpec, ToolTable } from './table.js';

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export interface Executor {
  /** The tool's inputSchema with the shared `$defs` it references attached. */
  inputSchema(tool: ToolSpec): JsonSchema;
  call(tool: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

const fail = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

export function createExecutor(table: ToolTable, config: ServerConfig, hooks: Hooks, log: Logger): Executor {
  const schemas = new Map<string, JsonSchema>();
  const validators = new Map<string, Validate>();
  let ajv: InstanceType<typeof Ajv> | undefined;

  const inputSchema = (tool: ToolSpec): JsonSchema => {
    let schema = schemas.get(tool.name);
    if (!schema) {
      schema = tool.defs.length
        ? { ...tool.inputSchema, $defs: Object.fromEntries(tool.defs.map((k) => [k, table.defs[k] ?? {}])) }
        : tool.inputSchema;
      schemas.set(tool.name, schema);
    }
    return schema;
  };

  // Compiled on first use and kept: compiling every schema at start-up would cost seconds
  // for a large API, and compiling per call would cost that on every call.
  const validatorFor = (tool: ToolSpec): Validate => {
    let validate = validators.get(tool.name);
    if (!validate) {
      if (!ajv) {
        ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
        addFormats(ajv);
      }
      try {
        validate = ajv.compile(inputSchema(tool)) as Validate;
      } catch (error) {
        // A schema ajv cannot compile must not make the tool unusable: the upstream validates too.
        log.warn(`tool ${tool.name}: input schema not checkable (${(error as Error).message}); arguments are passed unchecked`);
        validate = (() => true) as Validate;
      }
      validators.set(tool.name, validate);
    }
    return validate;
  };

  const defaultBase = config.baseUrl ?? (table.servers[0] ? resolveServerUrl(table.servers[0]) : '');

  return {
    inputSchema,
    async call(tool, args, signal) {
      const validate = validatorFor(tool);
      if (!validate(args)) return fail(`Invalid arguments for ${tool.name}: ${describeErrors(validate.errors ?? [])}`);

      const base = config.baseUrl ?? (tool.http.servers?.[0] ? resolveServerUrl(tool.http.servers[0]) : defaultBase);
      if (!/^https?:\/\//i.test(base)) {
        return fail(`${tool.name}: no upstream base URL${base ? ` (the spec's server "${base}" is relative)` : ''}; start the server with --base-url or set API_BASE_URL`);
      }
      let request: OutgoingRequest;
      try {
        request = { tool: tool.name, ...buildRequest(tool.http, args, base) };
      } catch (error) {
        if (error instanceof ArgumentError) return fail(`Invalid arguments for ${tool.name}: ${error.message}`);
        throw error;
      }
      if (hooks.beforeRequest) request = (await hooks.beforeRequest(request)) ?? request;

      const target = new URL(request.url);
      const uri = target.origin + target.pathname;
      const label = `${request.method} ${uri}`;
      const timeout = AbortSignal.timeout(config.timeoutMs);
      let response: Response;
      try {
        response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          signal: AbortSignal.any([signal, timeout]),
          redirect: 'follow',
        });
        if (hooks.afterResponse) response = (await hooks.afterResponse(response, request)) ?? response;
      } catch (error) {
        return fail(networkFailure(error, label, timeout, signal, config.timeoutMs));
      }
      try {
        const { bytes, truncated } = await readLimited(response, config.maxResponseBytes);
        const declared = Number(response.headers.get('content-length'));
        log.debug(`${label} → ${response.status}`);
        return toToolResult({
          status: response.status,
          statusText: response.statusText,
          contentType: response.headers.get('content-type') ?? '',
          bytes,
          truncated,
          ...(Number.isFinite(declared) && declared > 0 ? { declaredLength: declared } : {}),
          label,
          uri,
        });
      } catch (error) {
        return fail(networkFailure(error, label, timeout, signal, config.timeoutMs));
      }
    },
  };
}

function networkFailure(error: unknown, label: string, timeout: AbortSignal, signal: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `${label}: no answer within ${timeoutMs} ms (timeout; raise it with --timeout)`;
  if (signal.aborted) return `${label}: cancelled by the client`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
  return `${label}: request failed (${reason})`;
}

/** Reads at most `limit` bytes and stops the download there. */
async function readLimited(response: Response, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}

/** ajv's errors as one line that names the arguments: `argument "id": must be integer`. */
function describeErrors(errors: AjvError[]): string {
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
      text = path ? `argument "${path}": unknown property "${extra}"` : `unknown argument "${extra}"`;
    } else if (e.keyword === 'required') {
      const missing = String(e.params.missingProperty);
      text = path ? `argument "${path}": missing property "${missing}"` : `missing required argument "${missing}"`;
    } else if (e.keyword === 'enum') {
      text = `argument "${path}": must be one of ${JSON.stringify(e.params.allowedValues)}`;
    } else if (path) {
      text = `argument "${path}": ${e.message ?? e.keyword}`;
    } else {
      text = `arguments ${e.message ?? e.keyword}`;
    }
    seen.add(text);
    if (seen.size === 3) break;
  }
  return [...seen].join('; ') || 'arguments do not match the input schema';
}
