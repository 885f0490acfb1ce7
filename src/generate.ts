// The pipeline in one call, as named steps: parse → model the tools → (their types printed by
// the compiler's service, beside) decide the listing → emit → write. Each stage hands the next
// plain data; only this function knows the order, and only the write stage touches the disk.

import { basename, resolve } from 'node:path';
import { buildTools, decideListing, type BuiltTools, type ModelReport, type ServerModel } from './model/build.js';
import { emitProject, prebuiltProjectFiles, withToolTypes, type EmitSummary, type GeneratedFile } from './emit/project.js';
import { GENERATOR_VERSION } from './version.js';
import { startToolTypesPrinter, type ToolTypesPrinter } from './emit/types-worker.js';
import { loadSpec } from './parse/load.js';
import { targetProblem } from './emit/targets.js';
import { OptionsError } from './errors.js';
import { screenUpstreams } from './model/upstreams.js';
import { joinApis, namespaceOfSpec, type NamespacedTools } from './model/apis.js';
import { unmatchedOverrides } from './model/select.js';
import { unusedScopeRules } from './model/scopes.js';
import { overridePlace, scopeRulePlace } from './model/model-options.js';
import {
  packageVersionIn,
  previousRun,
  startFreshWrite,
  writeProject,
  type FreshWrite,
  type PreviousRun,
  type WriteOptions,
  type WritePlan,
} from './write/write.js';
import type { ToolTable } from './contract/table.js';
import { resolveOptions, type ResolvedOptions, type UserOptions } from './options.js';

export interface GenerateResult {
  outDir: string;
  table: ToolTable;
  report: ModelReport;
  files: GeneratedFile[];
  plan: WritePlan;
  /** What to tell the person, decided by emit. */
  summary: EmitSummary;
}

export async function generate(options: UserOptions): Promise<GenerateResult> {
  // Started first: loading the compiler overlaps reading and modelling the spec.
  const printer = startToolTypesPrinter();
  let fresh: FreshWrite | undefined;
  try {
    const resolved = resolveOptions({}, options);
    const specName = /^https?:\/\//i.test(resolved.spec) ? resolved.spec : basename(resolved.spec);
    const generator = `mcp-gen@${GENERATOR_VERSION}`;
    const writing = { force: resolved.force, check: resolved.check, dryRun: resolved.dryRun, generator, specName };
    // Into a new --out folder, the prebuilt runtime is written while the spec is read and modelled.
    if (resolved.out !== undefined) fresh = startFreshWrite(resolve(resolved.out), prebuiltProjectFiles(), writing);
    const built = await toolsFromSpec(resolved, 'generate');
    const printing = printer.print(built.table);
    printing.catch(() => undefined); // awaited below unless the previous run's text serves
    const outDir = resolve(resolved.out ?? built.table.name);
    if (resolved.out === undefined) fresh = startFreshWrite(outDir, prebuiltProjectFiles(), writing);
    const model = listingOf(built);
    const unservable = targetProblem(model.table, resolved.targets);
    if (unservable !== undefined) throw new OptionsError(unservable);
    const previous = previousRun(outDir, generator);
    const emitted = emitProject(model, {
      specName,
      dirName: basename(outDir),
      entryPath: resolve(outDir, 'dist/main.js'),
      targets: resolved.targets,
      mcpName: resolved.mcpName,
      version: packageVersionIn(outDir),
    });
    const { files, plan } = await written(outDir, emitted.files, writing, fresh, () =>
      toolTypes(emitted.files, previous, printer, printing),
    );
    fresh = undefined;
    return { outDir, table: model.table, report: model.report, files, plan, summary: emitted.summary };
  } finally {
    printer.cancel();
    // a run that fails leaves no folder behind
    fresh?.abandon();
  }
}

/**
 * The project written, src/tool-types.ts with it once printed. Into a new folder (`fresh`), the
 * other files are written while it is printed (write.ts, startFreshWrite).
 */
async function written(
  outDir: string,
  emitted: GeneratedFile[],
  options: WriteOptions,
  fresh: FreshWrite | undefined,
  printed: () => Promise<string>,
): Promise<{ files: GeneratedFile[]; plan: WritePlan }> {
  fresh?.add(emitted);
  const files = withToolTypes(emitted, await printed());
  return { files, plan: fresh ? fresh.finish(files) : writeProject(outDir, files, options) };
}

/**
 * src/tool-types.ts: the previous run's, when it printed it from the same tools.json (printing
 * it again would give the same text, so the printer is stopped), else the printer's.
 */
async function toolTypes(
  files: GeneratedFile[],
  previous: PreviousRun,
  printer: ToolTypesPrinter,
  printing: Promise<string>,
): Promise<string> {
  const table = files.find((f) => f.path === 'tools.json');
  const unchanged = table && previous.outputOf('src/tool-types.ts', table);
  if (unchanged === undefined) return printing;
  printer.cancel();
  return unchanged;
}

/**
 * Parse and model: the tool table and the report, as `generate` writes them and `serve` serves
 * them. `use` says whether anyone reviews the result before it runs (see auth.ts).
 */
export async function modelFromOptions(
  options: UserOptions,
  use: 'generate' | 'serve',
): Promise<{ resolved: ResolvedOptions; model: ServerModel }> {
  const resolved = resolveOptions({}, options);
  return { resolved, model: listingOf(await toolsFromSpec(resolved, use)) };
}

/** The listing decided over the tools, and the servers the spec may name (screened as it was read). */
function listingOf(built: BuiltTools & { publicServers: Awaited<ReturnType<typeof screenUpstreams>> }): ServerModel {
  const model = decideListing(built);
  if (built.publicServers) model.table.publicServers = built.publicServers;
  return model;
}

type ScreenedTools = BuiltTools & { publicServers: Awaited<ReturnType<typeof screenUpstreams>> };

/** The spec read and made into tools; the parsed document is not kept past it (see buildTools). */
async function toolsFromSpec(resolved: ResolvedOptions, use: 'generate' | 'serve'): Promise<ScreenedTools> {
  if (resolved.apis.length) return toolsFromApis(resolved);
  const fromUrl = /^https?:\/\//i.test(resolved.spec);
  const spec = await readSpec(resolved, resolved.spec);
  const publicServers = await screenUpstreams(spec, resolved.allowInternalServers);
  return { ...buildTools(spec, { ...resolved, titleNamesCredentials: use === 'generate' && !fromUrl }), publicServers };
}

/** Each `--base-url <namespace>=<url>` names one of the APIs. */
function checkBaseUrlNamespaces(baseUrls: Record<string, string>, namespaces: string[]): void {
  const unknown = Object.keys(baseUrls).find((namespace) => !namespaces.includes(namespace));
  if (unknown !== undefined)
    throw new OptionsError(`--base-url ${unknown}=…: no API has the namespace "${unknown}" (the APIs: ${namespaces.join(', ')})`);
}

const readSpec = (resolved: ResolvedOptions, path: string) =>
  loadSpec(path, { allowRemoteRefs: resolved.allowRemoteRefs, allowRefDirs: resolved.allowRefDir, overlays: resolved.overlays });

/** An API's own retries and rate limit from the config file, when it gives them. */
const ownSending = (api: ResolvedOptions['apis'][number]) => ({
  ...(api.retries !== undefined ? { retries: api.retries } : {}),
  ...(api.rateLimit !== undefined ? { rateLimit: api.rateLimit } : {}),
});

/**
 * Several APIs as one server (model/apis.ts): each spec modelled under its namespace, which
 * names its credential variables (`<NAMESPACE>_…`, the user's choice or the spec's title as
 * the package name would be), then joined.
 */
async function toolsFromApis(resolved: ResolvedOptions): Promise<ScreenedTools> {
  const apis: NamespacedTools[] = [];
  const specOf = new Map<string, string>();
  let publicServers: ToolTable['publicServers'];
  for (const [i, api] of resolved.apis.entries()) {
    const spec = await readSpec(resolved, api.spec);
    const namespace = api.namespace ?? namespaceOfSpec(spec.doc);
    const taken = specOf.get(namespace);
    if (taken !== undefined)
      throw new OptionsError(
        `${taken} and ${api.spec} both have the namespace "${namespace}": give one another in the config file's "apis"`,
      );
    specOf.set(namespace, api.spec);
    // Each API's requests and token URLs keep its own spec's rule (ApiSpec.publicServers); the table's is the first's.
    const screened = await screenUpstreams(spec, resolved.allowInternalServers);
    publicServers ??= screened;
    const own = { ...resolved, ...ownModelOptions(resolved, api, i) };
    const built = buildTools(spec, { ...own, name: namespace, envPrefix: undefined, titleNamesCredentials: true });
    if (screened) built.table.publicServers = screened;
    const baseUrl = resolved.baseUrls[namespace] ?? api.baseUrl;
    if (baseUrl !== undefined) built.table.servers = [{ url: baseUrl }];
    apis.push({ namespace, built, sending: ownSending(api) });
  }
  checkBaseUrlNamespaces(resolved.baseUrls, [...specOf.keys()]);
  const joined = joinApis(apis, resolved.name ?? `${[...specOf.keys()].join('-').replace(/_/g, '-')}-mcp`);
  // A server-wide override or scope rule is for whichever API it names something of: unused only when none has.
  const operationIds = joined.table.tools.flatMap((t) => (t.operationId === undefined ? [] : [t.operationId]));
  const serverKeys = Object.keys(resolved.toolOverrides);
  const searched = ` in ${new Intl.ListFormat('en', { type: 'disjunction' }).format(specOf.keys())}`;
  joined.report.warnings.push(
    ...unmatchedOverrides(serverKeys, joined.report.matchedOverrides, operationIds, (key) => overridePlace({}, key), searched),
    ...unusedScopeRules(resolved.scopes, joined.report.scopeUse, (i) => scopeRulePlace({}, i), searched),
  );
  return { ...joined, publicServers };
}

/**
 * An API's own options (`apis[i]`) over the server-wide ones: its filters replace the server's,
 * its toolOverrides go over the server's operation by operation, and its scope rules come
 * before the server's (first match wins).
 */
function ownModelOptions(resolved: ResolvedOptions, api: ResolvedOptions['apis'][number], i: number): Partial<ResolvedOptions> {
  const { spec: _spec, namespace: _namespace, baseUrl: _baseUrl, retries: _retries, rateLimit: _rateLimit, ...own } = api;
  return {
    ...own,
    toolOverrides: { ...resolved.toolOverrides, ...api.toolOverrides },
    scopes: [...(api.scopes ?? []), ...resolved.scopes],
    ownConfig: { place: `"apis"[${i}]`, overrides: Object.keys(api.toolOverrides ?? {}), scopes: api.scopes?.length ?? 0 },
  };
}
