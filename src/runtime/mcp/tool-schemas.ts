// A tool's schemas with the shared `$defs` they reference attached: as tools/list shows them
// (large ones in part, Listing) and whole, as arguments are checked. Made once per tool.

import { defGraph } from '../../contract/def-refs.js';
import { stubSchema, type JsonSchema, type Listing, type ToolSpec, type ToolTable } from '../../contract/table.js';

export interface ToolSchemas {
  /** The inputSchema as listed, with its `$defs`. */
  listedInput(tool: ToolSpec): JsonSchema;
  /** The outputSchema as listed, with its `$defs`, when the spec documents a JSON answer. */
  listedOutput(tool: ToolSpec): JsonSchema | undefined;
  /** The inputSchema with every `$defs` entry it references, also where the listing shows it in part. */
  wholeInput(tool: ToolSpec): JsonSchema;
  /** `schema` with every `$defs` entry it reaches attached in full. */
  withReachedDefs(schema: JsonSchema): JsonSchema;
}

export function toolSchemas(table: ToolTable): ToolSchemas {
  const withDefs = (schema: JsonSchema, defs: readonly string[], stubs: readonly string[] = []): JsonSchema =>
    defs.length || stubs.length
      ? {
          ...schema,
          $defs: Object.fromEntries([...defs.map((k) => [k, table.defs[k] ?? {}]), ...stubs.map((k) => [k, stubSchema(table.defs[k])])]),
        }
      : schema;
  const graph = defGraph(table.defs);
  const withReachedDefs = (schema: JsonSchema) => withDefs(schema, graph.reachedFrom(schema));
  const listed = (schema: JsonSchema, holder: { listing?: Listing }) =>
    holder.listing ? withDefs(schema, holder.listing.defs, holder.listing.stubs) : withReachedDefs(schema);
  const listedInput = perTool((tool) => listed(tool.inputSchema, tool));
  return {
    withReachedDefs,
    listedInput,
    listedOutput: perTool((tool) => (tool.output ? listed(tool.output.schema, tool.output) : undefined)),
    // Without a listing, the listed schema is the whole one: the same object serves both.
    wholeInput: (tool) => (tool.listing ? withReachedDefs(tool.inputSchema) : listedInput(tool)),
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
