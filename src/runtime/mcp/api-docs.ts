// What a generated server tells about its API beyond tools: the documentation resources
// (`<scheme>://docs`, the overview, and `<scheme>://docs/<toolset>`, one per toolset, in
// Markdown) and the prompts (one per toolset on how to use it, plus those the spec or config
// declares). All written from the tool table at run time; spec text is only ever quoted.

import { ownValue, type PromptSpec, type ToolSpec, type ToolTable } from '../../contract/table.js';
import { toolsetSizes, toolsIn } from '../../contract/toolsets.js';

function schemeOf(table: ToolTable): string {
  return (
    table.scheme ??
    (table.name
      .replace(/-mcp$/, '')
      .toLowerCase()
      .replace(/[^a-z0-9+.-]+/g, '-')
      .replace(/^[^a-z]+/, '') ||
      'api')
  );
}

const api = (table: ToolTable) => table.title ?? table.name;
const firstParagraph = (text: string) => (text.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
/** One line of a Markdown table: no line breaks or cell separators from the spec. */
const cell = (text: string) => text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
const requiredArgs = (tool: ToolSpec) => (Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : []);

function credentials(table: ToolTable): string[] {
  return Object.entries(table.auth).map(
    ([name, scheme]) => `- \`${Object.values(scheme.env).join('`, `')}\` for the "${cell(name)}" scheme (${scheme.type})`,
  );
}

export interface DocResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'text/markdown';
  toolset?: string;
}

export function docResources(table: ToolTable): DocResource[] {
  const scheme = schemeOf(table);
  return [
    {
      uri: `${scheme}://docs`,
      name: 'docs',
      title: `${api(table)}: overview`,
      description: `What the ${api(table)} API offers, its toolsets and its credentials.`,
      mimeType: 'text/markdown',
    },
    ...[...toolsetSizes(table).entries()].map(([toolset, size]) => ({
      uri: `${scheme}://docs/${encodeURIComponent(toolset)}`,
      name: `docs-${toolset}`,
      title: `${api(table)}: the ${toolset} toolset`,
      description: `The ${size} operations of the ${toolset} toolset: what each does and what it needs.`,
      mimeType: 'text/markdown' as const,
      toolset,
    })),
  ];
}

export function docText(table: ToolTable, doc: DocResource): string {
  if (doc.toolset === undefined) {
    const lines = [`# ${api(table)}${table.version ? ` (version ${table.version})` : ''}`, ''];
    if (table.description) lines.push(table.description, '');
    lines.push(`## Toolsets`, '', `${table.tools.length} operations, in toolsets:`, '');
    for (const d of docResources(table).slice(1)) lines.push(`- **${d.toolset}**: ${d.description} (\`${d.uri}\`)`);
    const creds = credentials(table);
    lines.push(
      '',
      '## Credentials',
      '',
      ...(creds.length ? ['The server reads them from its environment:', '', ...creds] : ['The spec declares none.']),
    );
    return lines.join('\n') + '\n';
  }
  const tools = toolsIn(table, doc.toolset);
  const lines = [`# ${api(table)}: ${doc.toolset}`, '', '| tool | request | what it does | required |', '|---|---|---|---|'];
  for (const t of tools) {
    lines.push(
      `| \`${t.name}\` | \`${cell(`${t.http.method} ${t.http.path}`)}\` | ${cell(firstParagraph(t.title ?? t.description)).slice(0, 300)} | ${requiredArgs(
        t,
      )
        .map((a) => `\`${a}\``)
        .join(', ')} |`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Common next calls, from the spec's response links. */
function sequences(tools: ToolSpec[]): string[] {
  const lines = tools
    .filter((t) => t.then?.length)
    .map((t) => `- after \`${t.name}\`: ${(t.then ?? []).map((n) => `\`${n}\``).join(', ')} (its answer gives their arguments)`);
  return lines.length ? ["Common sequences (from the spec's links):", ...lines, ''] : [];
}

/** A prompt as prompts/list shows it, with the text prompts/get returns. */
export interface Guide {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  /** The text, with `{{argument}}` placeholders. */
  template: string;
  /** Argument name → its values, for completions. */
  enums?: ReadonlyMap<string, string[]>;
}

export function guides(table: ToolTable): Guide[] {
  const scheme = schemeOf(table);
  const toolsetGuides: Guide[] = [...toolsetSizes(table).keys()].map((toolset) => {
    const tools = toolsIn(table, toolset);
    const reads = tools.filter((t) => t.annotations.readOnlyHint).map((t) => `\`${t.name}\``);
    const writes = tools.filter((t) => !t.annotations.readOnlyHint).map((t) => `\`${t.name}\``);
    const creds = credentials(table);
    const text = [
      `You can use the ${toolset} tools of the ${api(table)} API (${tools.length} in all). Each makes a real HTTP request.`,
      '',
      ...tools.map((t) => `- \`${t.name}\` (${t.http.method} ${t.http.path}): ${firstParagraph(t.title ?? t.description).slice(0, 200)}`),
      '',
      reads.length && writes.length
        ? `Read before you write: find what exists with ${reads.slice(0, 5).join(', ')} and use the ids they return in ${writes.slice(0, 5).join(', ')}; confirm with the user before a change that cannot be undone.`
        : writes.length
          ? 'These tools change data: confirm with the user before a change that cannot be undone.'
          : 'These tools only read.',
      '',
      ...sequences(tools),
      ...(creds.length ? ['If a tool answers that credentials are missing, the server needs one of these set:', ...creds, ''] : []),
      `The full list, with required arguments, is the resource ${scheme}://docs/${encodeURIComponent(toolset)}.`,
    ].join('\n');
    return {
      name: `use_${toolset}`.replace(/[^A-Za-z0-9_-]/g, '_'),
      title: `Use the ${toolset} tools`,
      description: `How to use the ${toolset} tools of ${api(table)}.`,
      template: text,
    };
  });
  const declared: Guide[] = (table.prompts ?? []).map((p: PromptSpec) => ({
    name: p.name,
    ...(p.title ? { title: p.title } : {}),
    ...(p.description ? { description: p.description } : {}),
    ...(p.arguments
      ? {
          arguments: p.arguments.map(({ name, description, required }) => ({
            name,
            ...(description ? { description } : {}),
            ...(required ? { required } : {}),
          })),
        }
      : {}),
    template: p.template,
    enums: new Map((p.arguments ?? []).filter((a) => a.enum?.length).map((a) => [a.name, a.enum as string[]])),
  }));
  // A declared prompt wins over a toolset prompt of the same name.
  return [...declared, ...toolsetGuides.filter((g) => !declared.some((d) => d.name === g.name))];
}

/**
 * `{{name}}` replaced by the argument's value; a missing required argument is named. Text only:
 * nothing is evaluated. Only the client's own keys count (an argument may be named `constructor`).
 */
export function fill(guide: Guide, args: Record<string, string>): string | { missing: string } {
  const given = (name: string) => ownValue(args, name) ?? '';
  for (const a of guide.arguments ?? []) if (a.required && given(a.name) === '') return { missing: a.name };
  const known = new Set((guide.arguments ?? []).map((a) => a.name));
  return guide.template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (placeholder, name: string) =>
    known.has(name) ? given(name) : placeholder,
  );
}
