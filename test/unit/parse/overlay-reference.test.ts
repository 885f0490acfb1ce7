// mcp-gen's overlays against a reference implementation: Redocly's (`@redocly/openapi-core`'s
// bundle with overlays, which also applies them after bundling) on real specs, the documents
// compared byte for byte as JSON. The overlay is what a team writes before its agents use an
// API: update, remove, copy, array appends, a recursive filter and a match() filter.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, createConfig } from '@redocly/openapi-core';
import { loadSpec } from '../../../src/parse/load.js';
import { REPO } from '../../../harness/project.js';

const EXAMPLES = join(REPO, 'node_modules/@readme/oas-examples');
const SPECS = [
  join(REPO, 'samples/petstore/openapi.json'),
  join(EXAMPLES, '3.0/json/uspto.json'),
  join(EXAMPLES, '3.0/json/star-trek.json'),
  join(EXAMPLES, '3.1/json/train-travel.json'),
];

const OVERLAY = `overlay: 1.1.0
info:
  title: What a team changes before its agents use an API
  version: 1.0.0
actions:
  - target: $.info
    update: { x-audience: agents, title: Overlaid API }
  - target: $.paths.*.get
    update: { x-mcp: { confirm: false } }
  - target: $.paths.*.*.parameters[?@.in == 'header']
    remove: true
  - target: $.paths.*.*.tags
    update: [agents]
  - target: $.paths.*.post.responses
    update: { '429': { description: Too many requests } }
  - target: $.info
    update: { x-servers: [] }
  - target: $.info['x-servers']
    copy: $.servers
  - target: $..[?@.deprecated == true]
    remove: true
  - target: $.paths[?match(@.summary, '.*')]
    update: { x-has-summary: true }
`;

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-overlay-reference-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const overlay = join(scratch, 'agents.overlay.yaml');
writeFileSync(overlay, OVERLAY);

describe("the same document as Redocly's overlays give", () => {
  it.each(SPECS.map((spec) => [spec.slice(REPO.length), spec]))('%s', async (_name, spec) => {
    const reference = await bundle({ ref: spec, config: await createConfig({}), overlays: [overlay] });
    expect(reference.problems.map((p) => p.message)).toEqual([]);
    const ours = await loadSpec(spec, { overlays: [overlay] });
    expect(JSON.stringify(ours.doc, null, 2)).toBe(JSON.stringify(reference.bundle.parsed, null, 2));
    expect(JSON.stringify(ours.doc)).toContain('"x-audience":"agents"');
  });
});
