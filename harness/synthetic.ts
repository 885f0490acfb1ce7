// A synthetic OpenAPI 3.0 spec of N operations, shaped like a real CRUD API: N/5 resources,
// each with list/create/get/update/delete, shared parameters and schemas through $ref, a
// schema per resource that references shared ones, and an error schema on every operation.
// Deterministic: the same N gives the same bytes, and the size grows linearly with N.

type Json = Record<string, unknown>;

export interface SyntheticShape {
  /** Tags the resources are spread over, hence toolsets; Infinity gives every resource its own. */
  groups?: number;
}

export function syntheticSpec(operations: number, shape: SyntheticShape = {}): Json {
  const groups = shape.groups ?? 50;
  const resources = Math.ceil(operations / 5);
  const paths: Json = {};
  const schemas: Json = {
    Error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer', format: 'int32' },
        message: { type: 'string' },
        details: { type: 'array', items: { type: 'string' } },
      },
    },
    Tag: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string', maxLength: 64 } } },
    User: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        login: { type: 'string' },
        email: { type: 'string', format: 'email' },
        manager: { $ref: '#/components/schemas/User' },
      },
    },
    PageInfo: { type: 'object', properties: { total: { type: 'integer' }, next: { type: 'string', nullable: true } } },
  };
  let made = 0;
  for (let r = 0; r < resources && made < operations; r++) {
    const name = `Resource${r}`;
    const slug = `resources-${r}`;
    schemas[name] = {
      type: 'object',
      description: `A thing of kind ${r}.`,
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer', format: 'int64', readOnly: true },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        status: { type: 'string', enum: ['active', 'archived', 'deleted'] },
        owner: { $ref: '#/components/schemas/User' },
        tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
        attributes: { type: 'object', additionalProperties: { type: 'string' } },
        createdAt: { type: 'string', format: 'date-time' },
      },
    };
    schemas[`${name}List`] = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
        page: { $ref: '#/components/schemas/PageInfo' },
      },
    };
    const errors = {
      default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    };
    const one = { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } };
    const body = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } };
    const idParam = {
      name: 'id',
      in: 'path',
      required: true,
      description: `Id of the ${name}.`,
      schema: { type: 'integer', format: 'int64' },
    };
    const collection: Json = {};
    const item: Json = { parameters: [idParam] };
    const add = (target: Json, method: string, op: Json) => {
      if (made >= operations) return;
      target[method] = { tags: [`group${r % groups}`], ...op };
      made++;
    };
    add(collection, 'get', {
      operationId: `list${name}`,
      summary: `List ${name} items`,
      parameters: [
        { $ref: '#/components/parameters/Limit' },
        { $ref: '#/components/parameters/Cursor' },
        { $ref: '#/components/parameters/RequestId' },
        { name: 'status', in: 'query', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
      ],
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}List` } } } },
        ...errors,
      },
    });
    add(collection, 'post', {
      operationId: `create${name}`,
      summary: `Create a ${name}`,
      parameters: [{ $ref: '#/components/parameters/RequestId' }],
      requestBody: body,
      responses: { '201': one, ...errors },
    });
    add(item, 'get', {
      operationId: `get${name}`,
      summary: `Get one ${name}`,
      parameters: [{ name: 'expand', in: 'query', schema: { type: 'boolean' } }],
      responses: { '200': one, ...errors },
    });
    add(item, 'patch', {
      operationId: `update${name}`,
      summary: `Update a ${name}`,
      requestBody: body,
      responses: { '200': one, ...errors },
    });
    add(item, 'delete', {
      operationId: `delete${name}`,
      summary: `Delete a ${name}`,
      responses: { '204': { description: 'Deleted' }, ...errors },
    });
    paths[`/${slug}`] = collection;
    if (Object.keys(item).length > 1) paths[`/${slug}/{id}`] = item;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: `Synthetic ${operations}`,
      version: '1.0.0',
      description: `A generated API of ${operations} operations for benchmarks.`,
    },
    servers: [{ url: 'https://api.example.com/v1' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      parameters: {
        Limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        Cursor: { name: 'cursor', in: 'query', schema: { type: 'string' } },
        RequestId: { name: 'X-Request-Id', in: 'header', schema: { type: 'string', format: 'uuid' } },
      },
      schemas,
    },
  };
}
