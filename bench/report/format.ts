// Number formats and Markdown tables shared by the report's sections; every figure is
// rendered from the results, and "n/a" where a value was not measured.

export const s = (ms: number, digits = 2) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(digits)} s` : 'n/a');
export const msf = (ms: number, digits = 0) => (Number.isFinite(ms) ? `${ms.toFixed(digits)} ms` : 'n/a');
export const x = (ratio: number, digits = 2) => (Number.isFinite(ratio) ? `${ratio.toFixed(digits)}×` : 'n/a');
export const mb = (bytes: number, digits = 2) => (Number.isFinite(bytes) ? `${(bytes / 1e6).toFixed(digits)} MB` : 'n/a');
export const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const pct = (part: number, whole: number) => (Number.isFinite(part / whole) ? `${Math.round((100 * part) / whole)} %` : 'n/a');
export const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '✅ met' : '❌ missed');

/** One row of a targets table. */
export interface Target {
  target: string;
  measured: string;
  ratio: string;
  met: boolean | undefined;
}

export const notMeasured = (target: string): Target => ({ target, measured: 'not measured', ratio: '', met: undefined });

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
