// AWS Lambda behind a Function URL (payload format 2.0): `npm run build:lambda` bundles this
// entry into dist/lambda/index.mjs, `sam deploy --guided` deploys it (template.yaml). The server
// is the runtime's web handler; answers are streamed where the Function URL's invoke mode is
// RESPONSE_STREAM, so that an SSE answer's progress reaches the client as it is sent.
import { createWebServer } from '../../lib/runtime/web/web-server.js';
import { functionUrlHandler } from '../../lib/runtime/web/lambda.js';
import table from '../../tools.json' with { type: 'json' };
import summary from '../../tools-summary.json' with { type: 'json' };
import { hooks } from '../hooks.ts';

// One per execution environment, made when it starts: its later invocations reuse it.
const server = createWebServer({ platform: 'lambda', summary: summary as never, table: table as never, hooks, env: process.env });

export const handler = functionUrlHandler(server);
