// Parameters as the model makes them, for tests of what reads them.
import type { ParamSpec } from '../../src/contract/table.js';

/** A parameter with its location's default style (OAS 3.1.1 §4.8.12.4); path parameters required. */
export const param = (name: string, where: ParamSpec['in'], required = where === 'path'): ParamSpec => ({
  arg: name,
  name,
  in: where,
  style: where === 'query' ? 'form' : 'simple',
  explode: where === 'query',
  required,
});
