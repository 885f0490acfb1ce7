// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865), for a client that declares it:
// each tool whose answer the spec documents gets a view (`_meta.ui.resourceUri`), the views
// are listed and read as `ui://mcp-gen/<kind>` resources, and a result says its view what the
// item schema's columns are, where the list is in the answer and the next page's arguments.
// Loaded by mcp/apps-gate.ts only when such a client comes.

import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/server';
import { ownValue, type JsonSchema, type ToolSpec, type ToolTable } from '../../contract/table.js';
import { EXECUTE, INVOKE } from '../../contract/meta-tools.js';
import { answerBudget, nextOfWhole, type NextHow } from '../call/answer/answer-budget.js';
import { VIEW_KINDS, VIEW_MIME_TYPE, viewPage, type ViewKind } from './pages.js';

const VIEW_URI = 'ui://mcp-gen/';
/** The most columns a table starts with: more make it unreadable in a conversation's frame. */
const MAX_COLUMNS = 8;
/** Properties a person looks for first in a row, when the item schema has them. */
const FIRST_COLUMNS = ['id', 'number', 'name', 'title', 'login', 'state', 'status', 'email', 'created_at', 'updated_at'];

/** A view's resource metadata: no origin to reach (ext-apps' McpUiResourceCsp, empty lists). */
const VIEW_RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } };

interface Column {
  key: string;
  title?: string;
  description?: string;
}

/** The call a result answers: its arguments, and the meta-tool it went through (invoke_operation), if any. */
interface ViewCall {
  args: Record<string, unknown>;
  via?: string;
}

export interface Views {
  /** The listed tools, those with a view carrying its resource URI. */
  withViews(listed: Tool[]): Tool[];
  /**
   * A tool's result with what its view needs to draw it: the columns of a table, the answer's
   * property that holds its list, and the next page's arguments with, for an operation run
   * through invoke_operation, how to call it again.
   */
  withViewData(result: CallToolResult, tool: ToolSpec, call: ViewCall): CallToolResult;
  /**
   * An execute result, whose program's value is structuredContent's `result`, with that said to
   * its view, and the columns of the one operation the program read (`ran`) when its rows are
   * that operation's items. A program is not called again: its table has no next page.
   */
  withProgramData(result: CallToolResult, ran: ReadonlySet<ToolSpec>): CallToolResult;
  /** The views as resources (resources/list). */
  resources(): Resource[];
  /** A view's page (resources/read), or undefined for a URI that is not one. */
  read(uri: string): ReadResourceResult | undefined;
}

export function createViews(table: ToolTable): Views {
  const byName = new Map(table.tools.map((t) => [t.name, t]));
  const kinds = new Map<string, ViewKind | undefined>();
  const kindOf = (tool: ToolSpec) => {
    if (!kinds.has(tool.name)) kinds.set(tool.name, viewKind(tool, table));
    return kinds.get(tool.name);
  };
  const pages = new Map<string, string>();
  return {
    withViews: (listed) =>
      listed.map((tool) => {
        // invoke_operation shows the view of whichever operation it ran, execute a table when its
        // program returns a list of objects: the page draws by the data.
        const spec = byName.get(tool.name);
        const kind = tool.name === INVOKE ? 'card' : tool.name === EXECUTE ? 'table' : spec && kindOf(spec);
        return kind ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: `${VIEW_URI}${kind}` } } } : tool;
      }),
    withViewData: (result, tool, { args, via }) => {
      if (kindOf(tool) !== 'table' || !tool.output) return result;
      const list = listProperty(tool, table);
      const next = result.isError ? undefined : nextArguments(result, tool, args);
      const view = {
        columns: columnsOf(itemSchema(tool, table), table),
        wrapped: tool.output.wrap,
        ...(list !== undefined ? { list } : {}),
        ...(next ? { next } : {}),
        ...(via ? { via: { tool: via, name: tool.name } } : {}),
      };
      return { ...result, _meta: { ...result._meta, 'mcp-gen/view': view } };
    },
    withProgramData: (result, ran) => {
      const columns = programColumns(result, ran, table);
      const view = { wrapped: true, program: true, ...(columns ? { columns } : {}) };
      return { ...result, _meta: { ...result._meta, 'mcp-gen/view': view } };
    },
    resources: () =>
      VIEW_KINDS.map((kind) => ({
        uri: `${VIEW_URI}${kind}`,
        name: `${kind}-view`,
        title: `The ${kind} view of an answer`,
        mimeType: VIEW_MIME_TYPE,
        _meta: VIEW_RESOURCE_META,
      })),
    read: (uri) => {
      const kind = VIEW_KINDS.find((k) => uri === `${VIEW_URI}${k}`);
      if (!kind) return undefined;
      const text = pages.get(kind) ?? viewPage(kind);
      pages.set(kind, text);
      return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text, _meta: VIEW_RESOURCE_META }] };
    },
  };
}

/**
 * The view of a tool's answers: a table for a list of objects (or a paginated answer's list), a
 * card for an object, a preview for bytes (an image or other), none when the spec documents neither.
 */
function viewKind(tool: ToolSpec, table: ToolTable): ViewKind | undefined {
  if (tool.apps === false) return undefined;
  if (!tool.output) return tool.binaryAnswer !== undefined ? 'image' : undefined;
  const answer = answerSchema(tool.output.schema, table, tool.output.wrap);
  if (answer === undefined) return undefined;
  if (typeOf(answer) === 'array') return isObjectList(answer, table) ? 'table' : undefined;
  if (typeOf(answer) !== 'object') return undefined;
  return listProperty(tool, table) !== undefined ? 'table' : 'card';
}

/**
 * The property of a paginated tool's object answer that holds its list (Stripe's `data`, a
 * search's `items`): the one the cursor is read from, else its only list of objects.
 */
function listProperty(tool: ToolSpec, table: ToolTable): string | undefined {
  const answer = tool.output && answerSchema(tool.output.schema, table, tool.output.wrap);
  if (!tool.pagination || answer === undefined || typeOf(answer) !== 'object') return undefined;
  const lists = Object.entries(propertiesOf(answer))
    .filter(([, p]) => isObjectList(resolved(p, table), table))
    .map(([key]) => key);
  const cursorList = tool.pagination.style === 'cursor' ? /^([^.]+)\.-1\./.exec(tool.pagination.next)?.[1] : undefined;
  if (cursorList !== undefined && lists.includes(cursorList)) return cursorList;
  return lists.length === 1 ? lists[0] : undefined;
}

const isObjectList = (schema: JsonSchema | undefined, table: ToolTable) =>
  schema !== undefined && typeOf(schema) === 'array' && typeOf(resolved(schema.items, table) ?? {}) === 'object';

/**
 * The next page's arguments: the answer shaping's, when it cut the answer or read a Link header
 * (answer-budget.ts); else the answer's own cursor. A next page only reachable by URL has none.
 */
function nextArguments(result: CallToolResult, tool: ToolSpec, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const shaped = (result._meta?.['mcp-gen/answer'] as { nextPage?: NextHow } | undefined)?.nextPage;
  const how = shaped ?? nextOfWhole(answerBudget(tool, args, 0), answerOf(result, tool));
  return how && 'arguments' in how ? how.arguments : undefined;
}

/** The answer a result carries: structuredContent (unwrapped), else its text's JSON. */
function answerOf(result: CallToolResult, tool: ToolSpec): unknown {
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (typeof structured === 'object' && structured !== null) return tool.output?.wrap ? structured.result : structured;
  const text = result.content.find((block) => block.type === 'text');
  try {
    return text?.type === 'text' ? JSON.parse(text.text) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer's schema: a wrapped answer (not an object) is structuredContent's `result`. */
function answerSchema(schema: JsonSchema, table: ToolTable, wrap: boolean): JsonSchema | undefined {
  return resolved(wrap ? propertiesOf(schema).result : schema, table);
}

/** The schema of the table's rows: the answer's items, or its list property's. */
function itemSchema(tool: ToolSpec, table: ToolTable): JsonSchema | undefined {
  if (!tool.output) return undefined;
  const answer = answerSchema(tool.output.schema, table, tool.output.wrap);
  const list = listProperty(tool, table);
  return resolved((list === undefined ? answer : resolved(propertiesOf(answer)[list], table))?.items, table);
}

const propertiesOf = (schema: JsonSchema | undefined): Record<string, unknown> =>
  typeof schema?.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};

/**
 * A program's table columns, when it read one operation only and every key of its rows is a
 * property of that operation's items: the item schema's columns the rows have, titled as its table's.
 */
function programColumns(result: CallToolResult, ran: ReadonlySet<ToolSpec>, table: ToolTable): Column[] | undefined {
  const [tool] = ran;
  const rows = (result.structuredContent as { result?: unknown } | undefined)?.result;
  if (ran.size !== 1 || tool === undefined || !Array.isArray(rows) || rows.length === 0) return undefined;
  const item = itemSchema(tool, table);
  const properties = propertiesOf(item);
  const keys = new Set(rows.flatMap((row) => (typeof row === 'object' && row !== null ? Object.keys(row) : [''])));
  if (item === undefined || ![...keys].every((key) => Object.hasOwn(properties, key))) return undefined;
  const columns = columnsOf(item, table, (key) => keys.has(key));
  return columns.length > 0 ? columns : undefined;
}

/** The item schema's scalar properties, the ones people look for first leading, with their titles and descriptions. */
function columnsOf(item: JsonSchema | undefined, table: ToolTable, shown: (key: string) => boolean = () => true): Column[] {
  const properties = Object.entries(propertiesOf(item)).filter(([key, p]) => shown(key) && isScalarSchema(resolved(p, table)));
  const rank = (key: string) => (FIRST_COLUMNS.includes(key) ? FIRST_COLUMNS.indexOf(key) : FIRST_COLUMNS.length);
  return properties
    .map(([key, p], at) => ({ key, p: resolved(p, table) ?? {}, at }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.at - b.at)
    .slice(0, MAX_COLUMNS)
    .map(({ key, p }) => ({
      key,
      ...(typeof p.title === 'string' ? { title: p.title } : {}),
      ...(typeof p.description === 'string' ? { description: p.description.slice(0, 300) } : {}),
    }));
}

/** A schema with its `#/$defs/` reference followed (once: the table's defs are flat). */
function resolved(schema: unknown, table: ToolTable): JsonSchema | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const ref = (schema as JsonSchema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return ownValue(table.defs, ref.slice('#/$defs/'.length));
  return schema as JsonSchema;
}

function typeOf(schema: JsonSchema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  if (schema.items !== undefined) return 'array';
  return schema.properties !== undefined ? 'object' : undefined;
}

const isScalarSchema = (schema: JsonSchema | undefined) =>
  schema !== undefined && ['string', 'number', 'integer', 'boolean'].includes(typeOf(schema) ?? '');
