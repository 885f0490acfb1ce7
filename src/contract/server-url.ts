// Server URLs with their variables filled in: the generator shows the defaults, the server
// runtime sends to them.

import { ArgumentError } from './argument-error.js';
import { ownValue, type ServerSpec } from './table.js';

/**
 * A server URL with its `{variables}` filled in (OAS 3.1 Server Object / Server Variable
 * Object): an override when given, else the variable's default. No trailing `/`, so that
 * operation paths, which start with `/`, can be appended.
 */
export function resolveServerUrl(server: ServerSpec, overrides?: Record<string, string>): string {
  const url = server.url.replace(/\{([^{}]*)\}/g, (_whole, name: string) => {
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
