// js-yaml, loaded on first use: most specs are JSON, and loading it costs ~30 ms of every run.

import { createRequire } from 'node:module';

type JsYaml = typeof import('js-yaml');

const require = createRequire(import.meta.url);
let loaded: JsYaml | undefined;

export function jsYaml(): JsYaml {
  return (loaded ??= require('js-yaml') as JsYaml);
}
