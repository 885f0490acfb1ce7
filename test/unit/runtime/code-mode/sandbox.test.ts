// Code mode's sandbox with the real QuickJS: the program's api is a fake made of plain async
// functions that record their calls (the boundary, not the thing under test).
import { describe, expect, it, vi } from 'vitest';
import { runProgram, type SandboxApi, type SandboxLimits } from '../../../../src/runtime/code-mode/sandbox.js';
import { CODE_LIMIT_DEFAULTS } from '../../../../src/contract/settings.js';

interface Recorded {
  name: string;
  args: unknown;
  signal: AbortSignal;
}

type Operation = (args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

const PETS = [
  { id: 1, name: 'Rex', tag: 'dog' },
  { id: 2, name: 'Tom', tag: 'cat' },
  { id: 3, name: 'Fido', tag: 'dog' },
];

const OPERATIONS: Record<string, Operation> = {
  listPets: async () => PETS,
  getPet: async (args) => {
    const pet = PETS.find((p) => p.id === args.id);
    if (!pet) throw new Error(`404: no pet ${String(args.id)}`);
    return { ...pet, owner: `owner of ${pet.name}` };
  },
  echo: async (args) => args,
  nothing: async () => undefined,
};

function fakeApi(extra: Record<string, Operation> = {}): SandboxApi & { calls: Recorded[] } {
  const operations = { ...OPERATIONS, ...extra };
  const calls: Recorded[] = [];
  return {
    calls,
    names: Object.keys(operations),
    call: (name, args, signal) => {
      calls.push({ name, args, signal });
      const operation = operations[name];
      if (!operation) return Promise.reject(new Error(`no operation ${name}`));
      return operation(args as Record<string, unknown>, signal);
    },
  };
}

const never = new AbortController().signal;

function run(body: string, api: SandboxApi = fakeApi(), limits: Partial<SandboxLimits> = {}, signal = never) {
  return runProgram(body, api, { ...CODE_LIMIT_DEFAULTS, ...limits }, signal);
}

function failure(outcome: Awaited<ReturnType<typeof runProgram>>): string {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe('runProgram: results', () => {
  it('awaits several api calls, filters and joins their results, and counts the calls', async () => {
    const api = fakeApi();
    const outcome = await run(
      `const pets = await api.listPets();
       const dogs = pets.filter((p) => p.tag === 'dog');
       const full = await Promise.all(dogs.map((d) => api.getPet({ id: d.id })));
       return { names: full.map((p) => p.name).join(', '), owners: full.map((p) => p.owner) };`,
      api,
    );
    expect(outcome).toEqual({
      ok: true,
      value: { names: 'Rex, Fido', owners: ['owner of Rex', 'owner of Fido'] },
      logs: '',
      calls: 3,
    });
    expect(api.calls.map((c) => [c.name, c.args])).toEqual([
      ['listPets', {}],
      ['getPet', { id: 1 }],
      ['getPet', { id: 3 }],
    ]);
  });

  it('keeps console output beside the result, one line a call, JSON for objects', async () => {
    const outcome = await run(`
      console.log('pets:', 3, { a: [1, 2] });
      console.info('info');
      console.warn('careful');
      console.error(new TypeError('bad'));
      console.debug(null, undefined, true);
      return 'done';`);
    expect(outcome).toEqual({
      ok: true,
      value: 'done',
      logs: 'pets: 3 {"a":[1,2]}\ninfo\nwarn: careful\nerror: TypeError: bad\nnull undefined true',
      calls: 0,
    });
  });

  it('gives null for undefined, and api values enter as JSON (undefined → null)', async () => {
    expect(await run('return;')).toMatchObject({ ok: true, value: null });
    expect(await run('return [await api.nothing(), await api.echo({ a: 1, b: [true, null] })];')).toMatchObject({
      ok: true,
      value: [null, { a: 1, b: [true, null] }],
    });
  });

  it('refuses a result that is not JSON: functions, symbols, BigInt, cycles', async () => {
    expect(failure(await run('return { f() {} };'))).toBe('TypeError: the result is not JSON: a function at key "f"');
    expect(failure(await run('return [Symbol("s")];'))).toBe('TypeError: the result is not JSON: a symbol at key "0"');
    expect(failure(await run('return 1n;'))).toMatch(/^TypeError: the result is not JSON: .*BigInt/);
    expect(failure(await run('const a = {}; a.self = a; return a;'))).toBe('TypeError: the result is not JSON: circular reference');
  });

  it('refuses a result over maxResultBytes, saying how big it was', async () => {
    expect(failure(await run('return "x".repeat(300000);'))).toBe('the result is 300002 bytes, more than the limit 262144: return less');
    expect(await run('return "é".repeat(100);', fakeApi(), { maxResultBytes: 202 })).toMatchObject({ ok: true });
    expect(failure(await run('return "é".repeat(100);', fakeApi(), { maxResultBytes: 201 }))).toMatch(/^the result is 202 bytes/);
  });

  it('cuts console output past maxLogBytes, with a note of what was cut', async () => {
    const outcome = await run('for (let i = 0; i < 1000; i++) console.log("line " + i); return 1;', fakeApi(), { maxLogBytes: 100 });
    expect(outcome.ok).toBe(true);
    const [kept, note] = outcome.logs.split(/\n(?=\[… )/);
    expect(Buffer.byteLength(kept ?? '')).toBeLessThanOrEqual(100);
    expect(kept?.startsWith('line 0\nline 1\n')).toBe(true);
    // 1000 lines "line N\n": 10×7 + 90×8 + 900×9 bytes in all, 100 of them kept
    expect(note).toBe(`[… ${10 * 7 + 90 * 8 + 900 * 9 - 100} bytes of output cut]`);
  });
});

describe('runProgram: errors point at the body', () => {
  it('reports a syntax error with the line:column of the body', async () => {
    expect(failure(await run('const a = 1;\nconst b = a +* 2;\nreturn b;'))).toBe(
      "SyntaxError: unexpected token in expression: '*' (line 2:14)",
    );
  });

  it('reports a runtime error with its message and the line:column of the body', async () => {
    expect(failure(await run('const pets = await api.listPets();\n\n  return pets[7].name;'))).toBe(
      "TypeError: cannot read property 'name' of undefined (line 3:17)",
    );
  });

  it('lets the program catch a rejected api call; an uncaught one ends the run at its call', async () => {
    expect(await run('try { await api.getPet({ id: 9 }); } catch (e) { return "caught: " + e.message; }')).toMatchObject({
      ok: true,
      value: 'caught: 404: no pet 9',
      calls: 1,
    });
    expect(failure(await run('const pet = await api.getPet({ id: 1 });\nreturn await api.getPet({ id: 9 });'))).toBe(
      'Error: 404: no pet 9 (line 2:24)',
    );
  });

  it('makes an unknown operation a TypeError in the program', async () => {
    const api = fakeApi();
    expect(failure(await run('return await api.deletePet({ id: 1 });', api))).toMatch(
      /^TypeError: api\.deletePet is not an operation of this API; it has 4: listPets, getPet, echo, nothing \(line 1:\d+\)$/,
    );
    expect(api.calls).toEqual([]);
  });

  it('gives a server of several APIs an object per namespace, whose unknown members are TypeErrors naming what it has', async () => {
    const api = fakeApi({ 'shop.getPet': OPERATIONS.getPet as Operation, 'zoo.getPet': OPERATIONS.getPet as Operation });
    api.names = ['shop.getPet', 'zoo.getPet'];
    const outcome = await run(
      'const a = await api.shop.getPet({ id: 1 });\nconst b = await api.zoo.getPet({ id: 2 });\nreturn [a.name, b.name];',
      api,
    );
    expect(outcome).toMatchObject({ ok: true, value: ['Rex', 'Tom'], calls: 2 });
    expect(api.calls.map((c) => c.name)).toEqual(['shop.getPet', 'zoo.getPet']);
    expect(failure(await run('return await api.farm.getPet({ id: 1 });', api))).toMatch(
      /^TypeError: api\.farm is not an API of this server; it has 2: shop, zoo \(line 1:\d+\)$/,
    );
    expect(failure(await run('return await api.shop.deletePet({ id: 1 });', api))).toMatch(
      /^TypeError: api\.shop\.deletePet is not an operation of this API; it has 1: getPet \(line 1:\d+\)$/,
    );
  });

  it('makes args that are not JSON a TypeError in the program', async () => {
    expect(failure(await run('return await api.echo(() => 1);'))).toMatch(/^TypeError: api\.echo takes one JSON value/);
    expect(failure(await run('return await api.echo({ n: 1n });'))).toMatch(/BigInt/);
  });

  it('stops at maxCalls with an Error in the program', async () => {
    const api = fakeApi();
    const outcome = await run('for (let i = 0; i < 10; i++) await api.listPets();', api, { maxCalls: 3 });
    expect(failure(outcome)).toBe('Error: more than 3 api calls (line 1:48)');
    expect(outcome.calls).toBe(3);
    expect(api.calls).toHaveLength(3);
  });

  it('reports a thrown value that is not an Error', async () => {
    expect(failure(await run('throw "oops";'))).toBe('the program threw oops');
  });
});

describe('runProgram: limits', () => {
  it('interrupts an endless loop at the time limit, and the next run works', async () => {
    const started = performance.now();
    expect(failure(await run('while (true) {}', fakeApi(), { timeMs: 200 }))).toBe(
      'the program ran longer than its time limit of 200 ms (CPU time; waiting for api calls does not count)',
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await run('return 1 + 1;')).toMatchObject({ ok: true, value: 2 });
  });

  it('with a clock that stands still (deployed Workers advance it only on I/O), counting the interrupt polls still ends an endless loop', async () => {
    const frozen = vi.spyOn(performance, 'now').mockReturnValue(1_000);
    try {
      const started = Date.now();
      const outcome = await runProgram('while (true) {}', fakeApi(), { ...CODE_LIMIT_DEFAULTS, timeMs: 200 }, never, { countSteps: true });
      expect(failure(outcome)).toBe(
        'the program ran longer than its time limit of 200 ms (CPU time; waiting for api calls does not count)',
      );
      // 50 polls per ms of the limit: 10,000 polls, about 0.2 to 2 s of a plain loop
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      frozen.mockRestore();
    }
  });

  it('does not count time spent waiting for api calls', async () => {
    const slow = fakeApi({ slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 300)) });
    expect(await run('return await api.slow();', slow, { timeMs: 100 })).toMatchObject({ ok: true, value: 'late' });
  });

  it('stops a memory bomb at the memory limit: growing arrays, doubling strings, large strings kept', async () => {
    const limits = { memoryBytes: 16 * 1024 * 1024 };
    const out = /^the program ran out of memory: its limit is 16 MiB/;
    expect(failure(await run('const a = [];\nwhile (true) a.push(new Array(100000).fill(1));', fakeApi(), limits))).toMatch(out);
    expect(failure(await run('let s = "x";\nwhile (true) s = s.repeat(2);', fakeApi(), limits))).toMatch(out);
    // quickjs-emscripten's own setMemoryLimit lets these add up past any limit: the instance's memory stops them
    expect(failure(await run('const a = [];\nwhile (true) a.push("x".repeat(1000000) + a.length);', fakeApi(), limits))).toMatch(out);
    expect(await run('return 1;')).toMatchObject({ ok: true, value: 1 });
  });

  it('turns deep recursion into an error of the program, not a crash', async () => {
    expect(failure(await run('function down(n) { return down(n + 1) + 1; }\nreturn down(0);'))).toBe(
      'InternalError: stack overflow (line 1:31): recursion deeper than the sandbox allows',
    );
    expect(failure(await run('const deep = (n) => JSON.parse("[1]", () => deep(n + 1));\nreturn deep(0);'))).toMatch(/stack overflow/);
    expect(await run('function down(n) { return n === 0 ? 0 : down(n - 1) + 1; }\nreturn down(500);')).toMatchObject({
      ok: true,
      value: 500,
    });
  });

  it('ends a never-settling promise as soon as nothing is pending on the host side', async () => {
    const started = performance.now();
    expect(failure(await run('await new Promise(() => {});\nreturn 1;'))).toMatch(/^the program's promise never settles/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('aborts via the signal mid-run, and the pending api call gets the abort', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const calling = new Promise<void>((resolve) => (started = resolve));
    const hanging = fakeApi({
      hang: (_args, signal) =>
        new Promise((_resolve, reject) => {
          started();
          signal.addEventListener('abort', () => reject(new Error('aborted by the host')));
        }),
    });
    const running = run('await api.hang();\nreturn 1;', hanging, {}, controller.signal);
    await calling;
    controller.abort();
    expect(await running).toMatchObject({ ok: false, error: 'the run was aborted', calls: 1 });
    expect(hanging.calls[0]?.signal.aborted).toBe(true);
  });

  it('ends at once for a signal aborted before the run', async () => {
    expect(await run('return 1;', fakeApi(), {}, AbortSignal.abort())).toMatchObject({ ok: false, error: 'the run was aborted' });
  });

  it('aborts the api calls the program started and did not wait for', async () => {
    const hanging = fakeApi({ hang: (_args, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(null))) });
    expect(await run('api.hang();\nreturn "left";', hanging)).toMatchObject({ ok: true, value: 'left' });
    expect(hanging.calls[0]?.signal.aborted).toBe(true);
  });
});

describe('runProgram: nothing of the host', () => {
  it('has no process, require, timers or fetch', async () => {
    expect(
      await run('return [typeof process, typeof require, typeof setTimeout, typeof setInterval, typeof fetch, typeof module];'),
    ).toMatchObject({ ok: true, value: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'] });
  });

  it('refuses import()', async () => {
    expect(failure(await run('const fs = await import("fs");\nreturn fs.readFileSync("/etc/passwd", "utf8");'))).toMatch(
      /import is not available in the sandbox/,
    );
  });

  it('reaches only the sandbox global through the Function constructor', async () => {
    expect(failure(await run('return globalThis.constructor.constructor("return process")();'))).toMatch(
      /^ReferenceError: 'process' is not defined/,
    );
    expect(await run('const g = Function("return this")();\nreturn [g === globalThis, typeof g.process, Object.keys(g)];')).toMatchObject({
      ok: true,
      value: [true, 'undefined', ['console']],
    });
  });

  it('keeps prototype pollution on api results inside the sandbox', async () => {
    const outcome = await run(`
      const pets = await api.listPets();
      pets[0].__proto__.polluted = 1;
      Object.prototype.x = 1;
      Array.prototype.evil = () => 'evil';
      const echoed = await api.echo(JSON.parse('{"__proto__": {"polluted": 2}}'));
      return [({}).polluted, [].evil(), Object.keys(echoed)];`);
    expect(outcome).toMatchObject({ ok: true, value: [1, 'evil', ['__proto__']] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).evil).toBeUndefined();
    expect(PETS[0]).toEqual({ id: 1, name: 'Rex', tag: 'dog' });
  });

  it('does not carry globals from one run to the next', async () => {
    expect(await run('globalThis.leftover = 42; Object.prototype.y = 1; return 1;')).toMatchObject({ ok: true });
    expect(await run('return [typeof leftover, ({}).y];')).toMatchObject({ ok: true, value: ['undefined', null] });
  });
});

describe('runProgram: cost', () => {
  it('does not grow the host memory over many runs', async () => {
    const body = 'const a = [];\nfor (let i = 0; i < 200; i++) a.push("x".repeat(10000) + i);\nreturn a.length;';
    for (let i = 0; i < 5; i++) await run(body);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 150; i++) expect(await run(body)).toMatchObject({ ok: true, value: 200 });
    const grown = process.memoryUsage().rss - before;
    // each run touches ~20 MiB of its own instance: kept, 150 runs would be 3 GiB
    expect(grown).toBeLessThan(400 * 1024 * 1024);
  });

  it('prints the time of one run with one api call (for the record, not a limit)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await run('const pets = await api.listPets();\nreturn pets.map((p) => p.name);');
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(
      `sandbox: one run with one api call: first ${times.at(-1)?.toFixed(1)} ms (slowest), median ${times[10]?.toFixed(1)} ms, fastest ${times[0]?.toFixed(1)} ms`,
    );
  });
});
