// Long-running operations recognised at generation (src/model/long-running.ts): a 202 answer,
// Azure's x-ms-long-running-operation with final-state-via, Google's Operation resource and a
// link from the 202 answer to a status operation; on small specs and on real Azure and Google ones.
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { detectLongRunning } from '../../../src/model/long-running.js';
import { loadSpec } from '../../../src/parse/load.js';
import { buildModel } from '../../../src/model/build.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { LongRunning, ToolSpec, ToolTable } from '../../../src/contract/table.js';
import { REPO } from '../../../harness/project.js';
import { corporaMissing, corporaTitle, DIRECTORY } from '../../../harness/corpora.js';

const OPERATION = {
  type: 'object',
  properties: { name: { type: 'string' }, done: { type: 'boolean' }, error: { type: 'object' }, response: { type: 'object' } },
};
const json = (schema: JsonObject) => ({ description: 'ok', content: { 'application/json': { schema } } });

describe('detectLongRunning on one operation', () => {
  const cases: [string, { method?: string; path?: string; op: JsonObject; want: LongRunning | undefined }][] = [
    ['a plain 200 answer: not long-running', { op: { responses: { '200': json({ type: 'object' }) } }, want: undefined }],
    [
      'a 202 answer with Operation-Location',
      {
        op: { responses: { '202': { description: 'accepted', headers: { 'Operation-Location': { schema: { type: 'string' } } } } } },
        want: {},
      },
    ],
    ['a 202 answer without headers declared', { op: { responses: { '202': { description: 'accepted' } } }, want: {} }],
    [
      "Azure's extension with final-state-via",
      {
        method: 'PUT',
        op: {
          'x-ms-long-running-operation': true,
          'x-ms-long-running-operation-options': { 'final-state-via': 'original-uri' },
          responses: { '200': json({ type: 'object' }), '201': json({ type: 'object' }) },
        },
        want: { finalStateVia: 'original-uri' },
      },
    ],
    [
      'an unknown final-state-via is left out',
      {
        op: {
          'x-ms-long-running-operation': true,
          'x-ms-long-running-operation-options': { 'final-state-via': 'elsewhere' },
          responses: {},
        },
        want: {},
      },
    ],
    [
      'a Google Operation answer, polled at the version of the path',
      { path: '/v2/projects/{p}/jobs', op: { responses: { '200': json(OPERATION) } }, want: { operation: { statusPath: '/v2/{name}' } } },
    ],
    [
      'a GET of an Operation is a status read, not long-running',
      { method: 'GET', op: { responses: { '200': json(OPERATION) } }, want: undefined },
    ],
    [
      'an object with a non-boolean done is not an Operation',
      { op: { responses: { '200': json({ type: 'object', properties: { name: {}, done: { type: 'string' } } }) } }, want: undefined },
    ],
  ];
  it.each(cases)('%s', (_name, { method = 'POST', path = '/jobs', op, want }) => {
    const doc: JsonObject = { openapi: '3.0.3', paths: {} };
    expect(detectLongRunning(doc, { op, method, path })?.longRunning).toEqual(want);
  });

  it('a link from the 202 answer names the status operation and its arguments', () => {
    const op: JsonObject = {
      responses: {
        '202': {
          description: 'accepted',
          links: { status: { operationId: 'getJob', parameters: { 'path.jobId': '$response.body#/id', verbose: 'true' } } },
        },
      },
    };
    expect(detectLongRunning({ openapi: '3.0.3', paths: {} }, { op, method: 'POST', path: '/jobs' })?.statusLink).toEqual({
      target: 'getJob',
      args: { jobId: '$response.body#/id', verbose: 'true' },
    });
  });
});

describe('in a built table', () => {
  it("the link's target becomes the status tool's name, and the description says what to expect", async () => {
    const spec = await loadSpec(join(REPO, 'test/fixtures/long-running.yaml'), {});
    const { table } = buildModel(spec, {});
    const start = table.tools.find((t) => t.operationId === 'startJob');
    expect(start?.longRunning).toEqual({ statusTool: { name: 'getJob', args: { jobId: '$response.body#/id' } } });
    expect(start?.description).toMatch(/Long-running: .*get_operation_status/);
    expect(table.tools.find((t) => t.operationId === 'getJob')?.longRunning).toBeUndefined();
  });

  it("the link's arguments follow the status tool's argument overrides: renamed, and none the server fills", async () => {
    const spec = await loadSpec(join(REPO, 'test/fixtures/long-running.yaml'), {});
    const link = (spec.doc as { paths: Record<string, { post?: { responses: Record<string, { links: JsonObject }> } }> }).paths['/jobs']
      ?.post?.responses['202']?.links as { status: { parameters: Record<string, string> } };
    link.status.parameters = { jobId: '$response.body#/id', tenant: 'acme' };
    const getJob = (spec.doc as { paths: Record<string, { get: { parameters: JsonObject[] } }> }).paths['/jobs/{jobId}']?.get;
    getJob?.parameters.push({ name: 'tenant', in: 'query', schema: { type: 'string' } });
    const overrides = { getJob: { arguments: { jobId: { name: 'job' }, tenant: { hidden: true, value: 'acme' } } } };
    const { table } = buildModel(spec, { toolOverrides: overrides });
    const start = table.tools.find((t) => t.operationId === 'startJob');
    expect(start?.longRunning).toEqual({ statusTool: { name: 'getJob', args: { job: '$response.body#/id' } } });
  });
});

describe.skipIf(!!corporaMissing)(corporaTitle('real specs'), () => {
  const tables = new Map<string, ToolTable>();
  const tool = (spec: string, operationId: string): ToolSpec => {
    const found = tables.get(spec)?.tools.find((t) => t.operationId === operationId);
    if (!found) throw new Error(`no ${operationId} in ${spec}`);
    return found;
  };
  beforeAll(async () => {
    for (const [name, path] of [
      ['storagesync', 'azure.com/storagesync.json'],
      ['apim', 'azure.com/apimanagement-apimdeployment.json'],
      ['alloydb', 'googleapis.com/alloydb.json'],
    ] as const) {
      tables.set(name, buildModel(await loadSpec(join(DIRECTORY, path), {}), {}).table);
    }
  }, 120_000);

  it('Azure Storage Sync: a PUT with x-ms-long-running-operation and a 202 with Azure-AsyncOperation; its GET is not', () => {
    expect(tool('storagesync', 'RegisteredServers_Create').longRunning).toEqual({});
    expect(tool('storagesync', 'RegisteredServers_Get').longRunning).toBeUndefined();
  });

  it('Azure API Management: final-state-via from the options', () => {
    const withOptions = tables.get('apim')?.tools.filter((t) => t.longRunning?.finalStateVia !== undefined) ?? [];
    expect(withOptions.length).toBeGreaterThan(0);
  });

  it("Google AlloyDB: a cluster's create answers an Operation, polled at /v1/{name}; the operation's GET is not long-running", () => {
    expect(tool('alloydb', 'alloydb.projects.locations.clusters.create').longRunning).toEqual({ operation: { statusPath: '/v1/{name}' } });
    expect(tool('alloydb', 'alloydb.projects.locations.operations.get').longRunning).toBeUndefined();
  });
});
