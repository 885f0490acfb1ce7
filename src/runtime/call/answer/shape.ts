// The upstream's answer as what goes back to the client: the structuredContent a tool promised,
// and a resources/read refusal.

import { advertisedStructure, plainStructure, type OutputCheck, type Structurer } from '../../mcp/output.js';
import { errorExcerpt, type UpstreamAnswer, type UpstreamRefusal } from './response.js';
import type { ToolSpec } from '../../../contract/table.js';

/**
 * How a good answer is structured: as the tool's outputSchema promises, when the client was
 * shown it (`advertised`) and the spec documents one; else as it comes.
 */
export function structureFor(tool: ToolSpec, advertised: boolean, check: (tool: ToolSpec) => OutputCheck): Structurer {
  if (!advertised || !tool.output) return plainStructure;
  return advertisedStructure(tool.output, () => check(tool));
}

/** An error answer as resources/read reports it: status, the request, and a bounded excerpt already redacted. */
export function refusal(answer: UpstreamAnswer, redacted: (text: string) => string): UpstreamRefusal {
  const { status, statusText, label } = answer;
  return { status, statusText, label, excerpt: redacted(errorExcerpt(answer)) };
}
