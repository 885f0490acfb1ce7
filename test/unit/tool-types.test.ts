// src/tool-types.ts of a generated project (src/emit/types.ts): the types a JSON Schema gives,
// cycles TypeScript cannot resolve broken to `unknown`, and the file type-checked on its own
// with the corpus check's checker (test/support/corpus-check.ts toolTypesProblem).
import { describe, expect, it } from 'vitest';
import { ts } from 'ts-morph';
import { emitToolTypes, quote } from '../../src/emit/types.js';
import { toolTypesProblem } from '../support/corpus-check.js';
import type { JsonSchema, ToolTable } from '../../templates/runtime/table.js';

const table = (inputSchema: JsonSchema, defs: Record<string, JsonSchema> = {}): ToolTable => ({
  format: 1,
  name: 't',
  version: '1',
  servers: [],
  defs,
  auth: {},
  tools: [
    { name: 'op', description: 'd', inputSchema, defs: Object.keys(defs), annotations: {}, http: { method: 'GET', path: '/', params: [] } },
  ],
});
const ref = (key: string): JsonSchema => ({ $ref: `#/$defs/${key}` });

describe('emitToolTypes', () => {
  it('maps JSON Schema to TypeScript: required and optional, enums, const, arrays, unions, nullable, open objects', async () => {
    const text = emitToolTypes(
      table({
        type: 'object',
        properties: {
          id: { type: 'integer' },
          status: { enum: ['a', 'b', 3, null] },
          kind: { const: 'x' },
          tags: { type: 'array', items: { type: 'string' } },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          maybe: { type: ['string', 'null'] },
          meta: { type: 'object', additionalProperties: { type: 'string' } },
          'x-odd name': { type: 'boolean' },
        },
        required: ['id'],
        additionalProperties: false,
      }),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    for (const line of [
      'id: number;',
      'status?: "a" | "b" | 3 | null;',
      'kind?: "x";',
      'tags?: string[];',
      'either?: string | number;',
      'maybe?: string | null;',
      '[key: string]: string;',
      '"x-odd name"?: boolean;',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('cycles through object properties stay typed; eager cycles (whole type, union member, array element) become unknown and type-check', async () => {
    const text = emitToolTypes(
      table(
        { type: 'object', properties: { node: ref('Node'), value: ref('Value'), a: ref('A') } },
        {
          Node: { type: 'object', properties: { children: { type: 'array', items: ref('Node') } } }, // lazy: fine as is
          Value: { anyOf: [{ type: 'string' }, { type: 'array', items: ref('Value') }] }, // Vercel's EdgeConfigItemValue
          A: { allOf: [ref('B'), { type: 'object', properties: { a: { type: 'string' } } }] },
          B: { anyOf: [ref('A'), { type: 'string' }] },
        },
      ),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(text).toContain('children?: Defs["Node"][];');
    expect(text).toContain('Value: string | unknown[];');
  });

  it('a hostile name is a string literal, and the file holds no code', async () => {
    const text = emitToolTypes(table({ type: 'object', properties: { '"; process.exit(1); //': { enum: ['*/ x /*'] } } }));
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(text).toContain('"\\"; process.exit(1); //"?: "*/ x /*";');
  });

  // The text is written by hand, not by the compiler's printer: it must be what the printer
  // prints, byte for byte (a generated project must not change when the generator gets faster).
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  /** The statements after the header comment, parsed and printed again one by one, as the generator joins them. */
  const reprinted = (text: string) => {
    const file = ts.createSourceFile('tool-types.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    return file.statements.map((s) => printer.printNode(ts.EmitHint.Unspecified, s, file).replace(/^(\/\/.*\n)+/, '')).join('\n\n') + '\n';
  };

  it('quotes a string as the TypeScript printer does: escapes, \\0 before a digit, non-ASCII as \\uXXXX', () => {
    const file = ts.createSourceFile('x.ts', '', ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
    const printed = (text: string) => printer.printNode(ts.EmitHint.Unspecified, ts.factory.createStringLiteral(text), file);
    for (const text of [
      'plain',
      'a"b\\c\'d`e',
      '\t\v\f\b\r\n',
      '\0x',
      '\x001',
      '\u0001\u001f\u007f',
      'é€😀',
      '\u2028\u2029\u0085',
      '${x}',
    ]) {
      expect(quote(text)).toBe(printed(text));
    }
  });

  it('lays the file out as the TypeScript printer does: nested objects, unions, intersections, arrays, empty objects', () => {
    const text = emitToolTypes(
      table(
        {
          type: 'object',
          properties: {
            deep: {
              type: 'object',
              properties: { inner: { type: ['object', 'null'], properties: { n: { enum: [-1, 0.5, 1e21, true] } } } },
            },
            list: { type: 'array', items: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] } },
            both: { allOf: [ref('A'), { anyOf: [{ type: 'string' }, { type: 'number' }] }, { type: 'object', properties: {} }] },
            nested: { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'boolean' }] }, { allOf: [ref('A'), ref('A')] }] },
            open: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
            empty: { type: 'object' },
            'needs "quotes"\u00e9': { type: 'array', items: { type: 'array', items: { type: ['string', 'number'] } } },
          },
        },
        { A: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } },
      ),
    );
    expect(text).toContain('both?: Defs["A"] & (string | number) & {};');
    expect(text).toContain('nested?: (string | boolean) | (Defs["A"] & Defs["A"]);');
    expect(reprinted(text)).toBe(text.slice(text.indexOf('\nexport interface') + 1));
  });
});
