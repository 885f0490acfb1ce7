// The three meta-tools of dynamic mode as clients list them: the generator measures the listing
// with them, the server runtime lists and dispatches them (src/runtime/mcp/operation-index.ts).

import type { ListedTool } from './profiles.js';
import type { ToolTable } from './table.js';

export const SEARCH = 'search_operations';
export const SEARCH_API = 'search_api';
export const EXECUTE = 'execute';
/** The longest program execute takes. */
const PROGRAM_MAX_CHARS = 20_000;
export const DESCRIBE = 'describe_operation';
export const INVOKE = 'invoke_operation';
export const OPERATION_STATUS = 'get_operation_status';

/** The longest query search_operations takes, and the most distinct words it searches for. */
export const QUERY_MAX_CHARS = 1_000;
export const QUERY_MAX_WORDS = 32;

/** The words both searches (search_operations, search_api) take. */
const QUERY_ARGUMENT = {
  type: 'string',
  maxLength: QUERY_MAX_CHARS,
  description: `Words to look for in names, paths, summaries and tags, e.g. "list repository issues" (at most ${QUERY_MAX_WORDS} distinct words).`,
};
/** Bounded, so that an unknown name quoted back in the error stays short. */
const OPERATION_NAME = { type: 'string', maxLength: 128, description: 'Operation name.' };

export function metaTools(table: ToolTable): ListedTool[] {
  const api = table.title ?? table.name;
  return [
    {
      name: SEARCH,
      title: `Search ${api} operations`,
      description: `Find operations of the ${api} API (${table.tools.length} in all) by words and tags. Returns names to pass to ${DESCRIBE} and ${INVOKE}.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: QUERY_ARGUMENT,
          tag: { type: 'string', maxLength: 200, description: 'Only operations with this tag.' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Most results to return.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: DESCRIBE,
      title: `Describe a ${api} operation`,
      description: `The full description and input schema of one operation, by the name ${SEARCH} returned.`,
      inputSchema: {
        type: 'object',
        properties: { name: OPERATION_NAME },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: INVOKE,
      title: `Call a ${api} operation`,
      description: `Call one operation with arguments that match the input schema ${DESCRIBE} returned. Makes the real HTTP request.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: OPERATION_NAME,
          arguments: {
            type: 'object',
            description: 'Arguments, as the operation\u2019s input schema describes them.',
            additionalProperties: true,
          },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { openWorldHint: true },
    },
  ];
}

/** What execute's `api` is: a method per operation, or for several APIs an object per namespace (code-mode/declarations.ts). */
function apiShape(table: ToolTable): string {
  const namespaces = Object.keys(table.apis ?? {});
  if (namespaces.length === 0)
    return `\`api\` (one async method per operation, as ${SEARCH_API} declares them, e.g. \`const items = await api.someOperation({ id: 1 })\`)`;
  return `\`api\` (an object per API: ${namespaces.join(', ')}; each with one async method per operation, as ${SEARCH_API} declares them, e.g. \`const items = await api.${namespaces[0]}.someOperation({ id: 1 })\`)`;
}

/**
 * Code mode's two tools: search_api answers operations as TypeScript declarations of `api`;
 * execute runs a short program against `api` in a sandbox and answers only what it returns.
 */
export function codeTools(table: ToolTable): ListedTool[] {
  const api = table.title ?? table.name;
  return [
    {
      name: SEARCH_API,
      title: `Search the ${api} API`,
      description: `Find operations of the ${api} API (${table.tools.length} in all) by words; answers them as TypeScript declarations of the \`api\` object that ${EXECUTE} programs call.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: QUERY_ARGUMENT,
          limit: { type: 'integer', minimum: 1, maximum: 30, default: 8, description: 'Most operations to return.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: EXECUTE,
      title: `Run a program against the ${api} API`,
      description:
        `Runs the body of an async JavaScript function that receives ${apiShape(table)} and returns a JSON value. ` +
        'Call several operations, filter and join their answers, and return only what is needed; console.log output comes back beside the result. ' +
        'No network, files, timers or modules: api is the only way out. Makes real HTTP requests.',
      inputSchema: {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            maxLength: PROGRAM_MAX_CHARS,
            description: 'The function body, e.g. `const r = await api.getThing({ id: 1 }); return r.name;`',
          },
        },
        required: ['code'],
        additionalProperties: false,
      },
      annotations: { openWorldHint: true },
    },
  ];
}

/**
 * The tool that follows a long-running operation past a call's wait, by the handle that call
 * answered; listed only when the table has a long-running operation.
 */
export function operationTools(table: ToolTable): ListedTool[] {
  if (!table.tools.some((t) => t.longRunning !== undefined)) return [];
  return [
    {
      name: OPERATION_STATUS,
      title: 'Status of a long-running operation',
      description:
        'Waits for an operation that a call left running (its answer gave a handle) and answers its result once it has finished, ' +
        'or says that it is still running, with the handle to ask again.',
      inputSchema: {
        type: 'object',
        properties: { handle: { type: 'string', maxLength: 128, description: 'The handle the call answered.' } },
        required: ['handle'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
  ];
}
