// The floor for generation: a node process that only loads a spec with swagger-parser (the
// same package and version mcp-gen uses) and exits.
//   node bench/floor.mjs dereference <spec>   resolve every $ref in place (the brief's floor)
//   node bench/floor.mjs bundle <spec>        what mcp-gen's loader calls, with its options
//   node bench/floor.mjs parse <spec>         only read and parse the file (JSON or YAML)
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import yaml from 'js-yaml';

const [mode, spec] = process.argv.slice(2);
if (mode === 'parse') {
  const text = readFileSync(spec, 'utf8');
  if (/^\s*[{[]/.test(text)) JSON.parse(text);
  else yaml.load(text);
} else if (mode === 'dereference') {
  await SwaggerParser.dereference(spec);
} else if (mode === 'bundle') {
  await new SwaggerParser().bundle(spec, { resolve: { external: true, http: false }, validate: { schema: false, spec: false } });
} else {
  process.stderr.write('usage: node bench/floor.mjs dereference|bundle|parse <spec>\n');
  process.exit(2);
}
