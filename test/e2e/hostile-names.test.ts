// Spec names are untrusted text that reaches more than the project's code: the settings file a
// user copies to .env, and the terminal mcp-gen prints its summary on. A security scheme name
// with line breaks must not add a setting to .env.example, and no spec text may send terminal
// control sequences (ANSI CSI, OSC: window title, clipboard, hyperlinks) to the user's terminal.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TMP } from '../../harness/project.js';
import { runCli, type CliRun } from '../harness/cli.js';

const FORGED = '\nMCP_HOST=0.0.0.0\nMCP_ALLOW_UNAUTHENTICATED=1\n#';
// OSC 0 (window title), OSC 52 (write the clipboard), CSI erase line, a carriage return and C1 CSI
const ESCAPES = '\u001b]0;pwned\u0007\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2K\r\u009b31m';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// a right-to-left override and an isolate (they reorder what follows), a zero-width space, DEL and a C1 control
const UNSEEN = 'Bank\u202eknaB\u2066\u200b\u007f\u0086';
const HIDING = /[\u007f-\u009f\u200b\u202a-\u202e\u2066-\u2069]/;

const dir = join(TMP, 'hostile-names');
let generated: CliRun;
let broken: CliRun;

beforeAll(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const alternatives = { [`a${FORGED}`]: {}, [`b${FORGED}${ESCAPES}`]: {} };
  const spec = {
    openapi: '3.0.3',
    info: { title: `Hostile names ${UNSEEN}`, version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    components: {
      securitySchemes: {
        [`a${FORGED}`]: { type: 'apiKey', in: 'header', name: 'X-Key' },
        [`b${FORGED}${ESCAPES}`]: { type: 'http', scheme: 'bearer' },
        // a header no request can carry: its warning names the scheme's place
        [`c${ESCAPES}`]: { type: 'apiKey', in: 'header', name: `X-Key${ESCAPES}` },
      },
    },
    security: Object.entries(alternatives).map(([name]) => ({ [name]: [] })),
    paths: {
      '/things': { get: { operationId: 'listThings', summary: 'Things', responses: { '200': { description: 'ok' } } } },
      [`/files/${UNSEEN}`]: { get: { operationId: 'listFiles', summary: UNSEEN, responses: { '200': { description: 'ok' } } } },
    },
  };
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(spec));
  generated = runCli(['openapi.json', '--out', 'out'], dir);
  // a spec error whose place is a hostile key
  writeFileSync(
    join(dir, 'broken.json'),
    JSON.stringify({ ...spec, paths: { '/x': { get: { responses: { '200': { $ref: `#/components/responses/r${ESCAPES}` } } } } } }),
  );
  broken = runCli(['broken.json', '--out', 'broken-out'], dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile security scheme names', () => {
  it('add no line to .env.example: every line is a comment, blank or NAME=', () => {
    expect(generated.code).toBe(0);
    const lines = readFileSync(join(dir, 'out/.env.example'), 'utf8').split('\n');
    for (const line of lines) expect(line, JSON.stringify(line)).toMatch(/^(#.*|[A-Z][A-Z0-9_]*=|)$/);
    expect(lines).not.toContain('MCP_HOST=0.0.0.0');
    expect(lines.filter((l) => l.startsWith('MCP_ALLOW_UNAUTHENTICATED'))).toEqual(['MCP_ALLOW_UNAUTHENTICATED=']);
  });

  it('reach the terminal without control characters or forged lines', () => {
    expect(generated.code).toBe(0);
    for (const line of generated.stdout.split('\n')) {
      expect(line, JSON.stringify(line)).not.toMatch(CONTROL);
      expect(line).not.toMatch(/^MCP_/);
    }
    expect(generated.stdout).toContain('credentials: one of a');
    expect(generated.stdout).toMatch(/warning: #\/components\/securitySchemes\/c.*not a valid header name/);
  });

  it('reach the terminal without control characters in an error either', () => {
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^mcp-gen: error: /);
    expect(broken.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(broken.stderr.trimEnd()).not.toMatch(CONTROL);
  });
});

describe('a title with characters that hide or reorder text', () => {
  it.each(['README.md', 'package.json', 'manifest.json', 'server.json'])('shows them as escapes in %s, where people read it', (file) => {
    const text = readFileSync(join(dir, 'out', file), 'utf8');
    expect(text).toContain('Hostile names Bank');
    expect(text).toMatch(/\\u202eknaB\\+u2066\\+u200b/);
    expect(text).not.toMatch(HIDING);
  });
});

describe('a path and a summary with characters that hide or reorder text', () => {
  it("show them as escapes in the README's table of tools", () => {
    const row = readFileSync(join(dir, 'out/README.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| `listFiles` |'));
    expect(row).toMatch(/`GET \/files\/Bank\\u202eknaB\\u2066\\u200b_` \| Bank\\+u202eknaB/);
    expect(row).not.toMatch(HIDING);
  });
});
