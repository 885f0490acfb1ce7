// The call's scope by AsyncLocalStorage (node:async_hooks): Node's, Deno's, and workerd's with
// the nodejs_compat flag. Loaded by observe.ts with import() where the platform has it.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallScopes } from './call-scope.js';

export function asyncScopes<T>(): CallScopes<T> {
  const storage = new AsyncLocalStorage<T>();
  return {
    run: (value, fn) => storage.run(value, fn),
    current: () => storage.getStore(),
    bind: (fn) => AsyncLocalStorage.bind(fn),
  };
}
