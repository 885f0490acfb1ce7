// A tool's schemas with the shared `$defs` they reference attached: as tools/list shows them
// (large ones in part, Listing) and whole, as arguments are checked. Made once per tool.

import { stubSchema, type JsonSchema, type Listing, type ToolSpec, type ToolTable } from '../contract/table.js';

export interface ToolSchemas {
  /** The inputSchema as listed, with its `$defs`. */
  listedInput(tool: ToolSpec): JsonSchema;
  /** The outputSchema as listed, with its `$defs`, when the spec documents a JSON answer. */
  listedOutput(tool: ToolSpec): JsonSchema | undefined;
  /** The inputSchema with every `$defs` entry it references, also where the listing shows it in part. */
  wholeInput(tool: ToolSpec): JsonSchema;
  /** `schema` with the table's `defs` attached in full and `stubs` as stubSchema(). */
  withDefs(schema: JsonSchema, defs: string[], stubs?: string[]): JsonSchema;
}

export function toolSchemas(table: ToolTable): ToolSchemas {
  const withDefs = (schema: JsonSchema, defs: string[], stubs: string[] = []): JsonSchema =>
    defs.length || stubs.length
      ? {
          ...schema,
          $defs: Object.fromEntries([...defs.map((k) => [k, table.defs[k] ?? {}]), ...stubs.map((k) => [k, stubSchema(table.defs[k])])]),
        }
      : schema;
  const listed = (schema: JsonSchema, holder: { defs: string[]; listing?: Listing }) =>
    holder.listing ? withDefs(schema, holder.listing.defs, holder.listing.stubs) : withDefs(schema, holder.defs);
  const listedInput = perTool((tool) => listed(tool.inputSchema, tool));
  return {
    withDefs,
    listedInput,
    listedOutput: perTool((tool) => (tool.output ? listed(tool.output.schema, tool.output) : undefined)),
    // Without a listing, the listed schema is the whole one: the same object serves both.
    wholeInput: (tool) => (tool.listing ? withDefs(tool.inputSchema, tool.defs) : listedInput(tool)),
  };
}

/** `make`, called once per tool name. */
export function perTool<T>(make: (tool: ToolSpec) => T): (tool: ToolSpec) => T {
  const cache = new Map<string, T>();
  return (tool) => {
    if (!cache.has(tool.name)) cache.set(tool.name, make(tool));
    return cache.get(tool.name) as T;
  };
}
