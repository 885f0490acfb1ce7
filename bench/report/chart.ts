// docs/benchmarks.svg: one panel per measured section, from the results.
import type { Results } from '../lib/results.js';
import { barChart, type Panel } from '../lib/svg.js';
import { capacityCell } from './capacity.js';
import { callCell } from './calls.js';
import { int } from './format.js';

export function chart(r: Results): string {
  const panels: Panel[] = [];
  if (r.gen) {
    panels.push({
      title: '1. Generation time (s), median',
      format: (v) => `${(v / 1000).toFixed(2)} s`,
      rows: r.gen.rows
        .filter((row) => !row.spec.synthetic || row.spec.operations === 10000 || row.spec.operations === 1000)
        .map((row) => ({
          label: `${row.spec.label} (${int(row.spec.operations)} ops)`,
          bars: (['floor', 'mcp-gen', 'omg'] as const)
            .filter((v) => row.cells[v])
            .map((v) => ({ series: v, value: row.cells[v]?.ms ?? NaN })),
        })),
    });
  }
  if (r.build) {
    panels.push({
      title: '2. Build of the GitHub project (s), median',
      format: (v) => `${(v / 1000).toFixed(1)} s`,
      marker: { value: 15000, label: 'target 15 s' },
      rows: [
        {
          label: 'GitHub',
          bars: [
            { series: 'mcp-gen', value: r.build.mcpGen.ms, ...(r.build.mcpGen.ok ? {} : { note: 'fails' }) },
            { series: 'omg', value: r.build.omg.ms, ...(r.build.omg.ok ? {} : { note: 'fails: TS error' }) },
          ],
        },
      ],
    });
  }
  if (r.start) {
    const minimal = r.start.cells.minimal?.ms ?? NaN;
    panels.push({
      title: '3. Cold start: spawn → initialize answered (ms), median',
      format: (v) => `${v.toFixed(0)} ms`,
      marker: { value: minimal * 1.3, label: 'target 1.3× minimal' },
      rows: [
        { label: 'minimal SDK v2 server', bars: [{ series: 'minimal', value: minimal }] },
        {
          label: 'Petstore (20 tools)',
          bars: [
            { series: 'mcp-gen', value: r.start.cells['mcp-gen petstore']?.ms ?? NaN },
            { series: 'omg', value: r.start.cells['omg petstore']?.ms ?? NaN },
          ],
        },
        {
          label: 'GitHub (1,223 tools)',
          bars: [
            { series: 'mcp-gen', value: r.start.cells['mcp-gen github']?.ms ?? NaN },
            { series: 'mcp-gen dynamic', value: r.start.cells['mcp-gen github dynamic']?.ms ?? NaN },
            { series: 'omg', value: r.start.cells['omg github']?.ms ?? NaN },
          ],
        },
      ],
    });
  }
  if (r.calls) {
    const calls = r.calls;
    const rowsFor = (c: number) => ({
      label: c === 1 ? 'sequential' : `${c} at once`,
      bars: [
        { series: 'limit', value: callCell(calls, 'direct', c)?.perSecond ?? NaN, note: 'direct fetch' },
        { series: 'mcp-gen', value: callCell(calls, 'mcp-gen stdio', c)?.perSecond ?? NaN, note: 'stdio' },
        { series: 'mcp-gen', value: callCell(calls, 'mcp-gen http', c)?.perSecond ?? NaN, note: 'HTTP session' },
        { series: 'mcp-gen stateless', value: callCell(calls, 'mcp-gen http stateless', c)?.perSecond ?? NaN, note: 'HTTP stateless' },
        { series: 'omg', value: callCell(calls, 'omg stdio', c)?.perSecond ?? NaN, note: 'stdio' },
        ...(callCell(calls, 'omg http', c)
          ? [{ series: 'omg', value: callCell(calls, 'omg http', c)?.perSecond ?? NaN, note: 'HTTP' }]
          : [{ series: 'omg', value: NaN, note: 'HTTP: crashes' }]),
      ],
    });
    panels.push({
      title: '4. Calls per second through the SDK client (Petstore getPetById), median',
      format: (v) => `${v.toFixed(0)}/s`,
      rows: [rowsFor(1), rowsFor(50)],
    });
  }
  if (r.capacity) {
    const cap = r.capacity;
    const rowsFor = (c: number) => ({
      label: c === 1 ? 'sequential' : `${c} in flight`,
      bars: [
        { series: 'limit', value: capacityCell(cap, 'direct', c)?.perSecond ?? NaN, note: 'direct node:http' },
        { series: 'mcp-gen', value: capacityCell(cap, 'stateful', c)?.perSecond ?? NaN, note: 'session' },
        { series: 'mcp-gen stateless', value: capacityCell(cap, 'stateless', c)?.perSecond ?? NaN, note: '--stateless' },
        { series: 'mcp-gen stateless', value: capacityCell(cap, '2026-07-28', c)?.perSecond ?? NaN, note: '2026-07-28' },
      ],
    });
    panels.push({
      title: '5. Server capacity, lean node:http client (calls/s), median',
      format: (v) => `${v.toFixed(0)}/s`,
      rows: [rowsFor(1), rowsFor(8), rowsFor(50)],
    });
  }
  if (r.list) {
    panels.push({
      title: '6. GitHub tools/list size (MB)',
      format: (v) => `${(v / 1e6).toFixed(2)} MB`,
      marker: Number.isFinite(r.list.cells.omg?.bytes ?? NaN)
        ? { value: (r.list.cells.omg?.bytes ?? 0) * 0.6, label: 'target 0.6× omg' }
        : undefined,
      rows: [
        {
          label: 'GitHub',
          bars: [
            { series: 'mcp-gen', value: r.list.cells['mcp-gen']?.bytes ?? NaN },
            { series: 'mcp-gen dynamic', value: r.list.cells['mcp-gen dynamic']?.bytes ?? NaN },
            { series: 'omg', value: r.list.cells.omg?.bytes ?? NaN },
          ],
        },
      ],
    });
  }
  return barChart(
    `mcp-gen benchmarks, ${r.meta.date}`,
    `${r.meta.cores} cores, Node ${r.meta.node}. Grey: floor / limit / minimal server; blue: mcp-gen; orange: openapi-mcp-generator (omg); dashed red: target.`,
    panels,
  );
}
