// Stack traces of a bundled server (#43): dist/ is minified, and a stack names the lines of src/
// and lib/ through the source maps the build writes, whether the server is started as its bin
// (`node dist/main.js`, as `npx -y` and the client snippets do) or with `npm start`'s
// --enable-source-maps. The user's hooks are the code whose stack the user reads: one here writes
// the stack of an Error made inside beforeRequest to stderr, on a call that reaches the upstream.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';

const HOOKS = `import type { Hooks } from '../lib/runtime/hooks-api.js';

export const hooks: Hooks = {
  beforeRequest(request) {
    process.stderr.write(\`[where] \${new Error('where').stack}\\n[/where]\\n\`);
    return request;
  },
};
`;
/** The line of HOOKS that makes the Error, 1-based. */
const ERROR_LINE = HOOKS.split('\n').findIndex((line) => line.includes("new Error('where')")) + 1;
const ENV = { SWAGGER_PETSTORE_API_KEY: 'k-stack' };

let dir: string;
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream(petAnswer);
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-stack-traces');
  writeFileSync(join(dir, 'src/hooks.ts'), HOOKS);
  await buildProject(dir);
}, 300_000);
afterAll(async () => upstream?.close());

/** The stack the hook wrote on one call, its frames' locations. */
async function hookStack(nodeFlags: string[]): Promise<string[]> {
  const argv = [...nodeFlags, join(dir, 'dist/main.js'), '--base-url', `${upstream.url}/v2`];
  const client = await connect('stdio', dir, { argv, env: ENV });
  const stderr: string[] = [];
  (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  try {
    const called = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
    expect(called.isError).toBeFalsy();
  } finally {
    await client.close();
  }
  const stack = /\[where\] ([\s\S]*?)\n\[\/where\]/.exec(stderr.join(''))?.[1] ?? '';
  expect(stack).toMatch(/^Error: where\n/);
  return stack.split('\n').slice(1);
}

describe('stack traces of the bundled server', () => {
  for (const [how, flags] of [
    ['started as its bin (node dist/main.js)', []],
    ['started as npm start does (--enable-source-maps)', ['--enable-source-maps']],
  ] as const) {
    it(`${how}: name the hook's line in src/hooks.ts and the runtime's in lib/`, async () => {
      const frames = await hookStack([...flags]);
      expect(frames[0]).toContain(`${join(dir, 'src/hooks.ts')}:${ERROR_LINE}:`);
      expect(frames.some((frame) => frame.includes(join(dir, 'lib/runtime/')))).toBe(true);
      expect(frames.filter((frame) => frame.includes(join(dir, 'dist/')))).toEqual([]);
    }, 60_000);
  }
});
