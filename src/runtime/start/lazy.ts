// A value made once, on first need: the table, the service, the long-running module. Starting a
// server makes none of them; the first request that needs one waits for it, and later ones share it.
// A making that failed is not kept: the next request tries again (a platform's isolate has no
// restart to clear a passing failure, such as an authorization server not answering yet).

/** A value made once, on first need; `value` is set once it is made. */
export class Lazy<T> {
  value: T | undefined;
  #making: Promise<T> | undefined;
  readonly #make: () => Promise<T>;

  constructor(make: () => Promise<T>) {
    this.#make = make;
  }

  get(): Promise<T> {
    return (this.#making ??= this.#make().then(
      (value) => (this.value = value),
      (error: unknown) => {
        this.#making = undefined;
        throw error;
      },
    ));
  }
}
