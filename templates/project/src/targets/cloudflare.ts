// Cloudflare Workers: `npx wrangler dev` serves /mcp locally on workerd (local secrets in
// .dev.vars), `npx wrangler deploy` publishes it. The server is the runtime's web handler; the
// platform's variables and secrets are its settings and the API's credentials.
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

export default {
  fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    // One per isolate, made on its first request: the variables arrive with the request.
    server ??= createWebServer({
      platform: 'cloudflare',
      summary: summary as never,
      table: table as never,
      hooks,
      env: textsOf(env),
      // A KV namespace or Durable Object bound in wrangler.jsonc, for MCP_OPERATION_STORE or MCP_TOKEN_STORE.
      bindings: env,
      quickjsWasm,
    });
    return server.fetch(request);
  },
};

/** The string variables and secrets; bindings (KV, Durable Objects) are not settings. */
function textsOf(env: Record<string, unknown>): Record<string, string | undefined> {
  const texts: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') texts[name] = value;
  return texts;
}
