// Spec text is untrusted input. A spec with hostile strings in every place that carries
// text must give a project that builds, whose code is exactly mcp-gen's own (spec text
// lives only in data files), and whose server lists and calls the tools without running
// anything from the spec.
import { readFileSync, writeFileSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ts } from 'ts-morph';
import { buildProject, connect, generateProject, prebuiltLibFiles, REPO, TMP } from '../../harness/project.js';
import { listFiles } from '../../harness/samples.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

// Quotes, template literals, comment ends, script tags, line and paragraph separators,
// shell and Handlebars syntax, a side effect that would show if anything ran it.
const EVIL = [
  '"',
  "'",
  '`${globalThis.process.exit(99)}`',
  '*/ process.exit(98) /*',
  '</script><script>alert(1)</script>',
  '\n',
  '\r\n',
  '\u2028',
  '\u2029',
  '{{json this}}',
  '$(touch /tmp/mcp-gen-pwned)',
  '\\',
  '# heading',
  '| table |',
].join(' ');
const PWNED = '/tmp/mcp-gen-pwned';

function hostileSpec(upstream: string) {
  const text = (where: string) => `${where} ${EVIL}`;
  return {
    openapi: '3.0.3',
    info: { title: text('title'), version: text('version'), description: text('info') },
    servers: [{ url: `${upstream}/api`, description: text('server') }],
    'x-mcp': { description: text('x-mcp') },
    components: {
      securitySchemes: {
        [`key"\`\${1}*/`]: { type: 'apiKey', in: 'header', name: 'X-Key', description: text('scheme') },
      },
      schemas: {
        [`Thing"*/\`\${x}`]: {
          type: 'object',
          description: text('schema'),
          properties: {
            [`na"me\`\${x}*/\n`]: { type: 'string', enum: [text('enum'), '*/'], default: text('default'), pattern: '^[a-z"]*$' },
          },
        },
      },
    },
    security: [],
    paths: {
      [`/things/{id}/"\`\${x}*/</script>`]: {
        get: {
          operationId: `get"Thing\`\${process.exit(97)}*/\n\u2028`,
          summary: text('summary'),
          description: text('description'),
          tags: [text('tag')],
          parameters: [
            { name: 'id', in: 'path', required: true, description: text('param'), schema: { type: 'string' } },
            { name: `q"\`\${x}*/`, in: 'query', description: text('query'), schema: { type: 'string', default: text('dflt') } },
          ],
          responses: {
            '200': {
              description: text('response'),
              content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing"*/\`\${x}` } } },
            },
          },
        },
        post: {
          operationId: `make"Thing\`\${process.exit(96)}*/`,
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { [`na"me\`\${x}*/\n`]: { type: 'string', enum: [text('enum'), '*/'] } },
                  required: [`na"me\`\${x}*/\n`],
                },
              },
            },
          },
          responses: { '204': { description: text('made') } },
        },
      },
    },
  };
}

let dir: string;
let upstream: Upstream;
let client: Client;

beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: '{}' }));
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, 'hostile.json');
  writeFileSync(spec, JSON.stringify(hostileSpec(upstream.url)));
  rmSync(join(TMP, 'e2e-hostile'), { recursive: true, force: true }); // hooks.ts is the user's: start from the template
  dir = generateProject(spec, 'e2e-hostile');
  await buildProject(dir); // the project must compile
  client = await connect('stdio', dir);
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

describe('a spec with hostile text everywhere', () => {
  it("generates code identical to the runtime's build and the templates: no spec text in any code file", () => {
    const lib = prebuiltLibFiles();
    expect(lib.length).toBeGreaterThan(0);
    expect(listFiles(join(dir, 'lib')).map((f) => `lib/${f}`)).toEqual(lib);
    for (const file of lib) {
      const generated = readFileSync(join(dir, file), 'utf8');
      expect(generated.endsWith(readFileSync(join(REPO, 'dist/src', file.slice('lib/'.length)), 'utf8')), file).toBe(true);
      expect(generated).not.toContain('process.exit(9');
    }
    for (const name of ['main.ts', 'hooks.ts']) {
      expect(readFileSync(join(dir, 'src', name), 'utf8')).toBe(readFileSync(join(REPO, 'templates/project/src', name), 'utf8'));
    }
  });

  it('src/tool-types.ts, the one per-spec .ts file, holds types only: it compiles to no JavaScript, and spec text is in string literals', () => {
    const text = readFileSync(join(dir, 'src/tool-types.ts'), 'utf8');
    // transpiled alone, a file of types leaves nothing that could run
    const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    expect(js.replace(/\/\/.*$/gm, '').trim()).toBe('export {};');
    const file = ts.createSourceFile('tool-types.ts', text, ts.ScriptTarget.ES2022, true);
    expect(file.statements.map((st) => ts.SyntaxKind[st.kind])).toEqual([
      'InterfaceDeclaration',
      'InterfaceDeclaration',
      'TypeAliasDeclaration',
      'InterfaceDeclaration',
    ]);
    // every hostile string is a string literal the printer quoted, not source text
    const literals: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node)) literals.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(file);
    expect(literals).toContain(`enum ${EVIL}`);
    expect(literals).toContain('*/');
    expect(literals).toContain('na"me`${x}*/\n');
  });

  it('keeps package.json valid JSON and the spec text only as data', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      description: string;
      scripts: Record<string, string>;
    };
    expect(pkg.name).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.json --noEmit && node scripts/build.mjs');
    expect(Object.keys(pkg.scripts).sort()).toEqual(['build', 'bundle', 'prepack', 'start', 'start:http', 'start:sse']);
    expect(pkg.scripts.bundle).toBe('npm run build && node scripts/bundle.mjs');
  });

  it("keeps the bundle's manifest.json valid JSON, its command fixed and the spec text only as data", () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
      user_config: Record<string, unknown>;
    };
    expect(manifest.server.entry_point).toBe('dist/main.js');
    expect(manifest.server.mcp_config.command).toBe('node');
    expect(manifest.server.mcp_config.args).toEqual(['${__dirname}/dist/main.js']);
    for (const [variable, value] of Object.entries(manifest.server.mcp_config.env)) {
      expect(variable).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(value).toBe(`\${user_config.${variable.toLowerCase()}}`);
    }
  });

  it('writes no spec line break into .env.example: every line is a comment, blank or NAME=', () => {
    for (const line of readFileSync(join(dir, '.env.example'), 'utf8').split('\n')) {
      expect(line, JSON.stringify(line)).toMatch(/^(#.*|[A-Z][A-Z0-9_]*=|)$/);
    }
  });

  it('lists the tool with a valid name and the hostile text intact as data', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(2);
    for (const t of tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const tool = tools.find((t) => t.name.startsWith('get'));
    expect(tool?.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tool?.description).toContain('`${globalThis.process.exit(99)}`');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['id']));
  });

  it('calls it: the hostile path stays literal and percent-encoded, nothing ran', async () => {
    upstream.clear();
    const result = await client.callTool({ name: (await client.listTools()).tools[0]?.name ?? '', arguments: { id: '../x"y', x: 'X' } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path.startsWith('/api/things/..%2Fx%22y/')).toBe(true);
    expect(existsSync(PWNED)).toBe(false);
  });
});
