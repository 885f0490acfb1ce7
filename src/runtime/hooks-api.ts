// The seam for user code that must survive regeneration: `src/hooks.ts` in the generated
// project implements these (it is created once and never overwritten). `src/tool-types.ts`
// (generated) gives each tool's argument type, so `Hooks<ToolArguments>` lets tsc catch a hook
// for a tool that was renamed or a field that does not exist.

export interface OutgoingRequest<Tool extends string = string> {
  tool: Tool;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

/** Hooks of one tool, typed by its arguments. */
export interface ToolHooks<Args> {
  /** Called with the tool's checked arguments before its request is built; may return others. */
  beforeRequest?(args: Args): Args | void | Promise<Args | void>;
  /** Called with this tool's upstream response, before the global afterResponse. */
  afterResponse?(response: Response, request: OutgoingRequest): Response | void | Promise<Response | void>;
  /** Called with each item of this tool's streamed answer, before the global endsStream: true ends the stream there. */
  endsStream?(item: unknown): boolean;
}

/** Tool name → argument type (src/tool-types.ts: ToolArguments); any tool and any object by default. */
export interface Hooks<Args extends object = Record<string, Record<string, unknown>>> {
  /** Called before each upstream request; may change and return it (e.g. add a header). */
  beforeRequest?(request: OutgoingRequest<Extract<keyof Args, string>>): OutgoingRequest | void | Promise<OutgoingRequest | void>;
  /** Called with each upstream response before it is turned into a tool result. */
  afterResponse?(response: Response, request: OutgoingRequest<Extract<keyof Args, string>>): Response | void | Promise<Response | void>;
  /**
   * Called with each item of a streamed answer (an event `{ data, event, id }`, a JSON Lines
   * record): true ends the stream there (`ended: "terminal"`), the item left out, as a terminal
   * event is. For an end the spec cannot name (`x-mcp-stream-end`): a field inside the data.
   */
  endsStream?(item: unknown, tool: Extract<keyof Args, string>): boolean;
  /** Per-tool hooks, by tool name. */
  tools?: { [Tool in keyof Args]?: ToolHooks<Args[Tool]> };
  /**
   * More suggestions for completion/complete (a resource template variable or a prompt
   * argument), e.g. owners fetched from the API; added to the enum values of the schema.
   */
  complete?(request: CompletionRequest): string[] | undefined | Promise<string[] | undefined>;
}

export interface CompletionRequest {
  /** The resource template being filled, or the prompt. */
  uriTemplate?: string;
  prompt?: string;
  /** The variable or argument, and what the user typed so far. */
  argument: string;
  value: string;
  /** Variables already given. */
  context?: Record<string, string>;
}

/** The hooks of one tool, if the user wrote any (own properties only: a tool may be named "constructor"). */
export function toolHooks(hooks: Hooks, tool: string): ToolHooks<Record<string, unknown>> | undefined {
  const all = hooks.tools as Record<string, ToolHooks<Record<string, unknown>> | undefined> | undefined;
  return all !== undefined && Object.hasOwn(all, tool) ? all[tool] : undefined;
}
