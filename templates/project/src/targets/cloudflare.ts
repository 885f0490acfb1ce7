// Cloudflare Workers: `npx wrangler dev` serves /mcp locally on workerd (local secrets in
// .dev.vars), `npx wrangler deploy` publishes it. The server is the runtime's web handler; the
// platform's variables and secrets are its settings and the API's credentials.
import { DurableObject } from 'cloudflare:workers';
import { createWebServer, type WebServer } from '../../lib/runtime/web/web-server.js';
import table from '../../tools.json';
import summary from '../../tools-summary.json';
import { hooks } from '../hooks.ts';
// Code mode's QuickJS, compiled by wrangler's bundle as a WebAssembly.Module: workerd compiles no
// WebAssembly from bytes at run time.
import quickjsWasm from '@jitl/quickjs-wasmfile-release-sync/wasm';
// The token store of this server's own sign-in as a Durable Object (MCP_TOKEN_STORE=durable-object:
// <binding>), for wrangler.jsonc to bind: it takes codes and refresh tokens atomically.
export { TokenStoreObject } from '../../lib/runtime/oauth/authorization-server/token-store-object.js';

let server: WebServer | undefined;

/** One per isolate, made on its first request (the Worker's or a session object's): the variables arrive with it. */
function serverOf(env: Record<string, unknown>): WebServer {
  server ??= createWebServer({
    platform: 'cloudflare',
    summary: summary as never,
    table: table as never,
    hooks,
    env: textsOf(env),
    // A KV namespace or Durable Object bound in wrangler.jsonc, for MCP_OPERATION_STORE or MCP_TOKEN_STORE.
    bindings: env,
    // 2025-era clients' sessions, one Durable Object each (McpSession below).
    sessions: env.MCP_SESSIONS as never,
    quickjsWasm,
  });
  return server;
}

export default {
  fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    return serverOf(env).fetch(request);
  },
};

/**
 * A 2025-era client's session (Mcp-Session-Id): the Worker checks each request and forwards it
 * here, to the object the session's id names; its idle timer is the object's alarm.
 */
export class McpSession extends DurableObject<Record<string, unknown>> {
  private readonly session = serverOf(this.env).session(this.ctx);

  fetch(request: Request): Promise<Response> {
    return this.session.fetch(request);
  }

  alarm(): Promise<void> {
    return this.session.alarm();
  }
}

/** The string variables and secrets; bindings (KV, Durable Objects) are not settings. */
function textsOf(env: Record<string, unknown>): Record<string, string | undefined> {
  const texts: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') texts[name] = value;
  return texts;
}
