// One-line installs of a generated server in each major MCP client: for its README (with
// `npx -y <package>`, once published), the generation summary and the server's own `--clients`
// (with `node <the built entry's real path>`, which only they know: no generated file holds a
// path, so output never depends on where it was written). Each is written in the shape its
// client documents (a CLI command, a JSON config block or an install link); credentials appear
// as placeholders naming their variable, never as values.

/** Where the server runs and what it needs: names only (the table's slug, its variables). */
export interface InstallTarget {
  /** The server's key in client configs (letters, digits, `-`). */
  key: string;
  /** The npm package name (npx runs its bin). */
  packageName: string;
  /** Environment variables the server needs, each shown as `<VARIABLE>`. */
  variables: string[];
  /** Where the Streamable HTTP endpoint listens when started with `--transport http`. */
  httpUrl: string;
  /** Run this built entry point (`node <path>`) instead of the published package (the generation summary's lines). */
  entry?: string;
}

export interface ClientInstall {
  client: string;
  /** What the user does with `text`, in a sentence. */
  how: string;
  /** `sh`: a command; `json`: a config file's block; `link`: a URL to open. */
  kind: 'sh' | 'json' | 'link';
  text: string;
}

/** The stdio launch every client gets: the command, its arguments and the credentials' placeholders. */
function stdioLaunch(target: InstallTarget): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: target.entry === undefined ? 'npx' : 'node',
    args: target.entry === undefined ? ['-y', target.packageName] : [target.entry],
    env: Object.fromEntries(target.variables.map((v) => [v, placeholder(v)])),
  };
}

const placeholder = (variable: string): string => `<${variable}>`;

/** POSIX shell single quotes: the text stays one literal word whatever it holds. */
const shellWord = (text: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

export function clientInstalls(target: InstallTarget): ClientInstall[] {
  const launch = stdioLaunch(target);
  const command = [launch.command, ...launch.args].map(shellWord).join(' ');
  const envFlags = (flag: string) => target.variables.map((v) => ` ${flag} ${shellWord(`${v}=${placeholder(v)}`)}`).join('');
  const server = { command: launch.command, args: launch.args, ...(target.variables.length ? { env: launch.env } : {}) };
  const block = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers }, null, 2);
  const vscode = JSON.stringify({ name: target.key, ...server });
  const cursorConfig = Buffer.from(JSON.stringify(server), 'utf8').toString('base64');
  return [
    {
      client: 'Claude Code',
      how: 'run once (stdio; the server starts with each session)',
      kind: 'sh',
      text: `claude mcp add ${shellWord(target.key)}${envFlags('-e')} -- ${command}`,
    },
    {
      client: 'Claude Code (HTTP)',
      how: 'with the server started by `--transport http`',
      kind: 'sh',
      text: `claude mcp add --transport http ${shellWord(target.key)} ${target.httpUrl}`,
    },
    {
      client: 'Codex CLI',
      how: 'run once',
      kind: 'sh',
      text: `codex mcp add ${shellWord(target.key)}${envFlags('--env')} -- ${command}`,
    },
    {
      client: 'Codex CLI (HTTP)',
      how: 'with the server started by `--transport http`',
      kind: 'sh',
      text: `codex mcp add ${shellWord(target.key)} --url ${target.httpUrl}`,
    },
    { client: 'VS Code', how: 'run once', kind: 'sh', text: `code --add-mcp ${shellWord(vscode)}` },
    {
      client: 'VS Code (link)',
      how: 'open it (VS Code asks before installing)',
      kind: 'link',
      text: `vscode:mcp/install?${encodeURIComponent(vscode)}`,
    },
    {
      client: 'Cursor',
      how: 'open it (Cursor asks before installing)',
      kind: 'link',
      text: `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(target.key)}&config=${encodeURIComponent(cursorConfig)}`,
    },
    {
      client: 'Windsurf',
      how: 'add to `~/.codeium/windsurf/mcp_config.json`',
      kind: 'json',
      text: block({ [target.key]: server }),
    },
    {
      client: 'Gemini CLI',
      how: 'add to `~/.gemini/settings.json` (or `.gemini/settings.json` in a project)',
      kind: 'json',
      text: block({ [target.key]: server }),
    },
    {
      client: 'Claude Desktop',
      how: 'add to `claude_desktop_config.json` (Settings → Developer → Edit Config), or install the bundle that `npm run bundle` writes',
      kind: 'json',
      text: block({ [target.key]: server }),
    },
  ];
}
