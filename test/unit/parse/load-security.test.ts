// A hostile spec and what it $refs (src/parse/sources.ts): local files a URL spec reaches for,
// refs outside the spec's folder, refs and redirects to internal addresses, downloads that
// fail, and documents built to exhaust memory or the stack. Local servers only: the spec
// server and the "internal" target are two servers on 127.0.0.1; the target must see nothing.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpecError } from '../../../src/errors.js';
import { generate } from '../../../src/generate.js';
import { loadSpec } from '../../../src/parse/load.js';
import { isInternalAddress, MAX_DOCUMENT_DEPTH, shapeProblem } from '../../../src/parse/sources.js';
import { MAX_SCHEMA_NESTING } from '../../../src/model/schema.js';
import { buildCli, REPO } from '../../../harness/project.js';
import { readConfig } from '../../../src/runtime/start/command-line.js';
import { createExecutor } from '../../../src/runtime/call/executor.js';
import { createLogger } from '../../../src/runtime/start/log.js';
import { CLIENT_PROFILES, createLister } from '../../../src/contract/profiles.js';
import type { ToolSpec } from '../../../src/contract/table.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-hostile-'));
const SECRET = 'LOCAL-SECRET-d41d8cd9';
const secretFile = join(scratch, 'outside', 'secret.json');
mkdirSync(join(scratch, 'outside'));
writeFileSync(secretFile, JSON.stringify({ type: 'object', properties: { [SECRET]: { type: 'string' } } }));

const pathsWith = (schemaRef: string) => ({
  '/pets': {
    post: {
      operationId: 'addPet',
      requestBody: { content: { 'application/json': { schema: { $ref: schemaRef } } } },
      responses: { '201': { description: 'ok' } },
    },
  },
});
const specWith = (schemaRef: string) =>
  JSON.stringify({ openapi: '3.0.3', info: { title: 'Hostile', version: '1' }, paths: pathsWith(schemaRef) });

/** A server that answers as `routes` says and records every path it was asked for. */
async function serve(
  routes: (path: string, port: number) => { status?: number; headers?: Record<string, string>; body?: string },
): Promise<{ server: Server; url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/reset.yaml') return req.socket.destroy();
    const answer = routes(req.url ?? '', (server.address() as AddressInfo).port);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(answer.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

let target: Awaited<ReturnType<typeof serve>>; // the internal service a spec must not reach
let specs: Awaited<ReturnType<typeof serve>>; // the hostile spec server
let targetPort = 0;

beforeAll(async () => {
  target = await serve(() => ({ body: JSON.stringify({ type: 'string', description: 'INTERNAL-DATA' }) }));
  targetPort = Number(new URL(target.url).port);
  specs = await serve((path, port) => {
    const own = `http://127.0.0.1:${port}`;
    if (path === '/file-ref.json') return { body: specWith(pathToFileURL(secretFile).href) };
    if (path === '/own-ref.json') return { body: specWith(`${own}/schemas/pet.json`) };
    if (path === '/schemas/pet.json') return { body: JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }) };
    if (path === '/zero.json') return { body: specWith(`http://0.0.0.0:${targetPort}/x.json`) };
    if (path === '/mapped.json') return { body: specWith(`http://[::ffff:127.0.0.1]:${targetPort}/x.json`) };
    if (path === '/mapped-hex.json') return { body: specWith(`http://[::ffff:7f00:1]:${targetPort}/x.json`) };
    if (path === '/decimal.json') return { body: specWith(`http://2130706433:${targetPort}/x.json`) };
    if (path === '/by-name.json') return { body: specWith(`http://localhost:${targetPort}/x.json`) };
    if (path === '/via-redirect.json') return { body: specWith(`${own}/hop`) };
    if (path === '/hop') return { status: 302, headers: { location: `http://localhost:${targetPort}/x.json` } };
    if (path === '/elsewhere.json') return { body: specWith(`http://localhost:${targetPort}/x.json`) };
    return { status: 404, body: '{}' };
  });
});

afterAll(async () => {
  for (const s of [target, specs]) {
    s?.server.closeAllConnections();
    s?.server.close();
  }
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a SpecError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(SpecError);
      return (error as SpecError).message;
    },
  );

describe('a spec from a URL reads no local file', () => {
  it('a file: $ref is refused, and the file does not reach the model', async () => {
    const message = await refusal(loadSpec(`${specs.url}/file-ref.json`));
    expect(message).toMatch(/^\$ref ".*secret\.json" reads a local file, which a spec loaded from a URL may not/);
    expect(message).not.toContain(SECRET);
  });

  it('refs on its own origin still resolve (even on loopback: the user pointed there)', async () => {
    const spec = await loadSpec(`${specs.url}/own-ref.json`);
    expect(JSON.stringify(spec.doc)).toContain('"name"');
  });
});

describe('a local spec reads only inside its folder', () => {
  const folder = join(scratch, 'project');
  mkdirSync(folder);
  const inside = join(folder, 'spec.json');
  writeFileSync(inside, specWith('../outside/secret.json'));

  it('a ../ ref is refused; --allow-ref-dir opens that folder', async () => {
    expect(await refusal(loadSpec(inside))).toBe(
      `$ref ${JSON.stringify(secretFile)} is outside the spec's folder (pass --allow-ref-dir to allow its folder)`,
    );
    const allowed = await generate({
      spec: inside,
      out: join(scratch, 'gen-allowed'),
      dryRun: true,
      allowRefDir: [join(scratch, 'outside')],
    });
    expect(JSON.stringify(allowed.table)).toContain(SECRET);
  });

  it('a symbolic link inside the folder that points outside is refused too', async () => {
    const linked = join(scratch, 'linked');
    mkdirSync(linked);
    symlinkSync(secretFile, join(linked, 'innocent.json'));
    writeFileSync(join(linked, 'spec.json'), specWith('./innocent.json'));
    expect(await refusal(loadSpec(join(linked, 'spec.json')))).toMatch(/innocent\.json" is outside the spec's folder/);
  });

  // A FIFO never ends a read (mcp-gen waited for ever); a device such as /dev/zero, whose size
  // stat says is 0, would be read past the 64 MiB limit until memory ran out.
  it('a $ref to a FIFO or a device is refused at once, not read', async () => {
    const special = join(scratch, 'special');
    mkdirSync(special);
    spawnSync('mkfifo', [join(special, 'pipe.json')]);
    symlinkSync('/dev/zero', join(special, 'zero.json'));
    writeFileSync(join(special, 'fifo-spec.json'), specWith('./pipe.json'));
    writeFileSync(join(special, 'zero-spec.json'), specWith('./zero.json'));
    expect(await refusal(loadSpec(join(special, 'fifo-spec.json')))).toMatch(/^\$ref ".*pipe\.json" is not a regular file$/);
    expect(await refusal(loadSpec(join(special, 'zero-spec.json'), { allowRefDirs: ['/dev'] }))).toBe(
      '$ref "/dev/zero" is not a regular file',
    );
  }, 10_000);

  it('a file over 64 MiB is refused before it is read', async () => {
    const big = join(scratch, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 64 * 1024 * 1024 + 1); // sparse: nothing is written
    expect(await refusal(loadSpec(big))).toMatch(/is larger than 64 MiB/);
  });
});

describe('refs never reach internal addresses', () => {
  it.each([
    ['0.0.0.0', '/zero.json', /points to an internal address \(0\.0\.0\.0\)/],
    ['IPv4-mapped IPv6', '/mapped.json', /points to an internal address \(::ffff:7f00:1\)/],
    ['IPv4-mapped IPv6 in hex', '/mapped-hex.json', /points to an internal address \(::ffff:7f00:1\)/],
    ['a decimal IPv4 literal', '/decimal.json', /points to an internal address \(127\.0\.0\.1\)/],
    ['a name that resolves to loopback', '/by-name.json', /localhost resolves to an internal address/],
    ["a redirect from the spec's own origin to an internal one", '/via-redirect.json', /localhost resolves to an internal address/],
  ])('%s, even with --allow-remote-refs: refused, the target sees nothing', async (_name, path, want) => {
    target.hits.length = 0;
    expect(await refusal(loadSpec(`${specs.url}${path}`, { allowRemoteRefs: true }))).toMatch(want);
    expect(target.hits).toEqual([]);
  });

  it('without --allow-remote-refs another origin is not followed at all, naming the flag', async () => {
    expect(await refusal(loadSpec(`${specs.url}/elsewhere.json`))).toMatch(
      /^\$ref to another origin not followed: http:\/\/localhost:\d+\/x\.json .*--allow-remote-refs/,
    );
    expect(target.hits).toEqual([]);
  });

  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:10.0.0.1', true],
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
    ['not-an-address', true],
  ])('isInternalAddress(%s) = %s', (address, want) => {
    expect(isInternalAddress(address)).toBe(want);
  });
});

describe('downloads fail at once, with one line', () => {
  // Asynchronous: the spec server runs in this process, so spawnSync would block its answers.
  const cli = (args: string[]) => {
    buildCli();
    const started = Date.now();
    return new Promise<{ status: number | null; stderr: string; seconds: number }>((done) => {
      const child = spawn(process.execPath, [join(REPO, 'bin/mcp-gen.js'), ...args, '--out', join(scratch, 'cli-out'), '--quiet'], {
        timeout: 60_000,
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('close', (status) => done({ status, stderr, seconds: (Date.now() - started) / 1000 }));
    });
  };

  it('a spec URL whose server resets the connection: exit 1 within seconds (the process lingered 60 s before)', async () => {
    const r = await cli([`${specs.url}/reset.yaml`]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: ${specs.url}/reset.yaml: cannot download ${specs.url}/reset.yaml: ECONNRESET`,
    ]);
    expect(r.seconds).toBeLessThan(10);
  });

  it('a spec URL that answers 404: exit 1, one line', async () => {
    const r = await cli([`${specs.url}/missing.yaml`]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: ${specs.url}/missing.yaml: cannot download ${specs.url}/missing.yaml: HTTP 404`,
    ]);
  });
});

describe('documents built to exhaust memory or the stack', () => {
  const write = (name: string, text: string) => {
    const path = join(scratch, name);
    writeFileSync(path, text);
    return path;
  };
  const cli = (spec: string) =>
    spawnSync(process.execPath, [join(REPO, 'bin/mcp-gen.js'), spec, '--out', join(scratch, 'cli-out-2'), '--force', '--quiet'], {
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('a YAML alias bomb (600 bytes, 9 levels of 9 aliases): exit 1 naming the limit, not a hang', () => {
    buildCli();
    const levels = 'abcdefghi';
    let text =
      'openapi: 3.0.3\ninfo: { title: bomb, version: "1" }\npaths: {}\nx-bomb:\n  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let i = 1; i < levels.length; i++)
      text += `  ${levels[i]}: &${levels[i]} [${Array(9)
        .fill(`*${levels[i - 1]}`)
        .join(',')}]\n`;
    const r = cli(write('bomb.yaml', text));
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^mcp-gen: error: .*bomb\.yaml: the document expands to more than 10,000,000 values \(YAML aliases: an alias bomb\?\)$/,
    );
  });

  const chain = (length: number) => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < length; i++) schemas[`A${i}`] = i < length - 1 ? { $ref: `#/components/schemas/A${i + 1}` } : { type: 'string' };
    return JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'chain', version: '1' },
      paths: pathsWith('#/components/schemas/A0'),
      components: { schemas },
    });
  };

  it('a chain of 10,000 $refs: exit 1 naming the limit and the place (was a stack overflow, exit 70)', () => {
    buildCli();
    const r = cli(write('chain.json', chain(10_000)));
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(
      new RegExp(
        `^mcp-gen: error: .*chain\\.json#/components/schemas/A${MAX_SCHEMA_NESTING}: schemas nest deeper than ${MAX_SCHEMA_NESTING} levels \\(through \\$ref and inline\\)$`,
      ),
    );
  });

  it('a chain just under the limit still generates', async () => {
    const result = await generate({
      spec: write('chain-ok.json', chain(MAX_SCHEMA_NESTING)),
      out: join(scratch, 'chain-ok'),
      dryRun: true,
    });
    expect(result.table.tools).toHaveLength(1);
  });

  /** A spec whose one operation takes and answers S0, each of `length` shared schemas holding the next as `holds` says. */
  const nested = (length: number, holds: (ref: string) => unknown, version = '3.0.3') => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < length; i++) schemas[`S${i}`] = i < length - 1 ? holds(`#/components/schemas/S${i + 1}`) : { type: 'string' };
    const ref = { $ref: '#/components/schemas/S0' };
    const paths = {
      '/x': {
        post: {
          operationId: 'x',
          requestBody: { content: { 'application/json': { schema: ref } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: ref } } } },
        },
      },
    };
    return JSON.stringify({ openapi: version, info: { title: 'nested', version: '1' }, paths, components: { schemas } });
  };
  /** The CLI's answer when it must be a refusal: exit 1 and one line, no stack. */
  const refusedLine = (r: ReturnType<typeof spawnSync>) => {
    expect(r.status, String(r.stderr)).toBe(1);
    const lines = String(r.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0];
  };
  const serve = (spec: string) =>
    spawnSync(process.execPath, [join(REPO, 'bin/mcp-gen.js'), 'serve', spec], { encoding: 'utf8', timeout: 60_000, input: '' });
  const tooDeep = (file: string, place: string) =>
    new RegExp(
      `^mcp-gen: error: .*${file}#${place}: schemas nest deeper than ${MAX_SCHEMA_NESTING} levels \\(through \\$ref and inline\\)$`,
    );
  // each of these costs two levels per schema (the keyword's, then the def's): the limit hits halfway down the chain
  const halfway = `/components/schemas/S${MAX_SCHEMA_NESTING / 2}`;
  const holders: [string, (ref: string) => unknown][] = [
    ['a property', (ref) => ({ type: 'object', properties: { next: { $ref: ref } } })],
    ['allOf', (ref) => ({ allOf: [{ $ref: ref }] })],
    ['array items', (ref) => ({ type: 'array', items: { $ref: ref } })],
  ];

  it.each(holders)(
    '10,000 schemas each holding the next in %s: generate and serve exit 1 naming where the nesting limit hit (was exit 70)',
    (_name, holds) => {
      buildCli();
      const spec = write('nested.json', nested(10_000, holds));
      expect(refusedLine(cli(spec))).toMatch(tooDeep('nested\\.json', halfway));
      expect(refusedLine(serve(spec))).toMatch(tooDeep('nested\\.json', halfway));
    },
  );

  it('a Swagger 2.0 chain of 10,000 definitions: exit 1 naming the definition', () => {
    buildCli();
    const definitions: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++)
      definitions[`S${i}`] = i < 9_999 ? { type: 'object', properties: { next: { $ref: `#/definitions/S${i + 1}` } } } : { type: 'string' };
    const op = {
      operationId: 'x',
      parameters: [{ name: 'b', in: 'body', schema: { $ref: '#/definitions/S0' } }],
      responses: { '200': { description: 'ok' } },
    };
    const spec = write(
      'nested2.json',
      JSON.stringify({ swagger: '2.0', info: { title: 'n', version: '1' }, paths: { '/x': { post: op } }, definitions }),
    );
    expect(refusedLine(cli(spec))).toMatch(tooDeep('nested2\\.json', `/definitions/S${MAX_SCHEMA_NESTING / 2}`));
  });

  it('schemas nested just within the limit through $ref and inline generate whole, and the runtime lists and checks them', async () => {
    const holds = (ref: string) => ({ type: 'object', properties: { next: { $ref: ref } } });
    const spec = write('nested-ok.json', nested(MAX_SCHEMA_NESTING / 2, holds));
    const { table } = await generate({ spec, out: join(scratch, 'nested-ok'), dryRun: true });
    expect(Object.keys(table.defs)).toHaveLength(MAX_SCHEMA_NESTING); // every schema, as an input and as an output
    const tool = table.tools[0] as ToolSpec;
    const config = readConfig([], {});
    if (typeof config === 'string') throw new Error('unexpected');
    const executor = createExecutor(table, { ...config, logLevel: 'silent' }, {}, createLogger('test', 'silent'));
    for (const profile of CLIENT_PROFILES) {
      const listed = createLister(table, profile, { input: executor.inputSchema, output: executor.outputSchema }).tool(tool);
      expect(listed.inputSchema.type, profile).toBe('object');
    }
    const deepValue = (levels: number): unknown => (levels === 0 ? 7 : { next: deepValue(levels - 1) });
    const result = await executor.call(tool, { body: deepValue(40) }, new AbortController().signal);
    expect((result.content[0] as { text: string }).text).toContain(`argument "body${'.next'.repeat(39)}.next": must be object`); // S40 is an object: 7 is not
  });

  it('chains of 10,000 parameters, request bodies and responses, each a $ref to the next, resolve (were a stack overflow, exit 70)', async () => {
    const chain = (kind: string, last: unknown) =>
      Object.fromEntries(
        Array.from({ length: 10_000 }, (_, i) => [`C${i}`, i < 9_999 ? { $ref: `#/components/${kind}/C${i + 1}` } : last]),
      );
    const at = (kind: string) => ({ $ref: `#/components/${kind}/C0` });
    const spec = {
      openapi: '3.0.3',
      info: { title: 'chains', version: '1' },
      paths: {
        '/x': {
          post: {
            operationId: 'x',
            parameters: [at('parameters')],
            requestBody: at('requestBodies'),
            responses: { '200': at('responses') },
          },
        },
      },
      components: {
        parameters: chain('parameters', { name: 'q', in: 'query', schema: { type: 'integer' } }),
        requestBodies: chain('requestBodies', { content: { 'application/json': { schema: { type: 'boolean' } } } }),
        responses: chain('responses', { description: 'ok', content: { 'application/json': { schema: { type: 'string' } } } }),
      },
    };
    const result = await generate({ spec: write('chains.json', JSON.stringify(spec)), out: join(scratch, 'chains'), dryRun: true });
    const tool = result.table.tools[0];
    expect(tool?.inputSchema.properties).toMatchObject({ q: { type: 'integer' }, body: { type: 'boolean' } });
    expect(tool?.output?.schema).toMatchObject({ properties: { result: { type: ['string', 'null'] } } });
  });

  it('3,000 schemas in another file, each holding the next: exit 1 saying the $refs nest too deeply to resolve', () => {
    buildCli();
    mkdirSync(join(scratch, 'far'), { recursive: true });
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 3_000; i++)
      schemas[`S${i}`] = i < 2_999 ? { type: 'object', properties: { next: { $ref: `#/schemas/S${i + 1}` } } } : { type: 'string' };
    writeFileSync(join(scratch, 'far', 'defs.json'), JSON.stringify({ schemas }));
    const main = JSON.parse(nested(1, () => ({}))) as { paths: unknown };
    const spec = write('far/main.json', JSON.stringify(main).replace('#/components/schemas/S0', 'defs.json#/schemas/S0'));
    expect(refusedLine(cli(spec))).toMatch(/^mcp-gen: error: .*main\.json: its \$refs nest too deeply to resolve/);
  });

  it.each([
    ['properties', '{"type":"object","properties":{"a":', '}}'],
    ['items', '{"type":"array","items":', '}'],
  ])('a request body of 10,000 nested %s: generate and serve exit 1 naming the document limit', (_name, open, close) => {
    buildCli();
    const deep = `${open.repeat(10_000)}{"type":"string"}${close.repeat(10_000)}`;
    const spec = write('inline.json', nested(1, () => ({})).replace('{"$ref":"#/components/schemas/S0"}', deep));
    const refused = `mcp-gen: error: ${spec}: the document is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`;
    expect(refusedLine(cli(spec))).toBe(refused);
    expect(refusedLine(serve(spec))).toBe(refused);
  });

  it(`YAML nests as deep as JSON: 300 levels generate (js-yaml stopped at 100), 10,000 exit 1 naming the ${MAX_DOCUMENT_DEPTH}-level limit`, () => {
    buildCli();
    const yamlNested = (levels: number) =>
      `openapi: 3.0.3\ninfo: {title: deep, version: "1"}\npaths: {}\nx-deep: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
    expect(cli(write('deep-300.yaml', yamlNested(300))).status).toBe(0);
    const spec = write('deep-10k.yaml', yamlNested(10_000));
    expect(refusedLine(cli(spec))).toBe(`mcp-gen: error: ${spec}: the document is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  });

  it('a 500,000-value enum generates with every value (was a push(...) overflow reported as a spec error)', async () => {
    const values = Array.from({ length: 500_000 }, (_, i) => `v${i}`);
    const spec = {
      openapi: '3.0.3',
      info: { title: 'enum', version: '1' },
      paths: {
        '/x': {
          get: {
            operationId: 'x',
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string', enum: values } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const result = await generate({ spec: write('enum.json', JSON.stringify(spec)), out: join(scratch, 'enum'), dryRun: true });
    expect((result.table.tools[0]?.inputSchema.properties as { q: { enum: string[] } }).q.enum).toHaveLength(500_000);
  });

  it(`a document nested deeper than ${MAX_DOCUMENT_DEPTH} levels is refused before anything walks it`, async () => {
    let schema = '{"type":"string"}';
    for (let i = 0; i < 100_000; i++) schema = `{"items":${schema}}`;
    const path = write('deep.json', `{"openapi":"3.0.3","info":{"title":"deep","version":"1"},"paths":{},"x-deep":${schema}}`);
    expect(await refusal(loadSpec(path))).toBe(`the document is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  });

  it('shapeProblem counts a shared node once per use, and finds a cycle', () => {
    const leaf = ['x', 'y'];
    const shared = { a: leaf, b: leaf };
    expect(shapeProblem({ one: shared, two: shared })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(shapeProblem(cyclic)).toBe('has a YAML alias inside itself');
  });
});
