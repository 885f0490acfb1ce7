// The views' one script, run in the host's sandboxed frame (MCP Apps, io.modelcontextprotocol/ui):
// it receives a tool's result through ext-apps' App and draws a table (an array of objects), a
// card (an object), an image preview (an image content block) or an error panel (isError).
// Every string from the spec or the API is set with textContent: none becomes markup. A link is
// drawn only for an http(s) URL, and opened by the host (ui/open-link), never by this frame.
// Bundled with esbuild at mcp-gen's build (scripts/build-app-views.js) into the page's inline script.
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-with-deps';
import type { CallToolResult } from '@modelcontextprotocol/server';

/** A column the server chose from the item schema (runtime/apps/apps.ts). */
interface Column {
  key: string;
  title?: string;
  description?: string;
}

/** What the server adds to a result for its view, and the next page the answer shaping found. */
interface ViewMeta {
  columns?: Column[];
  /** The answer is not an object: structuredContent is `{ result: <answer> }`. */
  wrapped?: boolean;
  /** The operation ran through this meta-tool (invoke_operation): called again the same way. */
  via?: { tool: string; name: string };
}
type Row = Record<string, unknown>;

const app = new App({ name: 'mcp-gen-view', version: '1.0.0' });
const root = document.getElementById('root') as HTMLElement;
let lastArguments: Record<string, unknown> = {};
/** Set when the result came through invoke_operation: the next page is asked of it, for the operation it ran. */
let via: ViewMeta['via'];

app.ontoolinput = (params) => {
  lastArguments = (params.arguments as Record<string, unknown> | undefined) ?? {};
};
app.ontoolresult = (result) => render(result as CallToolResult);
app.onhostcontextchanged = (context) => followTheme(context);

void app.connect().then(() => followTheme(app.getHostContext()));

/** The host's theme and CSS variables (ext-apps host context), when it gives them. */
function followTheme(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

function render(result: CallToolResult): void {
  root.replaceChildren();
  if (result.isError) return void root.append(errorPanel(textOf(result)));
  const image = result.content?.find((block) => block.type === 'image');
  if (image && image.type === 'image') return void root.append(imagePreview(image.data, image.mimeType));
  const meta = viewMetaOf(result);
  const data = dataOf(result);
  via = meta.via;
  if (Array.isArray(data) && data.length > 0 && data.every(isObject)) return void root.append(table(data, meta, nextArgumentsOf(result)));
  if (isObject(data)) return void root.append(card(data));
  root.append(element('pre', textOf(result)));
}

const viewMetaOf = (result: CallToolResult) => (result._meta?.['mcp-gen/view'] ?? {}) as ViewMeta;

/** The answer: structuredContent (unwrapped), else the text content's JSON. */
function dataOf(result: CallToolResult): unknown {
  const structured = result.structuredContent;
  if (isObject(structured)) return viewMetaOf(result).wrapped ? structured.result : structured;
  try {
    return JSON.parse(textOf(result));
  } catch {
    return undefined;
  }
}

const textOf = (result: CallToolResult): string =>
  (result.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');

/** The next page's arguments the server's answer shaping found (answer-budget.ts), if any. */
function nextArgumentsOf(result: CallToolResult): Record<string, unknown> | undefined {
  const answer = result._meta?.['mcp-gen/answer'] as { nextPage?: { arguments?: Record<string, unknown> } } | undefined;
  return answer?.nextPage?.arguments;
}

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

// ---- error and image ----

function errorPanel(message: string): HTMLElement {
  const panel = element('section', undefined, 'error');
  panel.setAttribute('role', 'alert');
  panel.append(element('h2', 'The call failed'), element('pre', message));
  return panel;
}

function imagePreview(data: string, mimeType: string): HTMLElement {
  const figure = element('figure', undefined, 'image');
  const img = element('img');
  // Only images, as data: URLs (the CSP allows img-src data: and nothing else).
  if (/^image\/[\w.+-]+$/.test(mimeType)) img.src = `data:${mimeType};base64,${data.replace(/[^A-Za-z0-9+/=]/g, '')}`;
  img.alt = mimeType;
  figure.append(img, element('figcaption', mimeType));
  return figure;
}

// ---- values: links, dates ----

/** An http(s) URL, the only kind drawn as a link. */
function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function valueNode(value: unknown): Node {
  const url = httpUrl(value);
  if (url !== undefined) {
    const link = element('a', url);
    link.href = url;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      void app.openLink({ url });
    });
    return link;
  }
  if (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))) {
    const time = element('time', readableDate(value));
    time.dateTime = value;
    time.title = value;
    return time;
  }
  return document.createTextNode(
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
  );
}

const readableDate = (value: string) =>
  new Date(value).toLocaleString('en-GB', {
    timeZone: 'UTC',
    dateStyle: 'medium',
    ...(value.includes('T') ? { timeStyle: 'short' } : {}),
  }) + (value.includes('T') ? ' UTC' : '');

// ---- table ----

/** The columns: the server's (from the item schema), else the rows' first scalar keys. */
function columnsOf(rows: Row[], meta: ViewMeta): Column[] {
  if (meta.columns && meta.columns.length > 0) return meta.columns;
  const keys = new Set<string>();
  for (const row of rows.slice(0, 20)) for (const [key, value] of Object.entries(row)) if (isScalar(value)) keys.add(key);
  return [...keys].slice(0, 8).map((key) => ({ key }));
}

function table(first: Row[], meta: ViewMeta, firstNext: Record<string, unknown> | undefined): HTMLElement {
  const section = element('section', undefined, 'table');
  const columns = columnsOf(first, meta);
  let rows = first;
  let next = firstNext;
  let sort: { key: string; descending: boolean } | undefined;
  const grid = element('table');
  const body = element('tbody');
  const status = element('p', undefined, 'status');
  const more = element('button', 'Next page', 'next');
  const fill = () => {
    const shown = sort ? [...rows].sort(compareBy(sort.key, sort.descending)) : rows;
    body.replaceChildren(...shown.map((row) => tableRow(row, columns)));
    status.textContent = `${rows.length} rows`;
    more.hidden = next === undefined;
  };
  grid.append(
    header(columns, (key) => {
      sort = { key, descending: sort?.key === key ? !sort.descending : false };
      for (const th of grid.querySelectorAll('th'))
        th.setAttribute('aria-sort', th.dataset.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none');
      fill();
    }),
    body,
  );
  more.addEventListener('click', () => {
    void nextPage(next).then((page) => {
      if (!page) return;
      rows = page.rows;
      next = page.next;
      fill();
    });
  });
  fill();
  section.append(grid, status, more);
  return section;
}

function header(columns: Column[], sortBy: (key: string) => void): HTMLElement {
  const head = element('thead');
  const line = element('tr');
  for (const column of columns) {
    const th = element('th', column.title ?? column.key);
    th.dataset.key = column.key;
    th.setAttribute('aria-sort', 'none');
    if (column.description) th.title = column.description;
    th.addEventListener('click', () => sortBy(column.key));
    line.append(th);
  }
  head.append(line);
  return head;
}

function tableRow(row: Row, columns: Column[]): HTMLElement {
  const line = element('tr');
  for (const column of columns) {
    const cell = element('td');
    cell.append(valueNode(row[column.key]));
    line.append(cell);
  }
  return line;
}

function compareBy(key: string, descending: boolean): (a: Row, b: Row) => number {
  return (a, b) => {
    const [x, y] = [a[key], b[key]];
    const order =
      typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''), undefined, { numeric: true });
    return descending ? -order : order;
  };
}

/** The next page: the same tool called again through the host, with the answer's next arguments. */
async function nextPage(next: Record<string, unknown> | undefined): Promise<{ rows: Row[]; next?: Record<string, unknown> } | undefined> {
  const name = app.getHostContext()?.toolInfo?.tool.name;
  if (!next || !name) return undefined;
  const result = (await app.callServerTool(
    via ? viaCall(via, next) : { name, arguments: (lastArguments = { ...lastArguments, ...next }) },
  )) as CallToolResult;
  const data = dataOf(result);
  if (result.isError || !Array.isArray(data)) {
    root.replaceChildren(errorPanel(textOf(result)));
    return undefined;
  }
  return { rows: data.filter(isObject), next: nextArgumentsOf(result) };
}

/** The next page through the meta-tool: its `arguments` are the operation's. */
function viaCall(through: NonNullable<ViewMeta['via']>, next: Record<string, unknown>) {
  const given = (lastArguments.arguments ?? {}) as Record<string, unknown>;
  lastArguments = { name: through.name, arguments: { ...given, ...next } };
  return { name: through.tool, arguments: lastArguments };
}

// ---- card ----

function card(data: Row): HTMLElement {
  const section = element('section', undefined, 'card');
  section.append(fields(data));
  return section;
}

function fields(data: Row): HTMLElement {
  const list = element('dl');
  for (const [key, value] of Object.entries(data)) {
    if (isObject(value) || (Array.isArray(value) && !value.every(isScalar))) {
      const details = element('details');
      details.append(element('summary', key), Array.isArray(value) ? fields(Object.fromEntries(value.entries())) : fields(value));
      const item = element('dd', undefined, 'nested');
      item.append(details);
      list.append(item);
      continue;
    }
    const term = element('dt', key);
    const description = element('dd');
    if (Array.isArray(value)) value.forEach((v, i) => description.append(...(i ? [document.createTextNode(', ')] : []), valueNode(v)));
    else description.append(valueNode(value));
    list.append(term, description);
  }
  return list;
}
