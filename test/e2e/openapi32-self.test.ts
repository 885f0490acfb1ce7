// OAS 3.2 `$self` of a second document, and JSON Schema `$id`, as base URIs (OAS 3.2.0
// §4.1.2.2, Appendix F; JSON Schema 2020-12 §8.2.1): test/fixtures/openapi-3.2/self-base/ holds,
// beside each right target, a wrong one that resolving against the file's path would read.
// `mcp-gen serve` serves it to the official SDK client; the upstream records the call.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const SPEC = join(REPO, 'test/fixtures/openapi-3.2/self-base/api/openapi.yaml');

let upstream: Upstream;
let client: Client;
beforeAll(async () => {
  buildCli();
  upstream = await startUpstream(() => ({ body: JSON.stringify({ id: 5, owner: { name: 'Ann' } }) }));
  client = await connect('stdio', REPO, {
    argv: [BIN, 'serve', SPEC, '--base-url', `${upstream.url}/v1`, '--log-level', 'warn', '--tools', 'direct'],
  });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

describe("a second document's $self", () => {
  it("resolves that document's relative references beside its $self, not beside its file", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'getPet');
    const listed = JSON.stringify(tool);
    expect(listed).toContain("The pet's number.");
    expect(listed).not.toContain('The wrong PetId');
    expect(tool?.inputSchema.properties?.petId).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it("resolves a schema's references beside its $id", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'getPet');
    const listed = JSON.stringify(tool?.outputSchema);
    expect(listed).toContain("A person's name, beside the owner's $id.");
    expect(listed).not.toContain('must not be read');
  });

  it('the call checks the argument as the right schema says and sends it', async () => {
    const refused = await client.callTool({ name: 'getPet', arguments: { petId: 'five' } });
    expect(refused.isError).toBe(true);
    upstream.clear();
    const result = await client.callTool({ name: 'getPet', arguments: { petId: 5 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/pets/5']);
  });
});
