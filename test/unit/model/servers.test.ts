// Server Objects as the runtime needs them (src/model/servers.ts).
import { describe, expect, it } from 'vitest';
import { serverList, serverOf } from '../../../src/model/servers.js';
import type { Json } from '../../../src/parse/pointer.js';
import type { ServerSpec } from '../../../src/contract/table.js';
import type { GenerationWarning } from '../../../src/warnings.js';

describe('serverOf', () => {
  const cases: [string, { given: { server: Json; source?: string }; want: ServerSpec | undefined }][] = [
    ['no url: none', { given: { server: { description: 'x' } }, want: undefined }],
    ['not an object: none', { given: { server: 'https://a.example' }, want: undefined }],
    [
      'an absolute URL, trimmed',
      { given: { server: { url: ' https://api.example.com/v1 ' } }, want: { url: 'https://api.example.com/v1' } },
    ],
    [
      'a relative URL is resolved against a spec URL',
      { given: { server: { url: '/v2' }, source: 'https://example.com/specs/openapi.json' }, want: { url: 'https://example.com/v2' } },
    ],
    ['a relative URL of a spec file stays relative', { given: { server: { url: '/v2' }, source: 'openapi.json' }, want: { url: '/v2' } }],
    [
      'variables: the default, else the first allowed value; the description on one line',
      {
        given: {
          server: {
            url: 'https://{region}.example.com/{v}',
            description: 'The\n  main one',
            variables: { region: { enum: ['eu', 'us'], description: 'Where\nit runs' }, v: { default: 2 }, broken: 'x' },
          },
        },
        want: {
          url: 'https://{region}.example.com/{v}',
          description: 'The main one',
          variables: { region: { default: 'eu', enum: ['eu', 'us'], description: 'Where it runs' }, v: { default: '2' } },
        },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(serverOf(given.server, given.source ?? 'openapi.yaml')).toEqual(want);
  });

  it('serverList keeps the usable servers, in order', () => {
    expect(serverList([{ url: 'https://a' }, null, { url: 'https://b' }], 'x.yaml')).toEqual([{ url: 'https://a' }, { url: 'https://b' }]);
    expect(serverList(undefined, 'x.yaml')).toEqual([]);
  });

  it('serverList leaves out a URL using a {variable} it does not define, once per place, with a warning naming it', () => {
    const warnings: GenerationWarning[] = [];
    const list: Json = [{ url: 'https://{region}.example.com/{v}', variables: { v: { default: '1' } } }, { url: 'https://b' }];
    const place = { at: '#/paths/~1x/servers', warnings };
    expect(serverList(list, 'x.yaml', place)).toEqual([{ url: 'https://b' }]);
    expect(serverList(list, 'x.yaml', place)).toEqual([{ url: 'https://b' }]);
    expect(warnings).toEqual([
      {
        code: 'undefined-server-variable',
        message:
          'server URL https://{region}.example.com/{v} uses {region}, which its variables do not define: left out (give the URL with --base-url or API_BASE_URL)',
        where: '#/paths/~1x/servers/0/url',
      },
    ]);
  });
});
