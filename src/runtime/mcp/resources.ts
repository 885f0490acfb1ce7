// MCP resources and resource templates from GET operations (mcp-gen's route mapping):
// resources/list, resources/templates/list, resources/read and completion/complete. A read
// makes the same HTTP request a tool call would (arguments checked, credentials, size limit,
// hooks); unlike a tool, a failure is a JSON-RPC error, as the protocol has it for resources.

import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type AuthInfo,
  type CompleteRequest,
  type ReadResourceResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Executor } from '../call/executor.js';
import type { Hooks } from '../hooks-api.js';
import type { UpstreamRefusal } from '../call/answer/response.js';
import { isTextual, mediaKind } from '../../contract/media.js';
import { ownValue, type JsonSchema, type ToolSpec, type ToolTable } from '../../contract/table.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import { docResources, docText, fill, guides, type Guide } from './api-docs.js';
import type { Offers } from '../../contract/summary.js';
import { page } from './pages.js';
import type { AppsGate } from './apps-gate.js';

/**
 * What the resource, prompt and completion handlers need of a table, worked out once per table
 * rather than for every connection (a stateless server builds one per request). The prompt
 * texts, which walk every tool, are written on the first prompts request, not at start-up.
 */
interface Prepared {
  fixed: ToolSpec[];
  templates: Compiled[];
  docs: ReturnType<typeof docResources>;
  listed: { uri: string; name: string }[];
  prompts(): Guide[];
}
const preparedTables = new WeakMap<ToolTable, Prepared>();
function prepared(table: ToolTable): Prepared {
  const known = preparedTables.get(table);
  if (known) return known;
  const tools = resourceTools(table);
  const fixed = tools.filter((t) => t.resource?.uri !== undefined);
  const templates = tools.map(compile).filter((c): c is Compiled => c !== undefined);
  const docs = docResources(table);
  let prompts: Guide[] | undefined;
  const made: Prepared = {
    fixed,
    templates,
    docs,
    listed: [...docs.map(({ toolset: _toolset, ...d }) => d), ...fixed.map((t) => ({ uri: t.resource?.uri as string, ...describe(t) }))],
    // guides() gives a prompt per toolset plus the declared ones
    prompts: () => (prompts ??= guides(table)),
  };
  preparedTables.set(table, made);
  return made;
}

/** The operations that are resources or templates. */
const resourceTools = (table: ToolTable): ToolSpec[] => table.tools.filter((t) => t.resource !== undefined);

const describe = (tool: ToolSpec) => ({
  name: tool.name,
  ...(tool.title ? { title: tool.title } : {}),
  description: (tool.description.split(/\n\s*\n/)[0] ?? '').slice(0, 300),
  ...(tool.output ? { mimeType: 'application/json' } : {}),
});

interface Compiled {
  tool: ToolSpec;
  /** Matches the path part; groups in variable order. */
  path: RegExp;
  pathVars: string[];
  queryVars: string[];
}

/** Our templates have one shape: `scheme://literal/{v}/…{?a,b}`; matched by hand (the SDK's matcher refuses query forms). */
function compile(tool: ToolSpec): Compiled | undefined {
  const template = tool.resource?.uriTemplate;
  if (template === undefined) return undefined;
  const [pathPart = '', query] = template.split('{?');
  const pathVars: string[] = [];
  const source = pathPart
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      const m = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      pathVars.push(m[1] as string);
      return '([^/?#]+)';
    })
    .join('');
  const queryVars = query ? query.replace(/\}$/, '').split(',') : [];
  return { tool, path: new RegExp(`^${source}$`), pathVars, queryVars };
}

/** The tool arguments a URI gives, or undefined when it does not match; values percent-decoded, numbers and booleans by the schema. */
function argumentsOf(compiled: Compiled, uri: string): Record<string, unknown> | undefined {
  const question = uri.indexOf('?');
  const path = question >= 0 ? uri.slice(0, question) : uri;
  const m = compiled.path.exec(path);
  if (!m) return undefined;
  const args = new Map<string, unknown>();
  const set = (variable: string, text: string) => {
    const arg = ownValue(compiled.tool.resource?.variables, variable) ?? variable;
    const type = argumentSchema(compiled.tool, arg)?.type;
    const wanted = Array.isArray(type) ? type.find((t) => t !== 'null') : type;
    // an integer's digits beyond 2^53 stay text, which a parameter sends exactly (exact-integers.ts)
    const exact = wanted === 'number' || text.includes('.') || Number.isSafeInteger(Number(text));
    if ((wanted === 'integer' || wanted === 'number') && /^-?\d+(\.\d+)?$/.test(text) && exact) args.set(arg, Number(text));
    else if (wanted === 'boolean' && /^(true|false)$/.test(text)) args.set(arg, text === 'true');
    else if (wanted === 'array') args.set(arg, text.split(','));
    else args.set(arg, text);
  };
  try {
    compiled.pathVars.forEach((variable, i) => set(variable, decodeURIComponent(m[i + 1] as string)));
  } catch {
    return undefined; // a malformed escape
  }
  if (question >= 0) {
    for (const [key, value] of new URLSearchParams(uri.slice(question + 1))) {
      if (!compiled.queryVars.includes(key))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${uri}: "${key}" is not a variable of ${compiled.tool.resource?.uriTemplate}`,
        );
      set(key, value);
    }
  }
  // fromEntries defines each key as the object's own, `__proto__` too
  return Object.fromEntries(args);
}

/** The input schema of one of a tool's arguments. */
const argumentSchema = (tool: ToolSpec, arg: string): JsonSchema | undefined =>
  ownValue(tool.inputSchema.properties as Record<string, JsonSchema> | undefined, arg);

/** resources/read's contents for an upstream answer: text for characters, base64 for bytes. */
function contentsOf(uri: string, contentType: string, bytes: Uint8Array): ReadResourceResult['contents'][number] {
  const mimeType = contentType.split(';')[0]?.trim() || 'application/octet-stream';
  if (contentType === '' || isTextual(mediaKind(contentType))) return { uri, mimeType, text: new TextDecoder().decode(bytes) };
  return { uri, mimeType, blob: Buffer.from(bytes).toString('base64') };
}

/**
 * The JSON-RPC error for a read the upstream refused, by its status (docs/tools.md, "Route
 * mapping"): 404 and 410, the protocol's resource-not-found, whose data is the
 * URI alone so that clients recognise it; 400 and 422, invalid params; any other, an internal
 * error, worded for credentials on 401 and 403. The others' data: the URI, status and excerpt.
 */
function readError(uri: string, refused: UpstreamRefusal): ProtocolError {
  const { status, statusText, label, excerpt } = refused;
  const upstream = `upstream ${status}${statusText ? ` ${statusText}` : ''} from ${label}${excerpt ? `: ${excerpt}` : ''}`;
  if (status === 404 || status === 410) return new ResourceNotFoundError(uri, `Resource not found: ${uri}: ${upstream}`);
  const [code, lead] =
    status === 400 || status === 422
      ? [ProtocolErrorCode.InvalidParams, `The upstream refused the arguments of ${uri}`]
      : status === 401
        ? [ProtocolErrorCode.InternalError, `The upstream refused the server's credentials reading ${uri} (check them)`]
        : status === 403
          ? [ProtocolErrorCode.InternalError, `The server's credentials lack the permission to read ${uri}`]
          : [ProtocolErrorCode.InternalError, `Could not read ${uri}`];
  return new ProtocolError(code, `${lead}: ${upstream}`, { uri, status, excerpt });
}

/** What the resource handlers of one instance read: the table's prepared resources and the server's ways. */
interface ResourceServing {
  table: ToolTable;
  prepared: Prepared;
  executor: Executor;
  hooks: Hooks;
  credentialsOf: (headers: Headers | undefined) => RequestCredentials;
  visible: (tool: ToolSpec, auth: AuthInfo | undefined) => boolean;
  needsConfirmation: (tool: ToolSpec) => boolean;
  /** MCP Apps' views, listed and read for the clients that declare the extension. */
  apps: AppsGate | undefined;
}

/** Adds the resource, prompt and completion handlers to a server that advertises them (server-instances.ts). */
export function serveResources(
  server: Server,
  table: ToolTable,
  /** What the server advertises (summary.ts): prompts and completions are answered when it does. */
  offers: Pick<Offers, 'prompts' | 'completions'>,
  executor: Executor,
  hooks: Hooks,
  credentialsOf: (headers: Headers | undefined) => RequestCredentials,
  /** Whether the caller's token allows the operation behind a resource (OAuth scopes); unset: all do. */
  visible: (tool: ToolSpec, auth: AuthInfo | undefined) => boolean = () => true,
  /** Whether the operation waits for the user's yes (confirm.ts): a read cannot ask, so it is refused. */
  needsConfirmation: (tool: ToolSpec) => boolean = () => false,
  apps?: AppsGate,
): void {
  const serving: ResourceServing = { table, prepared: prepared(table), executor, hooks, credentialsOf, visible, needsConfirmation, apps };
  serveResourceLists(server, serving);
  server.setRequestHandler('resources/read', (request, ctx) => readResource(server, serving, request.params.uri, ctx));
  if (offers.prompts) servePrompts(server, serving.prepared.prompts);
  if (offers.completions) server.setRequestHandler('completion/complete', (request, ctx) => complete(serving, request.params, ctx));
}

/** resources/list (the documentation, then the fixed resources) and resources/templates/list, as the caller's scopes allow. */
function serveResourceLists(server: Server, { prepared: { fixed, templates, listed }, visible, apps }: ResourceServing): void {
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const auth = ctx.http?.authInfo;
    const hidden = new Set(fixed.filter((t) => !visible(t, auth)).map((t) => t.resource?.uri));
    const { tools: resources, nextCursor } = page(hidden.size ? listed.filter((r) => !hidden.has(r.uri)) : listed, request.params?.cursor);
    // The views close the last page, for the clients that render them.
    const views = nextCursor ? undefined : await apps?.viewsFor(server, ctx);
    return { resources: views ? [...resources, ...views.resources()] : resources, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/templates/list', (_request, ctx) => ({
    resourceTemplates: templates
      .filter((c) => visible(c.tool, ctx.http?.authInfo))
      .map((c) => ({ uriTemplate: c.tool.resource?.uriTemplate as string, ...describe(c.tool) })),
  }));
}

/** resources/read: a documentation page, or the operation behind the URI called with the arguments it gives. */
async function readResource(server: Server, serving: ResourceServing, uri: string, ctx: ServerContext): Promise<ReadResourceResult> {
  const { table, prepared, executor, credentialsOf, visible, needsConfirmation } = serving;
  const doc = prepared.docs.find((d) => d.uri === uri);
  if (doc) return { contents: [{ uri, mimeType: doc.mimeType, text: docText(table, doc) }] };
  const view = uri.startsWith('ui://') ? (await serving.apps?.viewsFor(server, ctx))?.read(uri) : undefined;
  if (view) return view;
  const { tool, args } = operationAt(prepared, uri);
  // An operation the caller's scopes do not allow is as absent as an unknown one.
  if (!tool || !args || !visible(tool, ctx.http?.authInfo)) throw new ResourceNotFoundError(uri);
  if (needsConfirmation(tool)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${uri} is read by ${tool.name}, which needs the user's confirmation: a read does not ask, so nothing was sent; call the tool ${tool.name} instead, which asks`,
    );
  }
  const outcome = await executor.read(tool, args, ctx.mcpReq.signal, credentialsOf(ctx.http?.req?.headers), {
    caller: ctx.http?.authInfo,
  });
  return { contents: [contentsOfOutcome(uri, outcome)] };
}

/** The operation a URI reads, and its arguments: a fixed resource's, or the first template's that matches. */
function operationAt(prepared: Prepared, uri: string): { tool?: ToolSpec; args?: Record<string, unknown> } {
  const tool = prepared.fixed.find((t) => t.resource?.uri === uri);
  if (tool) return { tool, args: {} };
  for (const compiled of prepared.templates) {
    const args = argumentsOf(compiled, uri);
    if (args) return { tool: compiled.tool, args };
  }
  return {};
}

/** The contents of a read, or the JSON-RPC error it ends in: a resource's failure is the request's (unlike a tool's). */
function contentsOfOutcome(uri: string, outcome: Awaited<ReturnType<Executor['read']>>): ReadResourceResult['contents'][number] {
  if ('failure' in outcome) {
    const text = outcome.failure.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
    throw new ProtocolError(/^Invalid arguments/.test(text) ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, text);
  }
  if ('refused' in outcome) throw readError(uri, outcome.refused);
  const { answer } = outcome;
  if (answer.truncated) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${answer.label} answered more than --max-response-bytes; raise it to read this resource`,
    );
  }
  return contentsOf(uri, answer.contentType, answer.bytes);
}

/** prompts/list and prompts/get: the guides, filled with the arguments given. */
function servePrompts(server: Server, prompts: () => Guide[]): void {
  server.setRequestHandler('prompts/list', () => ({
    prompts: prompts().map(({ template: _template, enums: _enums, ...p }) => p),
  }));
  server.setRequestHandler('prompts/get', (request) => {
    const prompt = prompts().find((p) => p.name === request.params.name);
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named ${JSON.stringify(request.params.name)}`);
    const text = fill(prompt, request.params.arguments ?? {});
    if (typeof text !== 'string')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${prompt.name} needs the argument "${text.missing}"`);
    return {
      ...(prompt.description ? { description: prompt.description } : {}),
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
    };
  });
}

type CompleteParams = CompleteRequest['params'];

/** completion/complete: the values the table knows (enums, examples) and the user's hook adds, that begin with what was typed. */
async function complete(serving: ResourceServing, params: CompleteParams, ctx: ServerContext) {
  const { ref, argument } = params;
  const known =
    ref.type === 'ref/prompt'
      ? promptValues(serving.prepared, ref.name, argument.name)
      : templateValues(serving, ref.uri, argument.name, ctx);
  // A template the caller's scopes hide completes nothing, the user's hook included.
  if (known === undefined) return { completion: { values: [], total: 0, hasMore: false } };
  const values = new Set<string>(known);
  const own = await serving.hooks.complete?.({
    ...(ref.type === 'ref/resource' ? { uriTemplate: ref.uri } : { prompt: ref.name }),
    argument: argument.name,
    value: argument.value,
    ...(params.context?.arguments ? { context: params.context.arguments } : {}),
  });
  for (const v of own ?? []) values.add(v);
  const matching = [...values].filter((v) => v.toLowerCase().startsWith(argument.value.toLowerCase()));
  return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 } };
}

/** The values a prompt's argument takes (the enum guides() found for it). */
function promptValues(prepared: Prepared, prompt: string, argument: string): string[] {
  return [
    ...(prepared
      .prompts()
      .find((p) => p.name === prompt)
      ?.enums?.get(argument) ?? []),
  ];
}

/** The values a template's variable may take (its argument's enum and examples, the route's examples); undefined when the caller may not see the template. */
function templateValues(serving: ResourceServing, uriTemplate: string, variable: string, ctx: ServerContext): string[] | undefined {
  const compiled = serving.prepared.templates.find((c) => c.tool.resource?.uriTemplate === uriTemplate);
  if (compiled && !serving.visible(compiled.tool, ctx.http?.authInfo)) return undefined;
  const arg = ownValue(compiled?.tool.resource?.variables, variable);
  const schema = compiled && arg !== undefined ? argumentSchema(compiled.tool, arg) : undefined;
  const items = schema?.type === 'array' ? (schema.items as JsonSchema | undefined) : schema;
  const examples = ownValue(compiled?.tool.resource?.examples, variable) ?? [];
  const values: string[] = [];
  for (const v of [...((items?.enum as unknown[]) ?? []), ...((items?.examples as unknown[]) ?? []), ...examples])
    if (typeof v === 'string' || typeof v === 'number') values.push(String(v));
  return values;
}
