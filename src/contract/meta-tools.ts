// The three meta-tools of dynamic mode as clients list them: the generator measures the listing
// with them, the server runtime lists and dispatches them (src/runtime/dynamic.ts).

import type { ListedTool } from './profiles.js';
import type { ToolTable } from './table.js';

export const SEARCH = 'search_operations';
export const DESCRIBE = 'describe_operation';
export const INVOKE = 'invoke_operation';

/** The longest query search_operations takes, and the most distinct words it searches for. */
export const QUERY_MAX_CHARS = 1_000;
export const QUERY_MAX_WORDS = 32;

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
          query: {
            type: 'string',
            maxLength: QUERY_MAX_CHARS,
            description: `Words to look for in names, paths, summaries and tags, e.g. "list repository issues" (at most ${QUERY_MAX_WORDS} distinct words).`,
          },
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
