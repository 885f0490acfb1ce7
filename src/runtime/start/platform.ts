// Where the server runs, as far as the runtime must know it: one value per process, set by the
// platform's entry before anything is served (Node's is the default). Each difference between
// platforms is one field here, read by the one module it concerns.

export type PlatformName = 'node' | 'cloudflare' | 'deno' | 'vercel' | 'lambda';

export interface Platform {
  name: PlatformName;
  /**
   * How requests reach the API: node:http with keep-alive pools (Node), or the platform's fetch
   * (every other platform: workerd has no node:http server nor client sockets of its own).
   */
  upstream: 'node-http' | 'fetch';
  /**
   * Whether an API address can be screened as it is connected to (node:http's lookup hook).
   * A platform's fetch resolves names itself and tells nothing of the address it reached.
   */
  screensAddresses: boolean;
  /** The variables and secrets: the settings and the API's credentials (process.env on Node). */
  env: Record<string, string | undefined>;
  /**
   * Where code mode's programs run: a pool of worker threads, or the isolate itself where there
   * are none (workerd), with the CPU limit held by QuickJS's interrupt handler alone.
   */
  sandbox: 'worker-threads' | 'in-process';
  /**
   * How a call's scope is carried across awaits (observe/call-scope.ts): AsyncLocalStorage on
   * every platform today (workerd's by the nodejs_compat flag); 'none' would keep calls apart
   * but lose the call log's attempts, the trace context sent upstream and the client's log.
   */
  callScopes: 'async-local-storage' | 'none';
  /** Whether the platform stops a request's work once it is answered (no waitUntil here): then no task can outlive its call. */
  answerEndsWork: boolean;
  /**
   * How traces are exported: by the OpenTelemetry SDK, batched (Node), or as OTLP/HTTP JSON with
   * fetch, each call's spans before its answer (observe/telemetry-web.ts: every other platform).
   */
  traces: 'otel-sdk' | 'fetch-json';
  /**
   * QuickJS's WebAssembly, compiled by the platform from the entry's import: workerd compiles no
   * WebAssembly from bytes at run time. Undefined: the sandbox compiles the package's file itself.
   */
  quickjsWasm?: object;
  /** The platform's bindings by name (Workers: KV namespaces), for the settings that name one. */
  bindings?: Record<string, unknown>;
}

/** What a platform's entry hands over besides its variables. */
export interface PlatformModules {
  /** The `WebAssembly.Module` of @jitl/quickjs-wasmfile-release-sync/wasm, for code mode. */
  quickjsWasm?: object;
  /** The platform's bindings by name (Workers: the KV namespace MCP_OPERATION_STORE may name). */
  bindings?: Record<string, unknown>;
}

let current: Platform = {
  name: 'node',
  upstream: 'node-http',
  screensAddresses: true,
  env: process.env,
  sandbox: 'worker-threads',
  callScopes: 'async-local-storage',
  answerEndsWork: false,
  traces: 'otel-sdk',
};

/** The platform this process serves on. */
export function platform(): Platform {
  return current;
}

/** Set once by a platform's entry, before its first request. */
export function runOn(name: Exclude<PlatformName, 'node'>, env: Record<string, string | undefined>, modules: PlatformModules = {}): void {
  const sandbox = name === 'cloudflare' ? 'in-process' : 'worker-threads';
  const answerEndsWork = name === 'cloudflare' || name === 'vercel' || name === 'lambda';
  current = {
    name,
    upstream: 'fetch',
    screensAddresses: false,
    env,
    sandbox,
    callScopes: 'async-local-storage',
    answerEndsWork,
    traces: 'fetch-json',
    ...modules,
  };
}
