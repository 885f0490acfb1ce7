// A reference for src/emit/types.ts: the same types built as TypeScript factory nodes and
// printed by the compiler's printer, node by node, which is what types.ts's text must match
// byte for byte. It shares no object type and types every tool anew: within the depth limit
// that prints what sharing prints.
import { compiler } from '../../../src/emit/compiler.js';
import { eagerCycles, refKey, type TypesInput } from '../../../src/emit/types.js';
import type { JsonSchema } from '../../../src/contract/table.js';

type Ts = ReturnType<typeof compiler>;
type TypeNode = import('ts-morph').ts.TypeNode;

const MAX_DEPTH = 24;
const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Reference {
  ts: Ts;
  defs: Record<string, JsonSchema>;
  cyclic: Set<string>;
}

/** The declarations of src/tool-types.ts (without its header), as the printer prints their nodes. */
export function printedDeclarations(table: TypesInput): string {
  const ts = compiler();
  const f = ts.factory;
  const reference: Reference = { ts, defs: table.defs, cyclic: eagerCycles(table.defs) };
  const file = ts.createSourceFile('tool-types.ts', '', ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const print = (node: import('ts-morph').ts.Node) => printer.printNode(ts.EmitHint.Unspecified, node, file);
  const exported = [f.createModifier(ts.SyntaxKind.ExportKeyword)];
  const declaration = (id: string, members: [string, TypeNode][]) =>
    print(
      f.createInterfaceDeclaration(
        exported,
        id,
        undefined,
        undefined,
        members.map(([name, type]) => f.createPropertySignature(undefined, propertyName(ts, name), undefined, type)),
      ),
    );
  return [
    declaration(
      'ToolArguments',
      table.tools.map((t) => [t.name, typeOf(reference, t.inputSchema, 0)]),
    ),
    declaration(
      'ToolResults',
      table.tools.map((t) => [t.name, resultType(reference, t)]),
    ),
    print(
      f.createTypeAliasDeclaration(
        exported,
        'ToolName',
        undefined,
        f.createTypeOperatorNode(ts.SyntaxKind.KeyOfKeyword, f.createTypeReferenceNode('ToolArguments')),
      ),
    ),
    declaration(
      'Defs',
      Object.entries(table.defs).map(([key, def]) => [key, typeOf(reference, def, 0, reference.cyclic.has(key))]),
    ),
  ].join('\n\n');
}

function resultType(reference: Reference, tool: TypesInput['tools'][number]): TypeNode {
  if (tool.output === undefined) return keyword(reference.ts, 'unknown');
  if (!tool.output.wrap) return typeOf(reference, tool.output.schema, 0);
  return typeOf(reference, (tool.output.schema.properties as Record<string, unknown> | undefined)?.result, 0);
}

function typeOf(reference: Reference, schema: unknown, depth: number, inCycle = false): TypeNode {
  const { ts } = reference;
  const f = ts.factory;
  if (schema === false) return keyword(ts, 'never');
  if (!isSchema(schema) || depth > MAX_DEPTH) return keyword(ts, 'unknown');
  if (typeof schema.$ref === 'string') {
    const key = refKey(schema, reference.defs);
    if (key === undefined || (inCycle && reference.cyclic.has(key))) return keyword(ts, 'unknown');
    return f.createIndexedAccessTypeNode(f.createTypeReferenceNode('Defs'), literalType(ts, key));
  }
  if ('const' in schema) return literalType(ts, schema.const);
  if (Array.isArray(schema.enum))
    return union(
      ts,
      schema.enum.map((value) => literalType(ts, value)),
    );
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0)
      return union(
        ts,
        options.map((o) => typeOf(reference, o, depth + 1, inCycle)),
      );
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((o) => grouped(ts, typeOf(reference, o, depth + 1, inCycle)));
    return parts.length === 1 ? (parts[0] as TypeNode) : f.createIntersectionTypeNode(parts);
  }
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return schema.properties !== undefined ? objectType(reference, schema, depth) : keyword(ts, 'unknown');
  return union(
    ts,
    types.map((type) => typeOfType(reference, schema, type, depth, inCycle)),
  );
}

function typeOfType(reference: Reference, schema: JsonSchema, type: unknown, depth: number, inCycle: boolean): TypeNode {
  const { ts } = reference;
  if (type === 'string' || type === 'number' || type === 'boolean') return keyword(ts, type);
  if (type === 'integer') return keyword(ts, 'number');
  if (type === 'null') return literalType(ts, null);
  if (type === 'array') return ts.factory.createArrayTypeNode(grouped(ts, typeOf(reference, schema.items ?? true, depth + 1, inCycle)));
  if (type === 'object') return objectType(reference, schema, depth);
  return keyword(ts, 'unknown');
}

function objectType(reference: Reference, schema: JsonSchema, depth: number): TypeNode {
  const { ts } = reference;
  const f = ts.factory;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r) => typeof r === 'string') : []);
  const members: import('ts-morph').ts.TypeElement[] = Object.entries(isSchema(schema.properties) ? schema.properties : {}).map(
    ([prop, sub]) =>
      f.createPropertySignature(
        undefined,
        propertyName(ts, prop),
        required.has(prop) ? undefined : f.createToken(ts.SyntaxKind.QuestionToken),
        typeOf(reference, sub, depth + 1),
      ),
  );
  const extra = schema.additionalProperties;
  if (extra === true || isSchema(extra)) {
    const valueType = members.length > 0 ? keyword(ts, 'unknown') : typeOf(reference, extra, depth + 1);
    members.push(
      f.createIndexSignature(
        undefined,
        [f.createParameterDeclaration(undefined, undefined, 'key', undefined, keyword(ts, 'string'))],
        valueType,
      ),
    );
  }
  return f.createTypeLiteralNode(members);
}

function keyword(ts: Ts, kind: 'unknown' | 'never' | 'string' | 'number' | 'boolean'): TypeNode {
  const kinds = {
    unknown: ts.SyntaxKind.UnknownKeyword,
    never: ts.SyntaxKind.NeverKeyword,
    string: ts.SyntaxKind.StringKeyword,
    number: ts.SyntaxKind.NumberKeyword,
    boolean: ts.SyntaxKind.BooleanKeyword,
  } as const;
  return ts.factory.createKeywordTypeNode(kinds[kind]);
}

function propertyName(ts: Ts, text: string) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text) ? ts.factory.createIdentifier(text) : ts.factory.createStringLiteral(text);
}

function literalType(ts: Ts, value: unknown): TypeNode {
  const f = ts.factory;
  if (typeof value === 'string') return f.createLiteralTypeNode(f.createStringLiteral(value));
  if (typeof value === 'boolean') return f.createLiteralTypeNode(value ? f.createTrue() : f.createFalse());
  if (value === null) return f.createLiteralTypeNode(f.createNull());
  if (typeof value === 'number' && Number.isFinite(value)) {
    const digits = f.createNumericLiteral(Math.abs(value));
    return f.createLiteralTypeNode(value < 0 ? f.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, digits) : digits);
  }
  return keyword(ts, 'unknown');
}

function grouped(ts: Ts, node: TypeNode): TypeNode {
  return ts.isUnionTypeNode(node) || ts.isIntersectionTypeNode(node) ? ts.factory.createParenthesizedType(node) : node;
}

function union(ts: Ts, nodes: TypeNode[]): TypeNode {
  return nodes.length === 0 ? keyword(ts, 'never') : nodes.length === 1 ? (nodes[0] as TypeNode) : ts.factory.createUnionTypeNode(nodes);
}
