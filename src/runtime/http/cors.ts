// CORS is off unless origins are listed (--cors-origins): browsers then may call the
// endpoints from those origins and read Mcp-Session-Id.

import type { HttpStep } from './pipeline.js';

/** Adds the CORS headers for a listed Origin, and answers its preflight (OPTIONS) itself. */
export function cors(origins: string[]): HttpStep {
  if (origins.length === 0) return () => true;
  const all = origins.includes('*');
  return ({ req, res }) => {
    const origin = req.headers.origin;
    if (origin && (all || origins.includes(origin))) {
      res.setHeader('access-control-allow-origin', all ? '*' : origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
          'access-control-max-age': '600',
        });
        res.end();
        return false;
      }
    }
    return true;
  };
}
