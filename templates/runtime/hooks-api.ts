// The seam for user code that must survive regeneration: `src/hooks.ts` in the generated
// project implements these (it is created once and never overwritten).

export interface OutgoingRequest {
  tool: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

export interface Hooks {
  /** Called before each upstream request; may change and return it (e.g. add a header). */
  beforeRequest?(request: OutgoingRequest): OutgoingRequest | void | Promise<OutgoingRequest | void>;
  /** Called with each upstream response before it is turned into a tool result. */
  afterResponse?(response: Response, request: OutgoingRequest): Response | void | Promise<Response | void>;
}
