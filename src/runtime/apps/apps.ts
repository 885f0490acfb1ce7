// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865), for a client that declares it:
// each tool whose answer the spec documents gets a view (`_meta.ui.resourceUri`), the views
// are listed and read as `ui://mcp-gen/<kind>` resources, and a result says its view what the
// item schema's columns are. Loaded by mcp/apps-gate.ts only when such a client comes.

import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/server';
import { ownValue, type JsonSchema, type ToolSpec, type ToolTable } from '../../contract/table.js';
import { EXECUTE, INVOKE } from '../../contract/meta-tools.js';
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

export interface Views {
  /** The listed tools, those with a view carrying its resource URI. */
  withViews(listed: Tool[]): Tool[];
  /**
   * A tool's result with what its view needs to draw it: the columns of a table and, for an
   * operation run through invoke_operation, how to call it again (the view's next page).
   */
  withViewData(result: CallToolResult, tool: ToolSpec, via?: string): CallToolResult;
  /** An execute result, whose program's value is structuredContent's `result`, with that said to its view. */
  withProgramData(result: CallToolResult): CallToolResult;
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
    withViewData: (result, tool, via) => {
      if (kindOf(tool) !== 'table' || !tool.output) return result;
      const view = {
        columns: columnsOf(itemSchema(tool.output.schema, table, tool.output.wrap), table),
        wrapped: tool.output.wrap,
        ...(via ? { via: { tool: via, name: tool.name } } : {}),
      };
      return { ...result, _meta: { ...result._meta, 'mcp-gen/view': view } };
    },
    withProgramData: (result) => ({ ...result, _meta: { ...result._meta, 'mcp-gen/view': { wrapped: true } } }),
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

/** The view of a tool's answers: a table for a list of objects, a card for an object, none when the spec documents no JSON answer. */
function viewKind(tool: ToolSpec, table: ToolTable): ViewKind | undefined {
  if (tool.apps === false || !tool.output) return undefined;
  const answer = answerSchema(tool.output.schema, table, tool.output.wrap);
  if (answer === undefined) return undefined;
  if (typeOf(answer) === 'array') return typeOf(resolved(answer.items, table) ?? {}) === 'object' ? 'table' : undefined;
  return typeOf(answer) === 'object' ? 'card' : undefined;
}

/** The answer's schema: a wrapped answer (not an object) is structuredContent's `result`. */
function answerSchema(schema: JsonSchema, table: ToolTable, wrap: boolean): JsonSchema | undefined {
  return resolved(wrap ? propertiesOf(schema).result : schema, table);
}

const itemSchema = (schema: JsonSchema, table: ToolTable, wrap: boolean) => resolved(answerSchema(schema, table, wrap)?.items, table);

const propertiesOf = (schema: JsonSchema | undefined): Record<string, unknown> =>
  typeof schema?.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};

/** The item schema's scalar properties, the ones people look for first leading, with their titles and descriptions. */
function columnsOf(item: JsonSchema | undefined, table: ToolTable): Column[] {
  const properties = Object.entries(propertiesOf(item)).filter(([, p]) => isScalarSchema(resolved(p, table)));
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
