// The generated README's setup recipes (templates/project/README.md.hbs): every JSON block is
// valid JSON a user can paste, the remote recipes carry the MCP token as each client expects,
// and what the README says about the tools matches the mode the server lists by default.
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import type { ModelOptions } from '../../../src/model/model-options.js';
import { emitProject } from '../../../src/emit/project.js';
import type { JsonObject } from '../../../src/parse/pointer.js';

/** Three operations that take any of the schemes, unless `paths` says otherwise. */
function readme(schemes: JsonObject, options: Partial<ModelOptions> = {}, paths: JsonObject = threeThings()): string {
  const model = buildModel(
    {
      doc: {
        openapi: '3.0.3',
        info: { title: 'Things', version: '1' },
        servers: [{ url: 'https://api.example.com' }],
        paths,
        components: { securitySchemes: schemes },
        security: Object.keys(schemes).map((k) => ({ [k]: [] })),
      },
      specVersion: '3.0.3',
      source: 'spec.yaml',
      warnings: [],
    },
    // generating from a spec file: its title names the credentials
    { maxDescriptionLength: 1000, titleNamesCredentials: true, ...options },
  );
  const file = emitProject(model, { specName: 'spec.yaml', dirName: 'things-mcp' }).files.find((f) => f.path === 'README.md');
  return file?.contents.toString() ?? '';
}

function threeThings(): JsonObject {
  const paths: JsonObject = {};
  for (let i = 0; i < 3; i++)
    paths[`/things/${i}`] = { get: { operationId: `getThing${i}`, summary: 'Get a thing by number', responses: {} } };
  return paths;
}

const jsonBlocks = (text: string): unknown[] =>
  [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as unknown);

describe('alternative security schemes (basic or bearer, as Stripe has them)', () => {
  const schemes = { basicAuth: { type: 'http', scheme: 'basic' }, bearerAuth: { type: 'http', scheme: 'bearer' } };
  const text = readme(schemes);

  it('the README says the tools take either, and lists both', () => {
    expect(text).toContain('basicAuth or bearerAuth: the tools take any one of them, so set the variables of one.');
    expect(text).toContain('`THINGS_BASIC_AUTH_USERNAME`');
    expect(text).toContain('`THINGS_BEARER_AUTH_TOKEN`');
  });

  it('the one-liners ask for one of them, the one with the fewest variables', () => {
    const claude = text.split('\n').find((line) => line.startsWith('claude mcp add things '));
    expect(claude).toContain("-e 'THINGS_BEARER_AUTH_TOKEN=<THINGS_BEARER_AUTH_TOKEN>'");
    expect(claude).not.toContain('BASIC_AUTH');
  });
});

describe('generated README', () => {
  const text = readme({ api_key: { type: 'apiKey', in: 'header', name: 'X-Key' } });

  it('every JSON block parses as written', () => {
    expect(jsonBlocks(text).length).toBeGreaterThanOrEqual(5);
  });

  it('remote recipes: mcp-remote with the token in a header from env, VS Code type http with a secret input, Cursor url with headers', () => {
    const blocks = jsonBlocks(text) as Record<string, Record<string, Record<string, unknown>>>[];
    const remote = blocks.find((b) => (b.mcpServers?.things?.args as string[] | undefined)?.includes('mcp-remote'))?.mcpServers?.things;
    expect(remote?.args).toEqual(['-y', 'mcp-remote', 'http://127.0.0.1:3000/mcp', '--header', 'Authorization:${MCP_AUTH_HEADER}']);
    expect(remote?.env).toEqual({ MCP_AUTH_HEADER: 'Bearer <the MCP_AUTH_TOKEN value>' });
    const vscode = blocks.find((b) => b.servers?.things?.type === 'http') as
      { inputs: { id: string; password: boolean }[]; servers: { things: { url: string; headers: Record<string, string> } } } | undefined;
    expect(vscode?.servers.things.headers).toEqual({ Authorization: 'Bearer ${input:things-token}' });
    expect(vscode?.inputs).toEqual([expect.objectContaining({ id: 'things-token', password: true })]);
    const cursor = blocks.find((b) => typeof b.mcpServers?.things?.url === 'string')?.mcpServers?.things;
    expect(cursor).toEqual({ url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer <the MCP_AUTH_TOKEN value>' } });
  });

  it("--auth-from-headers is shown with the API's own scheme and variable", () => {
    expect(text).toContain('`--auth-from-headers X-Api-Credential=api_key`');
    expect(text).toContain('instead of `THINGS_API_KEY`');
  });

  it('a scheme name that is not plainly safe is not copied into a command', () => {
    const hostile = readme({ 'k`$(rm -rf ~)': { type: 'apiKey', in: 'header', name: 'X-Key' } }, { envPrefix: 'THINGS' });
    expect(hostile).toContain('`--auth-from-headers X-Api-Credential=<scheme>`');
    // (the credentials table still names the scheme, escaped as Markdown text)
    expect(hostile.split('\n').filter((line) => line.includes('--auth-from-headers X-Api-Credential=') && line.includes('$('))).toEqual([]);
  });

  it('says what tools/list shows in the mode chosen, never "one per API operation" in dynamic mode', () => {
    const dynamic = readme({}, { toolMode: 'dynamic' });
    expect(dynamic).toContain('It serves 3 API operations');
    expect(dynamic).toContain('shows them behind three tools that search, describe and invoke them');
    const intro = dynamic.split('\n## ')[0] ?? '';
    expect(intro).not.toMatch(/one (tool )?per (API )?operation/);
    expect(readme({})).toContain('shows them as one tool per operation');
  });
});

describe('the credentials table counts the tools of each scheme', () => {
  it('by the scheme names a tool requires, also a name Object.prototype has', () => {
    const paths: JsonObject = {
      '/open': { get: { operationId: 'open', security: [{ bearerAuth: [] }], responses: {} } },
      '/keyed': { get: { operationId: 'keyed', security: [{ constructor: [] }], responses: {} } },
      '/either': { get: { operationId: 'either', security: [{ constructor: [] }, { bearerAuth: [] }], responses: {} } },
    };
    const schemes = { constructor: { type: 'apiKey', in: 'header', name: 'X-Key' }, bearerAuth: { type: 'http', scheme: 'bearer' } };
    const text = readme(schemes, {}, paths);
    expect(text).toMatch(/API key, sent in header X-Key \(2 tools\)/);
    expect(text).toMatch(/token, sent as Authorization: Bearer \(2 tools\)/);
  });
});
