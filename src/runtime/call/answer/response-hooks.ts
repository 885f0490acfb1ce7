// The user's afterResponse hooks see the upstream's answer as a fetch Response, the type
// hooks-api.ts declares; the answer itself comes from node:http. The Response is built only
// when a hook reads it, and read back only when a hook read it or returned another: a hook
// that leaves the answer alone (one that logs the request, say) costs no conversion.

import type { OutgoingRequest } from '../../hooks-api.js';
import { fromWebResponse, toWebResponse } from '../send/upstream.js';
import type { UpstreamResponse } from '../send/upstream-response.js';

export type AfterResponse = (response: Response, request: OutgoingRequest) => Response | void | Promise<Response | void>;

/**
 * The answer after `hooks` (the tool's own, then the global one), each given what the one
 * before returned; `answer` itself when none read it or returned another.
 */
export async function afterResponse(
  answer: UpstreamResponse,
  request: OutgoingRequest,
  hooks: (AfterResponse | undefined)[],
): Promise<UpstreamResponse> {
  if (!hooks.some((hook) => hook !== undefined)) return answer;
  const lazy = lazyResponse(answer);
  let response = lazy.response;
  for (const hook of hooks) if (hook) response = (await hook(response, request)) ?? response;
  if (response !== lazy.response) return fromWebResponse(response);
  const built = lazy.built();
  return built ? fromWebResponse(built) : answer;
}

/**
 * A Response for `answer` that is built on first use: `response` stands for it (instanceof
 * Response, every property and method), `built()` is the real one once something used it.
 */
export function lazyResponse(answer: UpstreamResponse): { response: Response; built(): Response | undefined } {
  let real: Response | undefined;
  const build = () => (real ??= toWebResponse(answer));
  const response = new Proxy(Object.create(Response.prototype) as Response, {
    get(_target, key) {
      // Awaiting a value asks for `then`: a Response has none, and answering so builds nothing.
      if (key === 'then') return undefined;
      const target = build();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' && key !== 'constructor' ? value.bind(target) : value;
    },
    has: (_target, key) => Reflect.has(build(), key),
    set: (_target, key, value) => Reflect.set(build(), key, value),
  });
  return { response, built: () => real };
}
