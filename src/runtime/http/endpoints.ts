// The contract between the HTTP listener and a transport's endpoints, and the last step of
// the request pipeline: the first endpoint that owns the request answers it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcError } from './answer.js';
import type { HttpStep } from './pipeline.js';

/** One HTTP transport's endpoints: `handle` answers the requests it owns and returns true. */
export interface HttpEndpoints {
  describe: string;
  /** `body` is the parsed JSON body of a POST, already checked for size and depth. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean>;
  /** Calls still being answered outside a request of their own (legacy SSE answers on its GET stream). */
  pendingCalls?(): number;
  close(): Promise<void>;
}

export const describeAll = (endpoints: readonly HttpEndpoints[]): string => endpoints.map((e) => e.describe).join('; ');

/** Hands the request to the endpoint that owns it; answers 404 naming the served endpoints. */
export function routeTo(endpoints: readonly HttpEndpoints[]): HttpStep {
  return async ({ req, res, url, body }) => {
    for (const endpoint of endpoints) if (await endpoint.handle(req, res, url, body)) return false;
    jsonRpcError(res, 404, -32601, `Not found: ${req.method} ${url.pathname} (${describeAll(endpoints)})`);
    return false;
  };
}
