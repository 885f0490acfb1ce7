// Deno: `deno task start` serves /mcp on $HOST:$PORT (127.0.0.1:3000), with the variables of .env.
// The server is the runtime's web handler, served by Deno.serve.
import { createWebServer } from '../../lib/runtime/web/web-server.js';
import table from '../../tools.json' with { type: 'json' };
import summary from '../../tools-summary.json' with { type: 'json' };
import { hooks } from '../hooks.ts';

const env = Deno.env.toObject();
const server = createWebServer({ platform: 'deno', summary: summary as never, table: table as never, hooks, env });
Deno.serve(
  {
    ...server.address,
    onListen: ({ hostname, port }) => console.error(`serving Streamable HTTP at /mcp on http://${hostname}:${port}`),
  },
  server.fetch,
);
