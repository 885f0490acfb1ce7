// The demo's second step: a real tool call against the running demo server, through the
// official MCP client over Streamable HTTP. `node scripts/demo-call.js [tool] [json-arguments]`
// (default: getPetById {"petId":1}); PORT as for `npm run demo`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const port = process.env.PORT ?? '3000';
const [tool = 'getPetById', given = '{"petId":1}'] = process.argv.slice(2);
let args;
try {
  args = JSON.parse(given);
} catch {
  console.error(`demo-call: the arguments must be JSON, got ${given}`);
  process.exit(2);
}
const url = `http://127.0.0.1:${port}/mcp`;
const client = new Client({ name: 'mcp-gen-demo-call', version: '1.0.0' });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  console.log(
    `${url}: ${tools.length} tools (${tools
      .slice(0, 5)
      .map((t) => t.name)
      .join(', ')}, …)`,
  );
  console.log(`tools/call ${tool} ${JSON.stringify(args)}:`);
  const result = await client.callTool({ name: tool, arguments: args });
  for (const item of result.content) console.log(item.type === 'text' ? item.text : `[${item.type}]`);
  await client.close();
  process.exit(result.isError ? 1 : 0);
} catch (error) {
  console.error(`demo-call: ${error instanceof Error ? error.message : String(error)} (is \`npm run demo\` running on port ${port}?)`);
  process.exit(1);
}
