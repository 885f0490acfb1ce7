// The contract between the HTTP listener and a transport it serves on req/res outside the web
// core (legacy HTTP+SSE, transports/sse.ts): the core guards its requests and passes them on.

import type { IncomingMessage, ServerResponse } from 'node:http';

/** One HTTP transport's endpoints: `handle` answers the requests it owns and returns true. */
export interface HttpEndpoints {
  describe: string;
  /** `body` is the parsed JSON body of a POST, already checked for size and depth. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean>;
  /** Calls still being answered outside a request of their own (legacy SSE answers on its GET stream). */
  pendingCalls?(): number;
  close(): Promise<void>;
}
