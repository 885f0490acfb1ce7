// Long-running operations, recognised from the spec: an answer 202 Accepted (RFC 9110 §15.3.3)
// whose status URL comes in a Location, Operation-Location or Azure-AsyncOperation header;
// Azure's `x-ms-long-running-operation` (with `x-ms-long-running-operation-options`
// `final-state-via`); Google's Operation resource (`name` + `done`, polled with
// `GET /v1/{name}`); and a Link Object (OAS 3.1.1 §4.8.20) from the 202 answer to a status
// operation. The runtime (src/runtime/long-running/long-running.ts) follows them until they end.

import { followRefs, isObject, type JsonObject } from '../parse/pointer.js';
import { ownValue, type FinalStateVia, type LongRunning, type ToolSpec } from '../contract/table.js';
import { OPERATION_STATUS } from '../contract/meta-tools.js';
import { kindOf } from './media-kinds.js';
import type { Operation } from './operation.js';

const FINAL_STATES: readonly FinalStateVia[] = ['azure-async-operation', 'location', 'operation-location', 'original-uri'];

/** A link from the 202 answer to its status operation, resolved to a tool name once every tool is named. */
export interface StatusLink {
  /** The target's operationId, or `METHOD /path`. */
  target: string;
  /** Tool argument (the target parameter's name) → runtime expression or constant. */
  args: Record<string, string>;
}

/** The operation's long-running behaviour, when its spec shows one; `statusLink` still to be named. */
export function detectLongRunning(
  doc: JsonObject,
  operation: Pick<Operation, 'op' | 'method' | 'path'>,
): { longRunning: LongRunning; statusLink?: StatusLink } | undefined {
  const { op } = operation;
  const responses = isObject(op.responses) ? op.responses : {};
  const accepted = followRefs(doc, responses['202']);
  const azure = op['x-ms-long-running-operation'] === true;
  const statusLink = isObject(accepted) ? statusLinkOf(doc, accepted) : undefined;
  const googleStyle = operation.method.toUpperCase() !== 'GET' && returnsOperation(doc, responses);
  if (!azure && accepted === undefined && !googleStyle) return undefined;
  const longRunning: LongRunning = {};
  const finalStateVia = finalStateOf(op['x-ms-long-running-operation-options']);
  if (finalStateVia) longRunning.finalStateVia = finalStateVia;
  if (googleStyle) longRunning.operation = { statusPath: statusPathOf(operation.path) };
  return { longRunning, ...(statusLink ? { statusLink } : {}) };
}

function finalStateOf(options: unknown): FinalStateVia | undefined {
  const value = isObject(options) ? options['final-state-via'] : undefined;
  return typeof value === 'string' ? FINAL_STATES.find((s) => s === value.toLowerCase()) : undefined;
}

/** The first Link Object of the 202 answer that names an operation, with its parameters. */
function statusLinkOf(doc: JsonObject, accepted: JsonObject): StatusLink | undefined {
  if (!isObject(accepted.links)) return undefined;
  for (const raw of Object.values(accepted.links)) {
    const link = followRefs(doc, raw);
    if (!isObject(link)) continue;
    const target = typeof link.operationId === 'string' ? link.operationId : operationRefKey(link.operationRef);
    if (target === undefined) continue;
    const args: Record<string, string> = {};
    for (const [name, value] of Object.entries(isObject(link.parameters) ? link.parameters : {})) {
      // `path.id` (a parameter named with its location) is the same argument as `id`.
      if (typeof value === 'string') args[name.replace(/^(path|query|header|cookie)\./, '')] = value;
    }
    return { target, args };
  }
  return undefined;
}

function operationRefKey(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/paths\/([^/]+)\/([a-z]+)$/.exec(ref);
  if (!match?.[1] || !match[2]) return undefined;
  return `${match[2].toUpperCase()} ${match[1].replace(/~1/g, '/').replace(/~0/g, '~')}`;
}

/** A 2xx JSON answer shaped like google.longrunning.Operation: `name` and a boolean `done`. */
function returnsOperation(doc: JsonObject, responses: JsonObject): boolean {
  for (const code in responses) {
    if (!code.startsWith('2')) continue;
    const response = followRefs(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    for (const [media, entry] of Object.entries(response.content)) {
      if (kindOf(media) !== 'json' || !isObject(entry)) continue;
      const schema = followRefs(doc, entry.schema);
      const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : undefined;
      const done = properties ? followRefs(doc, properties.done) : undefined;
      if (properties?.name !== undefined && isObject(done) && done.type === 'boolean') return true;
    }
  }
  return false;
}

/**
 * Where an Operation's status is read: Google's `GET /{version}/{name}` (AIP-151), the version
 * being the operation's own first path segment (`/v1/projects/...` → `/v1/{name}`).
 */
function statusPathOf(path: string): string {
  const version = /^\/(v[0-9][^/]*)\//.exec(path)?.[1];
  return version !== undefined ? `/${version}/{name}` : '/{name}';
}

/** What the agent is told about such a tool: the call may end with a handle instead of the result. */
export const LONG_RUNNING_SENTENCE = `Long-running: the server waits for it to finish, or answers a handle for ${OPERATION_STATUS}.`;

/** Each status link's target as a tool name; a link to an operation that is not a tool is dropped. */
export function nameStatusTools(tools: ToolSpec[], links: Map<ToolSpec, StatusLink>): void {
  if (links.size === 0) return;
  const byKey = new Map<string, ToolSpec>();
  for (const t of tools) {
    if (t.operationId) byKey.set(t.operationId, t);
    byKey.set(`${t.http.method} ${t.http.path}`, t);
  }
  for (const [tool, link] of links) {
    const target = byKey.get(link.target);
    if (target !== undefined && target !== tool && tool.longRunning)
      tool.longRunning.statusTool = { name: target.name, args: statusArguments(target, link.args) };
  }
}

/**
 * The link's parameters under the names the status tool takes them by (its argument overrides
 * may rename them), without those the server fills itself (hidden: a call giving one is refused).
 */
function statusArguments(target: ToolSpec, args: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, expression] of Object.entries(args)) {
    const arg = target.http.params.find((p) => p.name === name)?.arg ?? name;
    if (ownValue(target.hidden, arg) === undefined) out[arg] = expression;
  }
  return out;
}
