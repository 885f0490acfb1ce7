// Where a generated server runs: the targets `--target` chooses at generation. Node is every
// project's; each other target adds its entry under src/targets/ (Vercel's: api/mcp.ts, where its
// functions live) and its platform's config.

export const TARGETS = ['node', 'cloudflare', 'deno', 'lambda', 'vercel'] as const;

export type Target = (typeof TARGETS)[number];
