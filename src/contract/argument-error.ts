// The error every check of a call argument throws, shared by the generator (server URL
// variables) and the server runtime (request building).

/** A tool argument that cannot be turned into a request. The message always names it. */
export class ArgumentError extends Error {
  readonly arg: string;
  /** `message` is the detail; it is prefixed with `argument "<arg>": `. */
  constructor(arg: string, message: string) {
    super(`argument "${arg}": ${message}`);
    this.name = 'ArgumentError';
    this.arg = arg;
  }
}
