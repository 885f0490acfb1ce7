// CORS is off unless origins are listed (--cors-origins): browsers then may call the
// endpoints from those origins and read Mcp-Session-Id. The rule is written once (corsRule) and
// applied by Node's pipeline here and by the platforms' web handler (web/web-steps.ts).

import type { HttpStep } from './pipeline.js';

/** The headers a listed Origin's answers carry, and for its preflight (OPTIONS) the answer's own. */
export interface CorsAnswer {
  headers: Record<string, string>;
  preflight?: Record<string, string>;
}

/** What a request from `origin` gets: undefined for an Origin not listed (or none). */
export function corsRule(origins: string[]): (origin: string | null | undefined, method: string | undefined) => CorsAnswer | undefined {
  if (origins.length === 0) return () => undefined;
  const all = origins.includes('*');
  return (origin, method) => {
    if (!origin || !(all || origins.includes(origin))) return undefined;
    const headers = {
      'access-control-allow-origin': all ? '*' : origin,
      vary: 'Origin',
      'access-control-expose-headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
    };
    if (method !== 'OPTIONS') return { headers };
    const preflight = {
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
      'access-control-max-age': '600',
    };
    return { headers, preflight };
  };
}

/** Adds the CORS headers for a listed Origin, and answers its preflight (OPTIONS) itself. */
export function cors(origins: string[]): HttpStep {
  const rule = corsRule(origins);
  return ({ req, res }) => {
    const answer = rule(req.headers.origin, req.method);
    if (answer === undefined) return true;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    if (answer.preflight === undefined) return true;
    res.writeHead(204, answer.preflight);
    res.end();
    return false;
  };
}
