// The floor for cold start: a one-tool MCP server on the official SDK v2 over stdio, nothing
// else. The bench copies it into a generated project so that it resolves the very same SDK
// packages (from that project's node_modules) as the generated server does.
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const inputSchema = fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });

serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echo the text back.', inputSchema }, async (args) => ({
    content: [{ type: 'text', text: String(args.text) }],
  }));
  return server;
});
process.stdin.once('end', () => process.exit(0));
