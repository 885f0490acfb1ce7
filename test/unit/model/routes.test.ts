// Route mapping (src/model/routes.ts) and declared prompts (src/model/prompts.ts) on their own.
import { describe, expect, it } from 'vitest';
import { exampleValues, resourceFor, resourceScheme, routeKind, withExamples } from '../../../src/model/routes.js';
import type { OperationRef } from '../../../src/model/rules.js';
import { readPrompts } from '../../../src/model/prompts.js';
import type { GenerationWarning } from '../../../src/warnings.js';
import { param } from '../../harness/params.js';

const ref = (method: string, path: string, more: Partial<OperationRef> = {}): OperationRef => ({
  method,
  path,
  tags: [],
  op: {},
  item: {},
  doc: {},
  ...more,
});

describe('routeKind: config rules, then x-mcp, then the preset, then tool', () => {
  it('the first matching rule wins; every criterion of a rule must match', () => {
    const rules = [
      { methods: ['GET'], paths: ['/admin/**'], kind: 'exclude' as const },
      { tags: ['pets'], operations: ['get*'], kind: 'resource' as const },
      { methods: ['get'], kind: 'both' as const },
    ];
    expect(routeKind(ref('get', '/admin/users'), rules, 'none', [])).toEqual({ kind: 'exclude', from: 'config routes[0]' });
    expect(routeKind(ref('get', '/pets', { tags: ['pets'], operationId: 'getPets' }), rules, 'none', [])).toEqual({
      kind: 'resource',
      from: 'config routes[1]',
    });
    expect(routeKind(ref('get', '/pets', { tags: ['pets'], operationId: 'listPets' }), rules, 'none', [])).toEqual({
      kind: 'both',
      from: 'config routes[2]',
    });
  });

  it('x-mcp kind on the operation, else its path item; a rule still wins over it', () => {
    expect(routeKind(ref('get', '/a', { op: { 'x-mcp': { kind: 'resource' } } }), [], 'get', []).kind).toBe('resource');
    expect(routeKind(ref('get', '/a', { item: { 'x-mcp': { kind: 'exclude' } } }), [], 'none', []).kind).toBe('exclude');
    expect(routeKind(ref('get', '/a', { op: { 'x-mcp': { kind: 'nonsense' } } }), [], 'none', []).kind).toBe('tool');
    expect(routeKind(ref('get', '/a', { op: { 'x-mcp': { kind: 'resource' } } }), [{ kind: 'tool' }], 'none', []).kind).toBe('tool');
  });

  it('--resources get: GETs without a required query, header or cookie parameter are both; others stay tools', () => {
    expect(routeKind(ref('get', '/p/{id}'), [], 'get', [param('id', 'path'), param('q', 'query', false)]).kind).toBe('both');
    expect(routeKind(ref('get', '/p'), [], 'get', [param('q', 'query', true)]).kind).toBe('tool');
    expect(routeKind(ref('get', '/p'), [], 'get', [param('X-A', 'header', true)]).kind).toBe('tool');
    expect(routeKind(ref('post', '/p'), [], 'get', []).kind).toBe('tool');
    expect(routeKind(ref('get', '/p'), [], 'none', []).kind).toBe('tool');
  });
});

describe('exampleValues and withExamples (completions)', () => {
  it("a parameter's example and examples, then its schema's, as text, once each; objects and long texts left out; at most 100", () => {
    const param = { name: 'q', example: 'a', examples: { one: { value: 1 }, obj: { value: { x: 1 } }, ref: { $ref: '#/x' } } };
    expect(exampleValues(param, { type: 'string', example: true, examples: ['a', 'b', 'x'.repeat(201)] })).toEqual(['a', '1', 'true', 'b']);
    expect(exampleValues({ name: 'n' }, { examples: Array.from({ length: 150 }, (_, i) => i) })).toHaveLength(100);
    expect(exampleValues({ name: 'n' }, undefined)).toEqual([]);
  });

  it('keys them by the template variable that fills the argument; none, no key', () => {
    const template = { uriTemplate: 'zoo://animals/{kind}{?max}', variables: { kind: 'kind', max: 'limit' } };
    expect(withExamples(template, new Map([['limit', ['2']]]))).toEqual({ ...template, examples: { max: ['2'] } });
    expect(withExamples(template, new Map())).toEqual(template);
  });
});

describe('resourceFor', () => {
  it('no path parameters: a fixed URI; with them: an RFC 6570 template with query variables as {?…}', () => {
    expect(resourceFor('zoo', '/store/inventory', [param('q', 'query', false)], false)).toEqual({ uri: 'zoo://store/inventory' });
    expect(
      resourceFor(
        'zoo',
        '/repos/{owner}/{repo-name}',
        [param('owner', 'path'), param('repo-name', 'path'), param('per_page', 'query', false)],
        false,
      ),
    ).toEqual({
      uriTemplate: 'zoo://repos/{owner}/{repo_name}{?per_page}',
      variables: { owner: 'owner', repo_name: 'repo-name', per_page: 'per_page' },
    });
    // a required query parameter must be given, so the URI is a template even without path variables
    expect(resourceFor('zoo', '/search', [param('q', 'query', true)], false)).toEqual({
      uriTemplate: 'zoo://search{?q}',
      variables: { q: 'q' },
    });
  });

  it('what a URI cannot carry refuses, with the reason', () => {
    expect(resourceFor('zoo', '/a', [param('X-Token', 'header', true)], false)).toEqual({
      refused: 'its header parameter "X-Token" is required, and a URI cannot carry it',
    });
    expect(resourceFor('zoo', '/a', [], true)).toEqual({ refused: 'it takes a request body' });
    expect(resourceFor('zoo', '/{Bucket}?uploads', [param('Bucket', 'path')], false)).toEqual({
      refused: 'its path has a literal query or fragment',
    });
  });

  it('an Express-style path (nexmo.com media.json) would put ":id" where a URI has its host: refused', () => {
    expect(resourceFor('media', '/:id/info', [], false)).toEqual({ refused: 'its path /:id/info does not make a valid URI' });
  });

  it('the scheme: the package name without -mcp, starting with a letter', () => {
    expect(resourceScheme('swagger-petstore-mcp')).toBe('swagger-petstore');
    expect(resourceScheme('42-things-mcp')).toBe('things');
    expect(resourceScheme('-mcp')).toBe('api');
  });
});

describe('readPrompts', () => {
  it('keeps valid prompts, leaves out and warns about the rest, by place', () => {
    const warnings: GenerationWarning[] = [];
    const prompts = readPrompts(
      [
        {
          name: 'ok',
          template: 'Hi {{who}}',
          arguments: [{ name: 'who', required: true, enum: ['a', 1] }, { name: 'bad-arg' }, { name: '__proto__' }, { name: 'constructor' }],
        },
        { name: 'no template' },
        { name: 'ok', template: 'again' },
      ],
      '#/x-mcp-prompts',
      warnings,
    );
    expect(prompts).toEqual([
      { name: 'ok', template: 'Hi {{who}}', arguments: [{ name: 'who', required: true, enum: ['a'] }, { name: 'constructor' }] },
    ]);
    expect(warnings.map((w) => `${w.where}: ${w.message}`)).toEqual([
      '#/x-mcp-prompts/0: an argument needs a name of letters, digits and "_"; left out',
      '#/x-mcp-prompts/0: an argument cannot be named __proto__ (MCP SDKs drop that key from requests); left out',
      '#/x-mcp-prompts/1: needs a name (letters, digits, "_", "-", ".") and a template (text); left out',
      '#/x-mcp-prompts/2: a second prompt named ok; left out',
    ]);
    expect(readPrompts({ not: 'a list' }, 'config "prompts"', warnings)).toEqual([]);
  });
});
