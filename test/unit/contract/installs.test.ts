// Every one-line install the generated README gives, checked against the shape its client
// documents: commands split by a real shell into the argv the client's CLI receives, JSON blocks
// parsed, install links decoded. Credentials appear only as placeholders naming their variable.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clientInstalls, type ClientInstall, type InstallTarget } from '../../../src/contract/installs.js';

const target: InstallTarget = {
  key: 'acme-billing',
  packageName: 'acme-billing-mcp',
  variables: ['ACME_API_KEY', 'ACME_TOKEN'],
  httpUrl: 'http://127.0.0.1:3000/mcp',
};
const installs = clientInstalls(target);
const one = (client: string): ClientInstall => {
  const found = installs.find((i) => i.client === client);
  if (!found) throw new Error(`no install for ${client}`);
  return found;
};

/** The argv bash hands to the command, after its quoting rules. */
function argvOf(command: string): string[] {
  const out = execFileSync('bash', ['-c', 'argv() { printf "%s\\0" "$@"; }; eval "argv $1"', '_', command], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const stdioServer = {
  command: 'npx',
  args: ['-y', 'acme-billing-mcp'],
  env: { ACME_API_KEY: '<ACME_API_KEY>', ACME_TOKEN: '<ACME_TOKEN>' },
};

describe('one-line installs', () => {
  it('Claude Code: claude mcp add <name> -e KEY=value … -- <command> (its --help), and over HTTP --transport http <name> <url>', () => {
    expect(argvOf(one('Claude Code').text)).toEqual([
      'claude',
      'mcp',
      'add',
      'acme-billing',
      '-e',
      'ACME_API_KEY=<ACME_API_KEY>',
      '-e',
      'ACME_TOKEN=<ACME_TOKEN>',
      '--',
      'npx',
      '-y',
      'acme-billing-mcp',
    ]);
    expect(argvOf(one('Claude Code (HTTP)').text)).toEqual(['claude', 'mcp', 'add', '--transport', 'http', 'acme-billing', target.httpUrl]);
  });

  it('Codex CLI: codex mcp add <NAME> --env KEY=VALUE -- <COMMAND>…, or --url <URL>', () => {
    expect(argvOf(one('Codex CLI').text)).toEqual([
      'codex',
      'mcp',
      'add',
      'acme-billing',
      '--env',
      'ACME_API_KEY=<ACME_API_KEY>',
      '--env',
      'ACME_TOKEN=<ACME_TOKEN>',
      '--',
      'npx',
      '-y',
      'acme-billing-mcp',
    ]);
    expect(argvOf(one('Codex CLI (HTTP)').text)).toEqual(['codex', 'mcp', 'add', 'acme-billing', '--url', target.httpUrl]);
  });

  it('VS Code: code --add-mcp with one JSON argument holding name, command, args and env; the install link is vscode:mcp/install? and that JSON, URL-encoded', () => {
    const argv = argvOf(one('VS Code').text);
    expect(argv.slice(0, 2)).toEqual(['code', '--add-mcp']);
    expect(argv).toHaveLength(3);
    expect(JSON.parse(argv[2] as string)).toEqual({ name: 'acme-billing', ...stdioServer });
    const link = one('VS Code (link)').text;
    expect(link.startsWith('vscode:mcp/install?')).toBe(true);
    expect(JSON.parse(decodeURIComponent(link.slice('vscode:mcp/install?'.length)))).toEqual({ name: 'acme-billing', ...stdioServer });
  });

  it("Cursor: cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=<base64 of the server's JSON>", () => {
    const url = new URL(one('Cursor').text);
    expect(url.protocol).toBe('cursor:');
    expect(url.host).toBe('anysphere.cursor-deeplink');
    expect(url.pathname).toBe('/mcp/install');
    expect(url.searchParams.get('name')).toBe('acme-billing');
    const config = url.searchParams.get('config') ?? '';
    expect(config).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(Buffer.from(config, 'base64').toString('utf8'))).toEqual(stdioServer);
  });

  it.each(['Windsurf', 'Gemini CLI', 'Claude Desktop'])('%s: an mcpServers block with command, args and env', (client) => {
    const install = one(client);
    expect(install.kind).toBe('json');
    expect(JSON.parse(install.text)).toEqual({ mcpServers: { 'acme-billing': stdioServer } });
  });

  it("the generation summary's line runs the build where it is, a path with spaces kept one word", () => {
    const local = clientInstalls({ ...target, variables: [], entry: "/home/me/my api's mcp/dist/main.js" });
    expect(argvOf(local[0]?.text ?? '')).toEqual([
      'claude',
      'mcp',
      'add',
      'acme-billing',
      '--',
      'node',
      "/home/me/my api's mcp/dist/main.js",
    ]);
  });

  it('no variables: no env at all, and nothing but names in any snippet', () => {
    const bare = clientInstalls({ ...target, variables: [] });
    expect(JSON.parse(bare.find((i) => i.client === 'Windsurf')?.text ?? '')).toEqual({
      mcpServers: { 'acme-billing': { command: 'npx', args: ['-y', 'acme-billing-mcp'] } },
    });
    expect(argvOf(bare[0]?.text ?? '')).toEqual(['claude', 'mcp', 'add', 'acme-billing', '--', 'npx', '-y', 'acme-billing-mcp']);
  });
});
