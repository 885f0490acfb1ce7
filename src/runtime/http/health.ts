// GET /healthz: the readiness probe of a load balancer. Answered before CORS, the Host/Origin
// guard and authentication, because probes come from the balancer, with neither a public
// host name nor the token.

import { sendJson } from './answer.js';
import type { HttpStep } from './pipeline.js';

/** 200 while serving; 503 once draining, so that a balancer stops routing here. */
export function healthCheck(draining: () => boolean): HttpStep {
  return ({ req, res, url }) => {
    if (url.pathname !== '/healthz' || req.method !== 'GET') return true;
    if (draining()) sendJson(res, 503, { status: 'draining' });
    else sendJson(res, 200, { status: 'ok' });
    return false;
  };
}
