// Where a generated server runs: the targets `--target` chooses at generation. Node is every
// project's; each other target adds its entry under src/targets/ and its platform's config.

export const TARGETS = ['node', 'cloudflare', 'deno', 'lambda'] as const;

export type Target = (typeof TARGETS)[number];
