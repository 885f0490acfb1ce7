// An independent checker of the tool schemas a generated server lists under each client profile.
// It is written from the published client rules (MCP inspector --strict, OpenAI strict function
// calling, Gemini function declarations), not from the generator, so a generator bug cannot hide
// by being repeated here.
//
// Violations read "<tool> <where><path>: <rule>", where <where> is inputSchema or outputSchema and
// <path> is JavaScript-like: `.properties.a`, `.items`, `.anyOf[1]`, `.properties["user-id"]`
// (names that are not identifiers are JSON-quoted). Rules about the tool itself use `name` or
// `description` in place of a schema path, e.g. "bad tool name: …".

export type Profile = 'portable' | 'openai-strict' | 'gemini';

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

type SchemaObject = Record<string, unknown>;

const isSchemaObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);
// Array.isArray narrows to any[]; this keeps the elements unknown so each use must check them.
const asList = (value: unknown): readonly unknown[] | undefined => (Array.isArray(value) ? value : undefined);

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_DESCRIPTION = 400;
// Both guards exist so a malformed (deep, cyclic or shared) object graph cannot hang a test.
const MAX_DEPTH = 200;
const MAX_VISITS = 200_000;

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

// Keywords whose value is a map of names to subschemas, a list of subschemas, or one subschema.
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const LIST_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
const SINGLE_KEYWORDS = [
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
// `true`/`false` is a meaningful schema only in these positions.
const BOOLEAN_ALLOWED_UNDER = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

// Every profile needs self-contained schemas: clients do not resolve references.
const REFERENCE_KEYWORDS = ['$ref', '$defs', 'definitions', '$dynamicRef'];
const TOP_LEVEL_FORBIDDEN = ['oneOf', 'anyOf', 'allOf', 'not', 'if', '$ref'];

// portable: a subschema with none of these accepts anything, which inspector --strict flags.
const CONSTRAINING_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

const OPENAI_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const OPENAI_MAX_OBJECT_LEVELS = 10;
const OPENAI_MAX_PROPERTIES = 5000;
const OPENAI_MAX_ENUM_VALUES = 1000;

const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'title',
  'propertyOrdering',
]);
const GEMINI_FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const memberPath = (name: string): string => (IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`);
const quoteList = (names: readonly string[]): string => names.map((name) => JSON.stringify(name)).join(', ');

/** Where a subschema sits: what the rules need to know beyond the subschema itself. */
interface Position {
  path: string;
  /** The keyword holding this subschema; undefined for the root. */
  keyword: string | undefined;
  depth: number;
  /** How many `type: "object"` schemas enclose this one, itself excluded. */
  enclosingObjects: number;
}

interface Walk {
  profile: Profile;
  report: (path: string, rule: string) => void;
  visits: number;
  tooDeepReported: boolean;
  propertyCount: number;
  enumValueCount: number;
}

const startWalk = (profile: Profile, report: Walk['report']): Walk => ({
  profile,
  report,
  visits: 0,
  tooDeepReported: false,
  propertyCount: 0,
  enumValueCount: 0,
});

/** Every rule the tool breaks under the profile, each as "<tool> <inputSchema|outputSchema><json-path>: <rule>"; [] when it passes. */
export function profileViolations(tool: ListedTool, profile: Profile): string[] {
  const violations: string[] = [];
  const report = (path: string, rule: string): void => {
    violations.push(`${tool.name} ${path}: ${rule}`);
  };

  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) report('name', `must match ${TOOL_NAME.source}`);
  if (tool.description !== undefined) checkDescription(tool.description, 'description', report);

  const input = checkRoot(tool.inputSchema, 'inputSchema', report);
  if (input) {
    for (const keyword of TOP_LEVEL_FORBIDDEN) {
      if (keyword in input) report('inputSchema', `${keyword} is not allowed at the top level`);
    }
    const walk = startWalk(profile, report);
    visit(input, { path: 'inputSchema', keyword: undefined, depth: 0, enclosingObjects: 0 }, walk);
    if (profile === 'openai-strict') {
      if (walk.propertyCount > OPENAI_MAX_PROPERTIES) {
        report('inputSchema', `has ${walk.propertyCount} properties in all, more than ${OPENAI_MAX_PROPERTIES}`);
      }
      if (walk.enumValueCount > OPENAI_MAX_ENUM_VALUES) {
        report('inputSchema', `has ${walk.enumValueCount} enum values in all, more than ${OPENAI_MAX_ENUM_VALUES}`);
      }
    }
  }

  if (tool.outputSchema !== undefined) {
    if (profile === 'portable') {
      // MCP itself requires an object result schema; beyond that the same portable rules apply.
      const output = checkRoot(tool.outputSchema, 'outputSchema', report);
      const walk = startWalk(profile, report);
      if (output) visit(output, { path: 'outputSchema', keyword: undefined, depth: 0, enclosingObjects: 0 }, walk);
    } else {
      report('outputSchema', `is not allowed under ${profile}`);
    }
  }
  return violations;
}

function checkRoot(schema: unknown, path: string, report: Walk['report']): SchemaObject | undefined {
  if (!isSchemaObject(schema)) {
    report(path, 'must be a schema object');
    return undefined;
  }
  if (schema.type !== 'object') report(path, 'must have type "object" at the top level');
  return schema;
}

function checkDescription(description: unknown, path: string, report: Walk['report']): void {
  if (typeof description !== 'string') report(path, 'must be a string');
  else if (description.length > MAX_DESCRIPTION) {
    report(path, `is ${description.length} characters, more than ${MAX_DESCRIPTION}`);
  }
}

function visit(schema: unknown, position: Position, walk: Walk): void {
  walk.visits += 1;
  if (walk.visits === MAX_VISITS + 1) walk.report(position.path, `more than ${MAX_VISITS} subschemas; not checked further`);
  if (walk.visits > MAX_VISITS) return;
  if (position.depth > MAX_DEPTH) {
    // Once is enough: a branching cycle would otherwise report at every one of its many leaves.
    if (!walk.tooDeepReported) walk.report(position.path, `nested deeper than ${MAX_DEPTH} levels; not checked further`);
    walk.tooDeepReported = true;
    return;
  }

  if (typeof schema === 'boolean') {
    if (position.keyword === undefined || !BOOLEAN_ALLOWED_UNDER.has(position.keyword)) {
      walk.report(position.path, `boolean schema is only allowed as ${[...BOOLEAN_ALLOWED_UNDER].join(', ')}`);
    }
    return;
  }
  if (!isSchemaObject(schema)) {
    walk.report(position.path, 'must be a schema object');
    return;
  }

  checkCommon(schema, position, walk);
  if (walk.profile === 'portable') checkPortable(schema, position, walk);
  else if (walk.profile === 'openai-strict') checkOpenAi(schema, position, walk);
  else checkGemini(schema, position, walk);

  const enclosingObjects = position.enclosingObjects + (schema.type === 'object' ? 1 : 0);
  const child = (keyword: string, path: string): Position => ({ path, keyword, depth: position.depth + 1, enclosingObjects });

  for (const keyword of MAP_KEYWORDS) {
    if (!(keyword in schema)) continue;
    const map = schema[keyword];
    const mapPath = `${position.path}.${keyword}`;
    if (!isSchemaObject(map)) {
      walk.report(mapPath, 'must be an object mapping names to schemas');
      continue;
    }
    for (const [name, subschema] of Object.entries(map)) visit(subschema, child(keyword, mapPath + memberPath(name)), walk);
  }
  for (const keyword of LIST_KEYWORDS) {
    if (!(keyword in schema)) continue;
    const list = asList(schema[keyword]);
    const listPath = `${position.path}.${keyword}`;
    if (!list) {
      walk.report(listPath, 'must be an array of schemas');
      continue;
    }
    list.forEach((subschema, index) => visit(subschema, child(keyword, `${listPath}[${index}]`), walk));
  }
  if ('items' in schema) {
    const items = schema.items;
    const tuple = asList(items);
    const itemsPath = `${position.path}.items`;
    // `items` may be one schema or (draft 4-7 tuples) a list of them.
    if (tuple) tuple.forEach((subschema, index) => visit(subschema, child('items', `${itemsPath}[${index}]`), walk));
    else visit(items, child('items', itemsPath), walk);
  }
  for (const keyword of SINGLE_KEYWORDS) {
    if (keyword in schema) visit(schema[keyword], child(keyword, `${position.path}.${keyword}`), walk);
  }
}

function checkCommon(schema: SchemaObject, { path }: Position, walk: Walk): void {
  for (const keyword of REFERENCE_KEYWORDS) {
    if (keyword in schema) walk.report(path, `${keyword} is not allowed; schemas must be inlined`);
  }
  if ('type' in schema) {
    const type = schema.type;
    if (Array.isArray(type)) walk.report(`${path}.type`, 'must be a single string, not an array of types');
    else if (typeof type !== 'string' || !JSON_TYPES.has(type)) {
      walk.report(`${path}.type`, `${JSON.stringify(type)} is not one of ${[...JSON_TYPES].join(', ')}`);
    }
  }
  if ('description' in schema) checkDescription(schema.description, `${path}.description`, walk.report);
}

function checkPortable(schema: SchemaObject, { path, keyword }: Position, walk: Walk): void {
  // A schema under `not` is the thing excluded; it need not constrain on its own.
  if (keyword === 'not') return;
  const constrains =
    Object.keys(schema).some((key) => CONSTRAINING_KEYWORDS.has(key)) || ('if' in schema && ('then' in schema || 'else' in schema));
  if (!constrains) walk.report(path, 'does not constrain anything (no type, enum, const, properties, items, …)');
}

/** Keywords a profile does not accept; reference keywords are left to the common rule so they are reported once. */
function unknownKeywords(schema: SchemaObject, allowed: ReadonlySet<string>): string[] {
  return Object.keys(schema).filter((key) => !allowed.has(key) && !REFERENCE_KEYWORDS.includes(key));
}

/** The array rule shared by openai-strict and gemini: one schema for every element, never a tuple. */
function checkSingleItems(schema: SchemaObject, path: string, walk: Walk): void {
  if (schema.type === 'array' && !isSchemaObject(schema.items)) {
    walk.report(`${path}.items`, 'type "array" needs items that is a single schema object');
  }
}

function checkOpenAi(schema: SchemaObject, { path, depth, enclosingObjects }: Position, walk: Walk): void {
  for (const key of unknownKeywords(schema, OPENAI_KEYWORDS)) walk.report(path, `keyword "${key}" is not allowed under openai-strict`);
  if (!('type' in schema || 'anyOf' in schema || 'enum' in schema || 'const' in schema)) {
    walk.report(path, 'needs type, anyOf, enum or const');
  }

  const properties = schema.properties;
  if (isSchemaObject(properties)) walk.propertyCount += Object.keys(properties).length;
  walk.enumValueCount += asList(schema.enum)?.length ?? 0;

  if (schema.type === 'object') {
    if (enclosingObjects === OPENAI_MAX_OBJECT_LEVELS) {
      walk.report(path, `object nested more than ${OPENAI_MAX_OBJECT_LEVELS} levels deep`);
    }
    const names = isSchemaObject(properties) ? Object.keys(properties) : [];
    if (!('properties' in schema)) walk.report(path, 'type "object" needs properties');
    else if (isSchemaObject(properties) && names.length === 0 && depth > 0) {
      walk.report(`${path}.properties`, 'must not be empty below the top level');
    }
    if (schema.additionalProperties !== false) walk.report(`${path}.additionalProperties`, 'must be exactly false');
    // Strict mode makes every property required; optional ones are expressed as nullable via anyOf.
    const required = asList(schema.required);
    if (!required) walk.report(`${path}.required`, 'must list every key of properties');
    else {
      const missing = names.filter((name) => !required.includes(name));
      const extra = required.filter((name) => typeof name !== 'string' || !names.includes(name)).map(String);
      if (missing.length > 0) walk.report(`${path}.required`, `is missing ${quoteList(missing)}`);
      if (extra.length > 0) walk.report(`${path}.required`, `names ${quoteList(extra)}, not in properties`);
    }
  }
  checkSingleItems(schema, path, walk);
  if ('format' in schema && !(typeof schema.format === 'string' && OPENAI_FORMATS.has(schema.format))) {
    walk.report(`${path}.format`, `${JSON.stringify(schema.format)} is not one of ${[...OPENAI_FORMATS].join(', ')}`);
  }
}

function checkGemini(schema: SchemaObject, { path, depth }: Position, walk: Walk): void {
  for (const key of unknownKeywords(schema, GEMINI_KEYWORDS)) walk.report(path, `keyword "${key}" is not allowed under gemini`);
  const type = schema.type;
  if (!('type' in schema || 'anyOf' in schema)) walk.report(path, 'needs type or anyOf');
  // Gemini has no null type; nullability is the `nullable` flag.
  if (type === 'null') walk.report(`${path}.type`, '"null" is not supported; use nullable');

  if ('enum' in schema) {
    if (type !== 'string') walk.report(`${path}.enum`, 'is only allowed with type "string"');
    const values = asList(schema.enum);
    if (!values || values.some((value) => typeof value !== 'string')) {
      walk.report(`${path}.enum`, 'values must all be strings');
    }
  }

  const properties = schema.properties;
  if (type === 'object' && depth > 0 && !(isSchemaObject(properties) && Object.keys(properties).length > 0)) {
    walk.report(`${path}.properties`, 'type "object" below the top level needs non-empty properties');
  }
  checkSingleItems(schema, path, walk);

  if ('format' in schema) {
    const allowed = typeof type === 'string' ? GEMINI_FORMATS[type] : undefined;
    if (!allowed) walk.report(`${path}.format`, `is not allowed on type ${JSON.stringify(type)}`);
    else if (typeof schema.format !== 'string' || !allowed.includes(schema.format)) {
      walk.report(
        `${path}.format`,
        `${JSON.stringify(schema.format)} is not allowed on type "${String(type)}" (only ${allowed.join(', ')})`,
      );
    }
  }
  if ('nullable' in schema && typeof schema.nullable !== 'boolean') walk.report(`${path}.nullable`, 'must be a boolean');

  if ('required' in schema) {
    const required = asList(schema.required);
    const names = isSchemaObject(properties) ? Object.keys(properties) : [];
    if (!required) walk.report(`${path}.required`, 'must be an array of property names');
    else {
      const unknown = required.filter((name) => typeof name !== 'string' || !names.includes(name)).map(String);
      if (unknown.length > 0) walk.report(`${path}.required`, `names ${quoteList(unknown)}, not in properties`);
    }
  }
}
