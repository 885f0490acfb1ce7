// The ajv validator (validator.ts): each schema compiled to JavaScript with `new Function`, so
// it cannot run where code from strings is forbidden (Cloudflare Workers). JSON Schema 2020-12,
// the dialect of MCP tool schemas (prefixItems, $defs, unevaluated*), with ajv-formats.

import type { Ajv2020 } from 'ajv/dist/2020.js';
import { linearRegExpEngine } from '../../../../contract/limits.js';
import type { SchemaError, Validator } from '../validator.js';

export async function createValidator(warn: (message: string) => void): Promise<Validator> {
  const [ajvModule, formatsModule, re2] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats'), import('re2js')]);
  // both are CommonJS: the export is the module itself, or its `default` under some loaders
  const { Ajv2020: AjvClass } = ((ajvModule as { default?: unknown }).default ?? ajvModule) as typeof import('ajv/dist/2020.js');
  const addFormats = ((formatsModule as { default?: unknown }).default ?? formatsModule) as unknown as (ajv: Ajv2020) => void;
  // Spec patterns run on a linear-time engine: no pattern can freeze the server (limits.ts).
  const regExp = linearRegExpEngine(re2.RE2JS, (pattern, reason) =>
    warn(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not checked here (${reason}); the API still checks it`),
  );
  // ownProperties: an argument named `constructor` or `toString` is absent unless the client gave it.
  const ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: true, ownProperties: true, code: { regExp } });
  addFormats(ajv);
  return {
    compile(schema) {
      const validate = ajv.compile(schema);
      return (value) => (validate(value) ? undefined : ((validate.errors ?? []) as SchemaError[]));
    },
  };
}
