// Typed errors: the CLI maps each kind to one line and an exit code in one place (cli.ts).
// Everything else that escapes is a bug and is reported as such.

/** The spec cannot be read or used. `where` is a file, a JSON pointer or line:column. */
export class SpecError extends Error {
  constructor(
    message: string,
    readonly where?: string,
  ) {
    super(message);
    this.name = 'SpecError';
  }
}

/** A flag or config value is wrong. */
export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

/** Writing the output would destroy something the user owns, or the output drifted (--check). */
export class OutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputError';
  }
}
