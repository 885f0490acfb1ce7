// Loads the validator a server uses (validator.ts), each by import() only when chosen.

import type { Validator, ValidatorName } from '../validator.js';

const loading = new Map<ValidatorName, Promise<Validator>>();

/**
 * The validator, loaded on the first tool call rather than at start-up: `initialize` and
 * `tools/list` never need it, and loading one costs tens of ms (docs/benchmarks.md, section 12).
 * `warn` hears of spec patterns the linear-time engine cannot run (they go unchecked here).
 */
export function loadValidator(name: ValidatorName, warn: (message: string) => void): Promise<Validator> {
  let validator = loading.get(name);
  if (!validator) {
    validator = (name === 'ajv' ? import('./ajv.js') : import('./interpreted.js')).then((module) => module.createValidator(warn));
    loading.set(name, validator);
  }
  return validator;
}
