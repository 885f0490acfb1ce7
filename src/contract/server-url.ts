// Server URLs with their variables filled in: the generator shows the defaults, the server
// runtime sends to them.

import { ArgumentError } from './argument-error.js';
import { ownValue, type ServerSpec } from './table.js';

const VARIABLE = /\{([^{}]*)\}/g;

/** The `{variables}` a server URL uses that its Server Variable Objects do not define (a common spec mistake). */
export function undefinedVariables(server: ServerSpec): string[] {
  const names = [...server.url.matchAll(VARIABLE)].map((m) => m[1] as string);
  return [...new Set(names)].filter((name) => ownValue(server.variables, name) === undefined);
}

/**
 * A server URL with its `{variables}` filled in (OAS 3.1 Server Object / Server Variable
 * Object): an override when given, else the variable's default. No trailing `/`, so that
 * operation paths, which start with `/`, can be appended.
 */
export function resolveServerUrl(server: ServerSpec, overrides?: Record<string, string>): string {
  const url = server.url.replace(VARIABLE, (_whole, name: string) => {
    const variable = ownValue(server.variables, name);
    const override = ownValue(overrides, name);
    if (override !== undefined) {
      // An enum is a closed list ("An enumeration of string values to be used if the
      // substitution options are from a limited set").
      if (variable?.enum && variable.enum.length > 0 && !variable.enum.includes(override)) {
        throw new ArgumentError(name, `server variable must be one of ${variable.enum.join(', ')}, got "${override}"`);
      }
      return override;
    }
    if (variable === undefined) throw new ArgumentError(name, `server URL ${server.url} uses an undefined variable`);
    return variable.default;
  });
  return url.replace(/\/+$/, '');
}
