// Your code: mcp-gen creates this file once and never overwrites it, so changes here
// survive regeneration. Use it for custom auth, extra headers or reshaping responses.
// Hooks are typed by src/tool-types.ts (regenerated with the spec): when a tool is renamed or
// an argument goes away, `npm run build` fails here instead of the hook silently not matching.
import type { Hooks } from '../lib/runtime/hooks-api.js';
import type { ToolArguments } from './tool-types.js';

export const hooks: Hooks<ToolArguments> = {
  // beforeRequest(request) {
  //   request.headers['x-request-source'] = 'mcp';   // request.tool is one of the tool names
  //   return request;
  // },
  // afterResponse(response, request) {
  //   return response;
  // },
  // tools: {
  //   someTool: {
  //     beforeRequest(args) {                         // args has the tool's argument type
  //       return { ...args };
  //     },
  //   },
  // },
};
