// Calls that wait for the user's yes before anything is sent (--confirm, and an operation's own
// `confirm` in tools.json). The question shows the request that would be made, never a secret,
// and goes through the protocol as links.ts's does: an input-required answer, which the SDK
// turns into a 2026-07-28 input-required result or, on a 2025 session, an elicitation/create
// (form mode). A client that cannot be asked gets a tool error saying what would have been sent
// and how to allow it. The confirmation guards against the model, not the client: the client is
// the user's own, and answers for them.

import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { ConfirmSetting } from '../start/config.js';
import { toolError } from '../mcp/output.js';
import { needsConfirmation } from '../start/optional-features.js';
import type { ToolSpec } from '../../contract/table.js';
import { withUnseenEscaped } from '../../contract/visible-text.js';

const VALUE_CHARS = 80;
const BODY_CHARS = 300;
/** A body field's value in a body too long to show whole: enough for an id, a role, a flag. */
const FIELD_CHARS = 40;
/** Body fields listed at most: the message is cut at MESSAGE_CHARS anyway. */
const MAX_FIELDS = 200;
const MESSAGE_CHARS = 1_000;

/** A value on one line, within `max` characters, with the known secrets taken out before it is cut, and nothing that hides or reorders text. */
function shown(value: unknown, max: number, redact: (text: string) => string): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  // Redacted before the cut: a cut secret would no longer be recognised.
  return cut(withUnseenEscaped(redact(text).replace(/[\x00-\x1f\x7f]+/g, ' ')), max);
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The request a call would make, as a person reads it: method, path with its arguments filled,
 * query arguments (a querystring argument as it was given) and the body. Credentials and static headers are never arguments, so never
 * here; a query argument where a security scheme puts its credential (`credentialQuery`, as a
 * spec may also declare it as a parameter) shows `***`, and `redact` takes out the values of
 * the secrets in use wherever they appear. Names decide nothing: a field called `auth_level`
 * is data the user has to see.
 */
export function describeRequest(
  tool: ToolSpec,
  args: Record<string, unknown>,
  redact: (text: string) => string,
  credentialQuery: ReadonlySet<string> = new Set(),
): string {
  const given = (arg: string) => Object.hasOwn(args, arg) && args[arg] !== undefined && args[arg] !== null;
  const path = tool.http.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const param = tool.http.params.find((p) => p.in === 'path' && p.name === name);
    return param !== undefined && given(param.arg) ? encodeURIComponent(shown(args[param.arg], VALUE_CHARS, redact)) : whole;
  });
  // an OAS 3.2 querystring argument is the whole query: the user sees it as given
  const query = tool.http.params
    .filter((p) => (p.in === 'query' || p.in === 'querystring') && given(p.arg))
    .map((p) =>
      p.in === 'querystring'
        ? shown(args[p.arg], VALUE_CHARS, redact)
        : `${p.name}=${credentialQuery.has(p.name) ? '***' : shown(args[p.arg], VALUE_CHARS, redact)}`,
    );
  const lines = [`${tool.http.method} ${path}${query.length ? `?${query.join('&')}` : ''}`];
  const body = tool.http.body?.arg;
  if (body !== undefined && given(body)) lines.push(shownBody(args[body], redact));
  return cut(lines.join('\n'), MESSAGE_CHARS);
}

/**
 * The body's line: whole when it is short; else every field (nested ones by their path), the
 * short values first and the long ones cut, so that a long field cannot push a decisive one
 * (`role: "admin"`) out of sight.
 */
function shownBody(body: unknown, redact: (text: string) => string): string {
  const whole = shown(body, Number.POSITIVE_INFINITY, redact);
  if (whole.length <= BODY_CHARS || !isPlainObject(body)) return `body: ${cut(whole, BODY_CHARS)}`;
  const fields = fieldsOf(body, '').map(([name, value]) => ({
    name: shown(name, VALUE_CHARS, redact),
    json: JSON.stringify(value) ?? 'null',
  }));
  const short = (field: { json: string }) => field.json.length <= FIELD_CHARS;
  const ordered = [...fields.filter(short), ...fields.filter((field) => !short(field))];
  return `body (every field, long values cut): ${ordered.map(({ name, json }) => `${name}: ${shown(json, FIELD_CHARS, redact)}`).join(', ')}`;
}

/** The leaves of a JSON object with their dotted paths, arrays as leaves, at most MAX_FIELDS. */
function fieldsOf(value: Record<string, unknown>, prefix: string, found: [string, unknown][] = []): [string, unknown][] {
  for (const [key, item] of Object.entries(value)) {
    if (found.length >= MAX_FIELDS) break;
    if (isPlainObject(item) && Object.keys(item).length > 0) fieldsOf(item, `${prefix}${key}.`, found);
    else found.push([`${prefix}${key}`, item]);
  }
  return found;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a question needs of the request it came in. */
export interface Asking {
  ctx: ServerContext;
  /** The client's capabilities: per request (2026-07-28) or from initialize (2025 sessions). */
  capabilities: ClientCapabilities | undefined;
  /** The caller's own credentials (--auth-from-headers), taken out of the question too. */
  credentials: RequestCredentials;
}

export interface Confirmations {
  /** Whether a call of `tool` waits for the user's yes. */
  needed(tool: ToolSpec): boolean;
  /**
   * Before a tools/call or an invoke_operation: undefined when the call may go (no question, or
   * the user said yes); else what to answer instead: the question, or why nothing was sent.
   */
  before(tool: ToolSpec, args: Record<string, unknown>, asking: Asking): Promise<CallToolResult | InputRequiredResult | undefined>;
  /**
   * Before an api call of a code-mode program, which cannot return a question halfway: asks the
   * client directly where the connection allows it (a 2025 session); resolves on yes, else
   * throws an Error the program sees, nothing sent.
   */
  inProgram(tool: ToolSpec, args: Record<string, unknown>, asking: Asking, program: ProgramCall): Promise<void>;
  /** `invoke` through the same questions (confirmedInvoke): invoke_operation's and a program's way to an operation. */
  guard(asking: () => Asking, invoke: Invoke): Invoke;
  /** The question a result of a guarded invoke stands for (questionOf). */
  questionOf(result: CallToolResult): InputRequiredResult | undefined;
}

/** The key of the question in inputRequests and, on the way back, inputResponses. */
const KEY = 'confirm';
const REQUESTED_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Send this request', description: 'Tick to let the request go to the API' } },
  required: ['confirm'],
};

/** A call's arguments as the executor checks them first: what it would send, or why it would send nothing. */
export type CheckCall = (tool: ToolSpec, args: Record<string, unknown>) => Promise<{ args: Record<string, unknown> } | { problem: string }>;

/**
 * `credentialQuery`: the query names where the table's security schemes put credentials.
 * `check`: the executor's argument check, made before the question, so that the user is never
 * asked to approve a call that would then fail its checks.
 */
export function createConfirmations(
  setting: ConfirmSetting,
  redact: (text: string, credentials: RequestCredentials) => string,
  check: CheckCall,
  credentialQuery: ReadonlySet<string>,
): Confirmations {
  const needed = (tool: ToolSpec) => needsConfirmation(tool, setting);
  const requestOf = (tool: ToolSpec, args: Record<string, unknown>, asking: Asking) =>
    describeRequest(tool, args, (text) => redact(text, asking.credentials), credentialQuery);
  const howToAllow = (tool: ToolSpec) =>
    tool.confirm === true
      ? `set "confirm": false for this operation in the mcp-gen config file (toolOverrides) and generate again`
      : `start the server with --confirm none (MCP_CONFIRM), or set "confirm": false for this operation in the mcp-gen config file (toolOverrides) and generate again`;
  const confirmations: Confirmations = {
    needed,
    guard: (asking, invoke) => confirmedInvoke(confirmations, asking, invoke),
    questionOf,
    async before(tool, given, asking) {
      if (!needed(tool)) return undefined;
      const checked = await check(tool, given);
      if ('problem' in checked) return toolError(checked.problem);
      const request = requestOf(tool, checked.args, asking);
      const answer = inputResponse(asking.ctx.mcpReq.inputResponses, KEY);
      if (answer.kind === 'elicit') return saidYes(answer) ? undefined : toolError(refused(tool, request, answer.action));
      if (!asksForms(asking.capabilities)) {
        return toolError(
          `${tool.name} needs the user's confirmation, and this client cannot be asked (${whyNotAsked(asking.capabilities)}): ` +
            `nothing was sent. It would have sent:\n${request}\n` +
            `To allow such calls without asking, ${howToAllow(tool)}.`,
        );
      }
      return inputRequired({
        inputRequests: { [KEY]: inputRequired.elicit({ message: question(tool, request), requestedSchema: REQUESTED_SCHEMA }) },
      });
    },
    async inProgram(tool, given, asking, program) {
      if (!needed(tool)) return;
      const checked = await check(tool, given);
      if ('problem' in checked) throw new Error(checked.problem);
      const request = requestOf(tool, checked.args, asking);
      let answer: { action: string; content?: Record<string, unknown> };
      try {
        if (!asksForms(asking.capabilities)) throw new Error('the client declares no form elicitation');
        if (modernRequest(asking.ctx)) throw new Error('a 2026-07-28 request carries no server-to-client request');
        answer = await program.askPerson((timeout) =>
          asking.ctx.mcpReq.elicitInput(
            { mode: 'form', message: question(tool, request), requestedSchema: REQUESTED_SCHEMA },
            { timeout, signal: asking.ctx.mcpReq.signal },
          ),
        );
      } catch (error) {
        // Said, since a question that was sent may also have timed out or been cancelled.
        const why = String((error as Error)?.message ?? error).slice(0, 200);
        throw new Error(
          `${tool.name} needs the user's confirmation, which a program cannot ask for here (${why}; only a 2025-era session ` +
            `whose client declares form elicitation can be asked mid-program): nothing was sent (${request.split('\n')[0]}). ` +
            `Outside a program the user can be asked: code mode lists an operation as a tool of its own when it is generated ` +
            `with --direct-tools; or, to allow such calls without asking, ${howToAllow(tool)}.`,
        );
      }
      if (!saidYes(answer)) throw new Error(refused(tool, request, answer.action));
    },
  };
  return confirmations;
}

/** A 2026-07-28 request, by its envelope: it has no server-to-client requests (elicitInput would throw). */
function modernRequest(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined || envelope?.[CLIENT_CAPABILITIES_META_KEY] !== undefined;
}

/** Why a client cannot be asked: no capabilities at all means a request without its initialize (a 2025 request without a session). */
function whyNotAsked(capabilities: ClientCapabilities | undefined): string {
  return capabilities === undefined
    ? 'a 2025-era request without a session, as under --stateless, cannot carry a question'
    : 'it declares no form elicitation';
}

/** Form elicitation: `elicitation: {}` counts (the rule before modes), `{ url }` alone does not. */
function asksForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** Accepted with the box ticked: an accept without it is no yes. */
function saidYes(answer: { action: string; content?: Record<string, unknown> }): boolean {
  return answer.action === 'accept' && answer.content?.confirm === true;
}

function question(tool: ToolSpec, request: string): string {
  return `${tool.name} would send this request to the API:\n${request}\nSend it?`;
}

function refused(tool: ToolSpec, request: string, action: string): string {
  const why = action === 'cancel' ? 'The user dismissed the question' : 'The user declined';
  return `${why}: ${tool.name} was not called and nothing was sent (${request.split('\n')[0]}). Do not try again unless the user asks.`;
}

/**
 * How a meta-tool reaches an operation: `program` for a code-mode program's api call, whose
 * answer the program reads whole (--max-answer-bytes is for what reaches the model).
 */
export type Invoke = (tool: ToolSpec, args: Record<string, unknown>, program?: ProgramCall) => Promise<CallToolResult>;

/** What an api call of a code-mode program brings besides its arguments (code-mode.ts makes it). */
export interface ProgramCall {
  /** Waits for a person's answer, within what is left of the program's time for people (`timeoutMs`). */
  askPerson<T>(ask: (timeoutMs: number) => Promise<T>): Promise<T>;
}

/**
 * invoke_operation's and a program's way to an operation, through the same question as a
 * tools/call, so that no mode gets around it. A question travels out of invoke_operation as a
 * stand-in result, which questionOf() turns back.
 */
function confirmedInvoke(confirmations: Confirmations, asking: () => Asking, invoke: Invoke): Invoke {
  return async (tool, args, program) => {
    if (program !== undefined) await confirmations.inProgram(tool, args, asking(), program);
    else {
      const asked = await confirmations.before(tool, args, asking());
      if (asked !== undefined) return carried(asked);
    }
    return invoke(tool, args, program);
  };
}

/** Results that stand for a question, where only a CallToolResult can travel (invoke_operation). */
const questions = new WeakMap<CallToolResult, InputRequiredResult>();

function carried(asked: CallToolResult | InputRequiredResult): CallToolResult {
  if (!isInputRequiredResult(asked)) return asked;
  const standIn = toolError('This call waits for the user to confirm it.');
  questions.set(standIn, asked);
  return standIn;
}

/** The question a stand-in carries, for the tools/call handler to answer with. */
function questionOf(result: CallToolResult): InputRequiredResult | undefined {
  return questions.get(result);
}
