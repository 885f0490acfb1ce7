// A hand-rolled horizontal grouped bar chart in SVG: panels stacked vertically, each with its
// own scale; one row per subject, one bar per series. No dependencies, deterministic output.

interface Bar {
  series: string;
  value: number;
  /** Text after the value (e.g. "build failed"). */
  note?: string;
}

export interface Panel {
  title: string;
  format: (value: number) => string;
  rows: { label: string; bars: Bar[] }[];
  /** A vertical marker line, e.g. a target. */
  marker?: { value: number; label: string };
}

const PALETTE: Record<string, string> = {
  floor: '#9e9e9e',
  limit: '#9e9e9e',
  bundle: '#c7a76c',
  'mcp-gen': '#1f6feb',
  'mcp-gen dynamic': '#6ea8fe',
  'mcp-gen stateless': '#6ea8fe',
  omg: '#e36209',
  minimal: '#9e9e9e',
};

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function barChart(title: string, subtitle: string, panels: Panel[]): string {
  const width = 900;
  const labelW = 190;
  const valueW = 170;
  const barH = 14;
  const gap = 4;
  const plotW = width - labelW - valueW - 20;
  const parts: string[] = [];
  let y = 52;
  parts.push(`<text x="10" y="22" font-size="16" font-weight="bold">${escape(title)}</text>`);
  parts.push(`<text x="10" y="40" font-size="11" fill="#555">${escape(subtitle)}</text>`);
  const seriesSeen: string[] = [];
  for (const panel of panels) {
    y += 14;
    parts.push(`<text x="10" y="${y}" font-size="13" font-weight="bold">${escape(panel.title)}</text>`);
    y += 8;
    const max =
      Math.max(...panel.rows.flatMap((r) => r.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0))), panel.marker?.value ?? 0) || 1;
    const top = y;
    for (const row of panel.rows) {
      const rowH = row.bars.length * (barH + gap);
      parts.push(`<text x="${labelW - 8}" y="${y + rowH / 2 + 4}" font-size="11" text-anchor="end">${escape(row.label)}</text>`);
      for (const bar of row.bars) {
        if (!seriesSeen.includes(bar.series)) seriesSeen.push(bar.series);
        const w = Number.isFinite(bar.value) ? Math.max(1, (bar.value / max) * plotW) : 0;
        const color = PALETTE[bar.series] ?? '#6f42c1';
        parts.push(
          `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${color}"><title>${escape(`${bar.series}: ${panel.format(bar.value)}`)}</title></rect>`,
        );
        const text = `${bar.series} ${Number.isFinite(bar.value) ? panel.format(bar.value) : 'n/a'}${bar.note ? ` (${bar.note})` : ''}`;
        parts.push(`<text x="${(labelW + w + 4).toFixed(1)}" y="${y + barH - 3}" font-size="10" fill="#333">${escape(text)}</text>`);
        y += barH + gap;
      }
      y += 6;
    }
    if (panel.marker) {
      const x = labelW + (panel.marker.value / max) * plotW;
      parts.push(`<line x1="${x.toFixed(1)}" y1="${top - 2}" x2="${x.toFixed(1)}" y2="${y - 4}" stroke="#d73a49" stroke-dasharray="4 3"/>`);
      parts.push(`<text x="${(x + 3).toFixed(1)}" y="${top + 8}" font-size="10" fill="#d73a49">${escape(panel.marker.label)}</text>`);
    }
    y += 4;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
