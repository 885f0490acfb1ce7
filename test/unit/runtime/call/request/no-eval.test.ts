// Proof that a call's schema checks evaluate no strings (issue #40: Cloudflare Workers forbid
// `eval` and `new Function` at request time): the checks run in a node started with
// --disallow-code-generation-from-strings, V8's switch for what workerd forbids, where any
// string evaluation throws an EvalError. The interpreted validator answers there as anywhere;
// ajv, which compiles each schema with `new Function`, cannot.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const probe = fileURLToPath(new URL('../../../../fixtures/no-eval/checks-probe.ts', import.meta.url));
const run = (validator: string) =>
  promisify(execFile)(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', probe, validator], {
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout: string; stderr: string }) => ({ code: error.code ?? -1, stdout: error.stdout, stderr: error.stderr }),
  );

describe('the schema checks where strings cannot become code', () => {
  it('interpreted: checks arguments and answers, with patterns and formats, and evaluates no string', async () => {
    const { code, stdout, stderr } = await run('interpreted');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      good: { args: { item: { code: 'ABC', email: 'a@example.com', at: '2026-11-28T08:00:00Z' } } },
      badPattern: { problem: 'argument "item.code": must match pattern "^[A-Z]{3}$"' },
      badFormat: { problem: 'argument "item.email": must match format "email"; argument "item.at": must match format "date-time"' },
      catastrophic: 'arguments must match pattern "^(a+)+$"',
      output: [true, 'field "item.code": must match pattern "^[A-Z]{3}$"'],
    });
  });

  it('ajv: compiling a schema needs `new Function`, which throws there', async () => {
    const { code, stderr } = await run('ajv');
    expect(stderr).toContain('input schema not checkable (Code generation from strings disallowed for this context)');
    expect(stderr).toContain('EvalError: Code generation from strings disallowed');
    expect(code).not.toBe(0);
  });
});
