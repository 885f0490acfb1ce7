// The rules of each client profile, checked on a listed tool. Written from the clients' own
// rules (MCP tool names, what `inspector --cli --strict` warns about, OpenAI's strict function
// calling, Gemini's function declarations), not from templates/runtime/profiles.ts, so that a
// test using it checks the listing rather than restating it.

export type CheckedProfile = 'portable' | 'openai-strict' | 'gemini';
export interface CheckedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLES = ['items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const BOOLEAN_OK = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** What inspector --strict counts as constraining a value (its `untyped-schema` rule). */
const CONSTRAINING = new Set(
  'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern format contentMediaType contentEncoding contentSchema maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required dependentRequired allOf anyOf oneOf not items prefixItems contains additionalItems unevaluatedItems properties patternProperties additionalProperties unevaluatedProperties propertyNames dependentSchemas dependencies $ref $dynamicRef $recursiveRef'.split(' '),
);
const OPENAI_KEYS = new Set('type properties required additionalProperties items enum const anyOf description title pattern format minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems'.split(' '));
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const GEMINI_KEYS = new Set('type format description nullable enum properties required items minItems maxItems minimum maximum minLength maxLength pattern anyOf title propertyOrdering'.split(' '));
const GEMINI_FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

interface Visit {
  node: unknown;
  path: string;
  /** The keyword this subschema sits under (undefined at the top). */
  under: string | undefined;
  /** Objects above and including this one (openai-strict nesting). */
  objects: number;
}

/** Every subschema with its path, depth first; guarded against runaway depth. */
function* walk(root: unknown, base: string): Generator<Visit> {
  const stack: (Visit & { depth: number })[] = [{ node: root, path: base, under: undefined, objects: 0, depth: 0 }];
  while (stack.length) {
    const v = stack.pop() as Visit & { depth: number };
    const objects = v.objects + (isNode(v.node) && v.node.type === 'object' ? 1 : 0);
    yield { ...v, objects };
    if (!isNode(v.node) || v.depth > 200) continue;
    const push = (node: unknown, path: string, under: string) => stack.push({ node, path, under, objects, depth: v.depth + 1 });
    for (const key of MAPS) if (isNode(v.node[key])) for (const [name, child] of Object.entries(v.node[key] as Node)) push(child, `${v.path}.${key}.${name}`, key);
    for (const key of LISTS) if (Array.isArray(v.node[key])) (v.node[key] as unknown[]).forEach((child, i) => push(child, `${v.path}.${key}[${i}]`, key));
    for (const key of SINGLES) {
      const child = v.node[key];
      if (key === 'items' && Array.isArray(child)) child.forEach((c, i) => push(c, `${v.path}.items[${i}]`, 'items'));
      else if (child !== undefined) push(child, `${v.path}.${key}`, key);
    }
  }
}

/** Every rule `tool` breaks under `profile`, as "<tool> <where>: <rule>"; [] when it passes. */
export function profileViolations(tool: CheckedTool, profile: CheckedProfile): string[] {
  const found: string[] = [];
  const say = (where: string, rule: string) => found.push(`${tool.name} ${where}: ${rule}`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) say('name', 'not ^[A-Za-z0-9_-]{1,64}$');
  if (typeof tool.description === 'string' && tool.description.length > 400) say('description', 'longer than 400 characters');
  if (profile !== 'portable' && tool.outputSchema !== undefined) say('outputSchema', `${profile} lists no outputSchema`);

  const schemas: [string, Record<string, unknown> | undefined][] = [['inputSchema', tool.inputSchema], ['outputSchema', tool.outputSchema]];
  for (const [label, schema] of schemas) {
    if (schema === undefined) continue;
    if (schema.type !== 'object') say(label, 'top level is not type: "object"');
    for (const key of ['oneOf', 'anyOf', 'allOf', 'not', 'if', '$ref']) if (key in schema) say(label, `top level has ${key}`);
    let properties = 0;
    let enums = 0;
    for (const { node, path, under, objects } of walk(schema, label)) {
      if (typeof node === 'boolean') {
        if (!(under && BOOLEAN_OK.has(under))) say(path, `boolean schema ${node}`);
        continue;
      }
      if (!isNode(node)) {
        say(path, 'not a schema');
        continue;
      }
      for (const key of ['$ref', '$defs', 'definitions', '$dynamicRef']) if (key in node) say(path, `has ${key}`);
      if ('type' in node && !(typeof node.type === 'string' && TYPES.has(node.type))) say(path, `type ${JSON.stringify(node.type)} is not one type name`);
      if ('description' in node && !(typeof node.description === 'string' && node.description.length <= 400)) say(path, 'description is not a string of at most 400 characters');
      const top = path === label;
      if (profile === 'portable') {
        const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
        if (!constrains && under !== 'not') say(path, 'constrains nothing (untyped)');
      } else if (profile === 'openai-strict') {
        for (const key of Object.keys(node)) if (!OPENAI_KEYS.has(key)) say(path, `keyword ${key} is not supported`);
        if (!('type' in node || 'anyOf' in node || 'enum' in node || 'const' in node)) say(path, 'no type, anyOf, enum or const');
        if (node.type === 'object') {
          if (!isNode(node.properties) || (!top && Object.keys(node.properties).length === 0)) say(path, 'object without properties');
          if (node.additionalProperties !== false) say(path, 'additionalProperties is not false');
          const names = isNode(node.properties) ? Object.keys(node.properties).sort() : [];
          const required = Array.isArray(node.required) ? [...(node.required as string[])].sort() : [];
          if (JSON.stringify(names) !== JSON.stringify(required)) say(path, 'required does not list every property');
          properties += names.length;
          if (objects > 10) say(path, 'objects nested more than 10 deep');
        }
        if (node.type === 'array' && !isNode(node.items)) say(path, 'array without one items schema');
        if (typeof node.format === 'string' && !OPENAI_FORMATS.has(node.format)) say(path, `format ${node.format} is not supported`);
        if (Array.isArray(node.enum)) enums += node.enum.length;
      } else {
        for (const key of Object.keys(node)) if (!GEMINI_KEYS.has(key)) say(path, `keyword ${key} is not supported`);
        if (!((typeof node.type === 'string' && node.type !== 'null') || 'anyOf' in node)) say(path, 'no type (other than null) or anyOf');
        if ('enum' in node && !(node.type === 'string' && Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string'))) say(path, 'enum that is not of strings on a string');
        if (node.type === 'object' && !top && !(isNode(node.properties) && Object.keys(node.properties).length > 0)) say(path, 'object without properties below the top');
        if (node.type === 'array' && !isNode(node.items)) say(path, 'array without one items schema');
        if ('format' in node && !(GEMINI_FORMATS[node.type as string] ?? []).includes(node.format as string)) say(path, `format ${String(node.format)} on ${String(node.type)} is not supported`);
        if ('nullable' in node && typeof node.nullable !== 'boolean') say(path, 'nullable is not a boolean');
        if (Array.isArray(node.required)) {
          const names = isNode(node.properties) ? Object.keys(node.properties) : [];
          for (const r of node.required) if (!names.includes(r as string)) say(path, `required names ${String(r)}, which is not a property`);
        }
      }
    }
    if (profile === 'openai-strict') {
      if (properties > 5000) say(label, `${properties} properties, more than 5,000`);
      if (enums > 1000) say(label, `${enums} enum values, more than 1,000`);
    }
  }
  return found;
}
