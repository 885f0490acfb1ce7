// Vercel: this function serves /mcp (vercel.json routes /mcp, /healthz and the OAuth metadata
// here) in the web-handler form of Vercel Functions: a named export per method, taking a Request
// and answering a Response. `npx vercel dev` runs it locally, `npx vercel deploy` publishes it;
// Vercel runs `npm run build` first, which compiles src/hooks.ts into dist/.
import { readFileSync } from 'node:fs';
import { createWebServer } from '../lib/runtime/web/web-server.js';
import { hooks } from '../dist/hooks.js';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../${name}`, import.meta.url), 'utf8'));

const server = createWebServer({
  platform: 'vercel',
  summary: read('tools-summary.json'),
  table: read('tools.json'),
  hooks,
  env: process.env,
});

const serve = (request: Request): Promise<Response> => server.fetch(request);

export { serve as GET, serve as POST, serve as DELETE, serve as OPTIONS };
