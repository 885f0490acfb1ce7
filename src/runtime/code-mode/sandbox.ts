// Code mode's sandbox: the agent's program (the body of `async (api) => { ... }`) runs in QuickJS
// compiled to WebAssembly (quickjs-emscripten, its synchronous release build). The program sees the
// standard built-ins QuickJS provides, `api` and `console`, nothing of the host: every value crosses
// the boundary as JSON text.
//
// `await api.x(args)` is a promise bridge, not asyncify: the host function returns a QuickJS promise
// that the host settles, with JSON text the sandbox parses, when its own promise settles, and this
// module runs the runtime's pending jobs after each settlement. The asyncify build would suspend the
// whole WebAssembly module while the host waits (one waiting call per module, so `Promise.all` over
// api calls would run them one after another), and it is a larger, slower build.
//
// Each run gets its own WebAssembly instance, with a memory whose maximum is the run's memory limit
// (plus the engine's fixed 16 MiB), as well as its own runtime and context, all dropped at the end.
// quickjs-emscripten 0.32.0's `setMemoryLimit` does not add up large blocks (strings, array buffers:
// a program under a 64 MiB limit reached the 2 GiB WebAssembly ceiling), so the memory's maximum is
// the limit that holds; `setMemoryLimit` still bounds the object heap. An instance costs a few ms
// (its code is compiled once per thread), and runs share no memory at all. The package itself is imported on the first run only, so a server
// that never runs code never loads it.
//
// Not held here: QuickJS polls the interrupt handler about every 10,000 calls and backward jumps, so
// a loop over costly built-ins runs past `timeMs` (measured: `s.indexOf('y')` over a 1 MiB string in
// a loop, 30 s for a 3 s budget); and the program runs on the server's thread, whose event loop
// waits while it computes. A worker thread terminated at a wall-clock deadline would hold both.
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../contract/limits.js';
import { platform } from '../start/platform.js';

export interface SandboxLimits {
  /** QuickJS runtime memory limit (--code-memory-mb) */
  memoryBytes: number;
  /** CPU budget of the program's own execution (time spent waiting for api calls not counted), enforced by the interrupt handler (--code-time-ms) */
  timeMs: number;
  /** most api.* calls per run (--code-max-calls) */
  maxCalls: number;
  /** most bytes of the JSON result (--code-max-result-bytes) */
  maxResultBytes: number;
  /** most bytes of console output kept (the rest cut, with a note; CODE_LIMIT_DEFAULTS in contract/settings.ts) */
  maxLogBytes: number;
}

export interface SandboxApi {
  /** The operations the program may call as api.<name>(args), or api.<namespace>.<name>(args) for a name `<namespace>.<name>`. */
  names: readonly string[];
  /** Performs one call through the server's normal tool path; resolves with the JSON value the program sees, or rejects with an Error whose message the program sees. */
  call(name: string, args: unknown, signal: AbortSignal): Promise<unknown>;
}

export interface SandboxClock {
  /**
   * Also count the interrupt handler's polls against the time limit, at STEPS_PER_MS: where the
   * clock may stand still while the program computes (deployed Workers advance it only on I/O).
   */
  countSteps: boolean;
}

export type SandboxOutcome =
  { ok: true; value: unknown; logs: string; calls: number } | { ok: false; error: string; logs: string; calls: number };

/**
 * QuickJS's own stack limit. Node's native stack (about 984 KiB) is spent faster than QuickJS's
 * count: measured with quickjs-emscripten 0.32.0 on Node 20, 320 KiB already overflows V8's stack
 * first (a host RangeError that leaves the engine broken), 256 KiB does not even with 1,000 host
 * frames below the call. 256 KiB allows about 1,300 nested calls of a small function.
 */
const STACK_BYTES = 256 * 1024;
/**
 * The interrupt handler's polls that stand for one ms of the program's time, where they are
 * counted: QuickJS polls every ~10,000 calls and backward jumps, measured on workerd (wrangler dev)
 * at 5.6 to 46 polls per ms for plain loops, far fewer for loops over costly built-ins (0.05 for
 * JSON.stringify of a small object). Set about the fastest, so that the count rarely ends a
 * program before its time would, and a plain loop ends within ~9 times its limit when the clock stands still.
 */
const STEPS_PER_MS = 50;
/** The memory the error description gets beyond the limit, so that an out-of-memory error can still be read. */
const DESCRIBE_HEADROOM_BYTES = 1024 * 1024;
/** Memory the prelude holds and frees before describing an error, for the same reason (the instance's memory has a hard maximum). */
const RESERVE_BYTES = 1024 * 1024;
const PROGRAM_FILE = 'program.js';
/** The body starts on the wrapper's second line: a line number in the program's stack is one more than the body's. */
const WRAPPER_HEAD = '(async (api) => {\n';
const WRAPPER_TAIL = '\n})';
const ABORTED = 'the run was aborted';
const NEVER_SETTLES =
  "the program's promise never settles: it awaits something that nothing will resolve (no api call is pending and no job is queued)";

/**
 * Runs in the sandbox before the program, in its own file name (so its frames never pass for the
 * program's), and returns the helpers. It keeps JSON and the constructors it needs from before the
 * program runs; a program that changes the built-ins can only break its own run, since the host
 * takes nothing but strings from it and checks their types.
 */
const PRELUDE = String.raw`(hostCall, hostLog, namesJson) => {
  'use strict';
  const { stringify, parse } = JSON;
  const { freeze, create } = Object;
  const hasOwn = Object.hasOwn;
  const ErrorOf = Error, TypeErrorOf = TypeError, StringOf = String, ProxyOf = Proxy;
  const names = parse(namesJson);
  // freed before an error is described, so that describing an out-of-memory error has room
  let reserve = new ArrayBuffer(${RESERVE_BYTES});
  // each object's missing member is an error listing what it has
  const guarded = (target, place, what) => {
    const keys = Object.keys(target);
    const shown = keys.length <= 20 ? keys.join(', ') : keys.slice(0, 20).join(', ') + ', …';
    freeze(target);
    return new ProxyOf(target, {
      get(object, key) {
        if (typeof key === 'string' && hasOwn(object, key)) return object[key];
        if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined;
        throw new TypeErrorOf(place + '.' + key + ' is not ' + what + '; it has ' + keys.length + ': ' + shown);
      },
    });
  };

  const operationOf = (name) => async (args) => {
    const text = stringify(args === undefined ? {} : args);
    if (typeof text !== 'string') throw new TypeErrorOf('api.' + name + ' takes one JSON value, an object of the operation\'s arguments');
    // the caller's place, kept for an error after the await (whose stack no longer has the caller)
    const origin = new ErrorOf();
    let reply;
    try {
      reply = await hostCall(name, text);
    } catch (thrown) {
      // the host rejects with its message; a limit's error (thrown before any await) is already one
      if (typeof thrown !== 'string') throw thrown;
      const error = new ErrorOf(thrown);
      error.stack = origin.stack;
      throw error;
    }
    return parse(reply);
  };

  // a name with a dot is <namespace>.<operation>: a server of several APIs has an object per namespace
  const operations = create(null);
  const namespaces = create(null);
  for (const name of names) {
    const dot = name.indexOf('.');
    if (dot < 0) operations[name] = operationOf(name);
    else (namespaces[name.slice(0, dot)] ??= create(null))[name.slice(dot + 1)] = operationOf(name);
  }
  for (const namespace of Object.keys(namespaces)) operations[namespace] = guarded(namespaces[namespace], 'api.' + namespace, 'an operation of this API');
  const api = guarded(operations, 'api', Object.keys(namespaces).length > 0 ? 'an API of this server' : 'an operation of this API');

  const show = (value) => {
    try {
      if (typeof value === 'string') return value;
      if (typeof value === 'function') return '[function ' + (value.name || 'anonymous') + ']';
      if (value instanceof ErrorOf) return StringOf(value.name) + ': ' + StringOf(value.message);
      const text = stringify(value);
      if (typeof text === 'string') return text;
      return StringOf(value);
    } catch {
      try {
        return StringOf(value);
      } catch {
        return '[a value that cannot be shown]';
      }
    }
  };
  const printer = (level) => (...values) => {
    let line = '';
    for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ' ') + show(values[i]);
    hostLog(level, line);
  };
  globalThis.console = freeze({ log: printer('log'), info: printer('info'), warn: printer('warn'), error: printer('error'), debug: printer('debug') });

  const refuse = function (key, value) {
    const kind = typeof value;
    if (kind !== 'function' && kind !== 'symbol') return value;
    throw new TypeErrorOf((kind === 'function' ? 'a function' : 'a symbol') + (key === '' ? '' : ' at key ' + stringify(key)));
  };
  const finish = (value) => {
    if (value === undefined) return 'null';
    let text;
    try {
      text = stringify(value, refuse);
    } catch (error) {
      throw new TypeErrorOf('the result is not JSON: ' + show(error && error.message !== undefined ? error.message : error));
    }
    if (typeof text !== 'string') throw new TypeErrorOf('the result is not JSON');
    return text;
  };

  const describe = (thrown) => {
    reserve = undefined;
    let name = '', message = '', stack = '';
    try {
      if (thrown !== null && (typeof thrown === 'object' || typeof thrown === 'function')) {
        name = thrown.name === undefined ? '' : StringOf(thrown.name);
        message = thrown.message === undefined ? '' : StringOf(thrown.message);
        if (typeof thrown.stack === 'string') stack = thrown.stack;
        if (name === '' && message === '') message = show(thrown);
      } else {
        message = 'the program threw ' + show(thrown);
      }
    } catch {
      message = 'the program threw a value that cannot be shown';
    }
    return stringify({ name, message, stack });
  };

  return { api, finish, describe };
}`;

type QuickJSPackage = typeof import('quickjs-emscripten');
let quickjs: Promise<QuickJSPackage> | undefined;

/** The package, imported on first use; a failed import is tried again by the next run. */
function importQuickJS(): Promise<QuickJSPackage> {
  if (quickjs) return quickjs;
  const loading = import('quickjs-emscripten');
  quickjs = loading;
  loading.catch(() => {
    if (quickjs === loading) quickjs = undefined;
  });
  return loading;
}

type CompiledWasm = NonNullable<CustomizeVariantOptions['wasmModule']>;
let compiled: Promise<CompiledWasm | undefined> | undefined;

/**
 * The engine's WebAssembly code, compiled once per thread: each run still instantiates it afresh
 * with its own memory, but skips compiling 1 MB of code (measured: 15 ms for a thread's first
 * instance, 4 ms after): the platform's entry's (workerd), or the variant's own file
 * (engine-file.ts); when it cannot be read the variant loads it itself.
 */
function compiledEngine(): Promise<CompiledWasm | undefined> {
  const given = platform().quickjsWasm;
  if (given !== undefined) return Promise.resolve(given as CompiledWasm);
  compiled ??= (async () => {
    try {
      return await (await import('./engine-file.js')).compileEngineFile<CompiledWasm>();
    } catch {
      return undefined;
    }
  })();
  return compiled;
}

/** The memory the engine starts with (its initial memory: static data, its own stack, the first heap). */
const ENGINE_BYTES = 16 * 1024 * 1024;
const WASM_PAGE = 65_536;
const WASM_MAX_PAGES = 32_768;

/** Node's WebAssembly global: its type declarations (ES2023 and Node's, no DOM) do not declare it as a value. */
type WasmMemory = NonNullable<CustomizeVariantOptions['emscriptenModule']>['wasmMemory'];
const WASM = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory } })
  .WebAssembly;

/** A new WebAssembly instance whose memory cannot grow past the engine's own plus `memoryBytes`. */
async function newQuickJS(memoryBytes: number): Promise<QuickJSWASMModule> {
  const [{ newQuickJSWASMModule, newVariant, RELEASE_SYNC }, wasmModule] = await Promise.all([importQuickJS(), compiledEngine()]);
  const initial = ENGINE_BYTES / WASM_PAGE;
  const maximum = Math.min(WASM_MAX_PAGES, Math.max(initial, Math.ceil((ENGINE_BYTES + memoryBytes) / WASM_PAGE)));
  const wasmMemory = new WASM.Memory({ initial, maximum });
  // the engine's own messages (an assertion when a faulted runtime is freed) would go to stderr;
  // the instance is dropped with its run, and the run's outcome says what the program saw
  const emscriptenModule = { wasmMemory, print: ignore, printErr: ignore };
  return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory, emscriptenModule, ...(wasmModule ? { wasmModule } : {}) }));
}

/**
 * Runs one program; every failure of the program (syntax, exceptions, limits, abort) is an outcome,
 * never a throw. The program's promise must settle: it ends when it does, when the time or memory
 * limit is reached, when `signal` aborts, or when it waits on nothing the host could settle.
 */
export async function runProgram(
  body: string,
  api: SandboxApi,
  limits: SandboxLimits,
  signal: AbortSignal,
  clock: SandboxClock = { countSteps: false },
): Promise<SandboxOutcome> {
  const logs = new Logs(limits.maxLogBytes);
  if (signal.aborted) return { ok: false, error: ABORTED, logs: logs.text(), calls: 0 };
  let module: QuickJSWASMModule;
  try {
    module = await newQuickJS(limits.memoryBytes);
  } catch (error) {
    return { ok: false, error: `the sandbox could not start: ${oneLine(messageOf(error))}`, logs: logs.text(), calls: 0 };
  }
  if (signal.aborted) return { ok: false, error: ABORTED, logs: logs.text(), calls: 0 };
  const run = new Run(module, api, limits, signal, logs, clock);
  try {
    return await run.execute(body);
  } catch (error) {
    // the engine itself failed (a host stack overflow inside WebAssembly, an aborted instance):
    // its instance is dropped with the run, untouched
    run.broken = true;
    return run.failed(`the sandbox failed: ${oneLine(messageOf(error))}`);
  } finally {
    run.dispose();
  }
}

interface Helpers {
  api: QuickJSHandle;
  finish: QuickJSHandle;
  describe: QuickJSHandle;
}

interface Settled {
  deferred: QuickJSDeferredPromise;
  ok: boolean;
  text: string;
}

class Run {
  private readonly runtime: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly owned: QuickJSHandle[] = [];
  private readonly waiting = new Set<QuickJSDeferredPromise>();
  private readonly settled: Settled[] = [];
  private readonly controller = new AbortController();
  private readonly names: Set<string>;
  private calls = 0;
  private pendingCalls = 0;
  /** CPU time the program has used, in ms, and the start of the current slice (-1: not in QuickJS) */
  private used = 0;
  private sliceStart = -1;
  private interrupted = false;
  /** the interrupt handler's polls, counted with clock.countSteps */
  private steps = 0;
  private aborted = false;
  private finished = false;
  private wake: (() => void) | undefined;
  private bodyLines = 0;
  /** set when the engine faulted: disposing it then is not tried */
  broken = false;

  constructor(
    module: QuickJSWASMModule,
    private readonly api: SandboxApi,
    private readonly limits: SandboxLimits,
    private readonly signal: AbortSignal,
    private readonly logs: Logs,
    private readonly clock: SandboxClock,
  ) {
    this.names = new Set(api.names);
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(STACK_BYTES);
    this.runtime.setInterruptHandler(() => {
      if (this.aborted || this.overBudget()) this.interrupted = true;
      return this.interrupted;
    });
    // import() and import declarations fail: there is no module to load
    this.runtime.setModuleLoader(() => ({ error: new Error('import is not available in the sandbox') }));
    this.ctx = this.runtime.newContext();
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.aborted = true;
    this.controller.abort(this.signal.reason);
    this.wakeUp();
  };

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private overBudget(): boolean {
    if (this.clock.countSteps && ++this.steps > this.limits.timeMs * STEPS_PER_MS) return true;
    const current = this.sliceStart < 0 ? 0 : performance.now() - this.sliceStart;
    return this.used + current > this.limits.timeMs;
  }

  /** Runs fn in QuickJS, counting its time against the budget. */
  private inVm<T>(fn: () => T): T {
    this.sliceStart = performance.now();
    try {
      return fn();
    } finally {
      this.used += performance.now() - this.sliceStart;
      this.sliceStart = -1;
    }
  }

  private own(handle: QuickJSHandle): QuickJSHandle {
    this.owned.push(handle);
    return handle;
  }

  failed(error: string): SandboxOutcome {
    return { ok: false, error, logs: this.logs.text(), calls: this.calls };
  }

  async execute(body: string): Promise<SandboxOutcome> {
    const helpers = this.prepare();
    this.bodyLines = body.split('\n').length;
    const compiled = this.inVm(() => this.ctx.evalCode(WRAPPER_HEAD + body + WRAPPER_TAIL, PROGRAM_FILE, { type: 'global', strict: true }));
    if (compiled.error) return this.failure(helpers, this.own(compiled.error));
    const program = this.own(compiled.value);
    if (this.ctx.typeof(program) !== 'function')
      return this.failed('the program must be the body of a function: its braces do not balance');
    const started = this.inVm(() => this.ctx.callFunction(program, this.ctx.undefined, helpers.api));
    if (started.error) return this.failure(helpers, this.own(started.error));
    const promise = this.own(started.value);

    for (;;) {
      if (this.aborted) return this.failed(ABORTED);
      this.deliver();
      const jobs = this.inVm(() => this.runtime.executePendingJobs(-1));
      if (jobs.error) return this.failure(helpers, this.own(jobs.error));
      if (this.interrupted) return this.failed(this.interruption());
      const state = this.ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') return this.result(helpers, this.own(state.value));
      if (state.type === 'rejected') return this.failure(helpers, this.own(state.error));
      if (this.settled.length > 0) continue;
      if (this.pendingCalls === 0 && !this.runtime.hasPendingJob()) return this.failed(NEVER_SETTLES);
      if (!this.runtime.hasPendingJob()) await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The prelude's helpers, with the two host functions the sandbox may call. */
  private prepare(): Helpers {
    const call = this.own(this.ctx.newFunction('call', (name, args) => this.onCall(name, args)));
    const log = this.own(this.ctx.newFunction('log', (level, line) => this.onLog(level, line)));
    const names = this.own(this.ctx.newString(JSON.stringify([...this.names])));
    const prelude = this.own(
      this.ctx.unwrapResult(this.inVm(() => this.ctx.evalCode(PRELUDE, 'sandbox.js', { type: 'global', strict: true }))),
    );
    const helpers = this.own(this.ctx.unwrapResult(this.inVm(() => this.ctx.callFunction(prelude, this.ctx.undefined, call, log, names))));
    return {
      api: this.own(this.ctx.getProp(helpers, 'api')),
      finish: this.own(this.ctx.getProp(helpers, 'finish')),
      describe: this.own(this.ctx.getProp(helpers, 'describe')),
    };
  }

  /** api.<name>(args) reached the host: count it, and start the call outside QuickJS's time slice. */
  private onCall(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle | { error: QuickJSHandle } {
    const name = this.ctx.typeof(nameHandle) === 'string' ? this.ctx.getString(nameHandle) : '';
    const text = this.ctx.typeof(argsHandle) === 'string' ? this.ctx.getString(argsHandle) : '';
    if (this.finished || !this.names.has(name))
      return { error: this.ctx.newError({ name: 'TypeError', message: `api.${name} is not an operation of this API` }) };
    if (this.calls >= this.limits.maxCalls) return { error: this.ctx.newError(`more than ${this.limits.maxCalls} api calls`) };
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch {
      return { error: this.ctx.newError({ name: 'TypeError', message: `api.${name} takes one JSON value` }) };
    }
    this.calls++;
    this.pendingCalls++;
    const deferred = this.ctx.newPromise();
    this.waiting.add(deferred);
    const signal = this.controller.signal;
    Promise.resolve()
      .then(() => this.api.call(name, args, signal))
      .then(
        (value) => this.onSettled(deferred, ...replyOf(value)),
        (error: unknown) => this.onSettled(deferred, false, messageOf(error)),
      );
    return deferred.handle;
  }

  private onSettled(deferred: QuickJSDeferredPromise, ok: boolean, text: string): void {
    if (this.finished) return;
    this.pendingCalls--;
    this.settled.push({ deferred, ok, text });
    this.wakeUp();
  }

  /** Settles the program's promises of the api calls that ended (no program code runs here, only enqueued). */
  private deliver(): void {
    for (let next = this.settled.shift(); next; next = this.settled.shift()) {
      const { deferred, ok, text } = next;
      this.waiting.delete(deferred);
      const value = this.ctx.newString(text);
      try {
        if (ok) deferred.resolve(value);
        else deferred.reject(value);
      } finally {
        value.dispose();
        deferred.dispose();
      }
    }
  }

  private onLog(levelHandle: QuickJSHandle, lineHandle: QuickJSHandle): void {
    if (this.ctx.typeof(levelHandle) !== 'string' || this.ctx.typeof(lineHandle) !== 'string') return;
    const level = this.ctx.getString(levelHandle);
    const line = this.ctx.getString(lineHandle);
    this.logs.add(level === 'warn' || level === 'error' ? `${level}: ${line}` : line);
  }

  private interruption(): string {
    if (this.aborted) return ABORTED;
    return `the program ran longer than its time limit of ${this.limits.timeMs} ms (CPU time; waiting for api calls does not count)`;
  }

  private result(helpers: Helpers, value: QuickJSHandle): SandboxOutcome {
    const finished = this.inVm(() => this.ctx.callFunction(helpers.finish, this.ctx.undefined, value));
    if (finished.error) return this.failure(helpers, this.own(finished.error));
    const json = this.own(finished.value);
    if (this.ctx.typeof(json) !== 'string') return this.failed('the result is not JSON');
    const text = this.ctx.getString(json);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.limits.maxResultBytes) {
      return this.failed(`the result is ${bytes} bytes, more than the limit ${this.limits.maxResultBytes}: return less`);
    }
    // as deep, the server could not send it (the SDK's send overflows the stack): bounded as JSON from the wire is
    if (jsonDeeperThan(text, MAX_JSON_DEPTH))
      return this.failed(`the result nests deeper than ${MAX_JSON_DEPTH} levels: return a flatter value`);
    return { ok: true, value: JSON.parse(text) as unknown, logs: this.logs.text(), calls: this.calls };
  }

  /** What the program threw, as one line with the body's line:column when its stack has one. */
  private failure(helpers: Helpers, thrown: QuickJSHandle): SandboxOutcome {
    if (this.interrupted) return this.failed(this.interruption());
    const described = this.describe(helpers, thrown);
    if (described === undefined) return this.failed('the program failed with an error that cannot be read');
    const { name, message, stack } = described;
    const where = this.whereIn(stack);
    if (name === 'InternalError' && message === 'out of memory') {
      return this.failed(`the program ran out of memory: its limit is ${formatBytes(this.limits.memoryBytes)}${where}`);
    }
    const hint = name === 'InternalError' && message === 'stack overflow' ? ': recursion deeper than the sandbox allows' : '';
    return this.failed(oneLine(`${name === '' ? '' : `${name}: `}${message}${where}${hint}`));
  }

  private describe(helpers: Helpers, thrown: QuickJSHandle): { name: string; message: string; stack: string } | undefined {
    this.runtime.setMemoryLimit(this.limits.memoryBytes + DESCRIBE_HEADROOM_BYTES);
    const result = this.inVm(() => this.ctx.callFunction(helpers.describe, this.ctx.undefined, thrown));
    if (result.error) {
      this.own(result.error);
      return undefined;
    }
    const text = this.own(result.value);
    if (this.ctx.typeof(text) !== 'string') return undefined;
    try {
      const parsed = JSON.parse(this.ctx.getString(text)) as { name?: unknown; message?: unknown; stack?: unknown };
      return { name: String(parsed.name ?? ''), message: String(parsed.message ?? ''), stack: String(parsed.stack ?? '') };
    } catch {
      return undefined;
    }
  }

  /** " (line L:C)" from the first frame of the program in a QuickJS stack, or "". */
  private whereIn(stack: string): string {
    const frame = /program\.js:(\d+):(\d+)/.exec(stack);
    if (!frame) return '';
    const line = Number(frame[1]) - 1;
    if (line < 1) return '';
    if (line > this.bodyLines) return ' (at the end of the program)';
    return ` (line ${line}:${frame[2]})`;
  }

  /** Frees the run's handles, context and runtime (the instance goes with the run). */
  dispose(): void {
    this.finished = true;
    this.signal.removeEventListener('abort', this.onAbort);
    // api calls the program started and no longer waits for (or all, after an abort or a limit)
    this.controller.abort(new Error('the program ended'));
    if (this.broken) return;
    try {
      for (const deferred of this.waiting) deferred.dispose();
      for (const handle of this.owned.reverse()) if (handle.alive) handle.dispose();
      this.ctx.dispose();
      this.runtime.dispose();
    } catch {
      // a leaked handle or a faulted engine: the instance is dropped all the same
    }
  }
}

/** The JSON text the program gets for an api call's value, or the message of the error it gets instead. */
function replyOf(value: unknown): [ok: boolean, text: string] {
  try {
    const text = value === undefined ? 'null' : JSON.stringify(value);
    if (typeof text === 'string') return [true, text];
  } catch {
    // below
  }
  return [false, 'the api call returned a value that is not JSON'];
}

/** Console output, cut at a byte budget: what comes after the cut is counted, not kept. */
class Logs {
  private readonly lines: string[] = [];
  private used = 0;
  private cut = 0;

  constructor(private readonly maxBytes: number) {}

  add(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    if (this.cut === 0 && this.used + bytes <= this.maxBytes) {
      this.lines.push(line);
      this.used += bytes;
      return;
    }
    if (this.cut === 0 && this.used < this.maxBytes) {
      const kept = Buffer.from(line)
        .subarray(0, this.maxBytes - this.used)
        .toString()
        .replace(/\uFFFD$/, '');
      this.lines.push(kept);
      const keptBytes = Buffer.byteLength(kept);
      this.used += keptBytes;
      this.cut += bytes - keptBytes;
      return;
    }
    this.cut += bytes;
  }

  text(): string {
    const kept = this.lines.join('\n');
    if (this.cut === 0) return kept;
    return `${kept}${kept === '' ? '' : '\n'}[… ${this.cut} bytes of output cut]`;
  }
}

function ignore(): void {}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
