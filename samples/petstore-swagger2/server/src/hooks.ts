// Your code: mcp-gen creates this file once and never overwrites it, so changes here
// survive regeneration. Use it for custom auth, extra headers or reshaping responses.
import type { Hooks } from './runtime/hooks-api.js';

export const hooks: Hooks = {
  // beforeRequest(request) {
  //   request.headers['x-request-source'] = 'mcp';
  //   return request;
  // },
  // afterResponse(response, request) {
  //   return response;
  // },
};
