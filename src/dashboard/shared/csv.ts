// CSV export of a dashboard chart: one line per point of every visible series (RFC 4180 quoting, so run names with
// commas or quotes stay one field). No DOM, no `vscode`.

export interface CsvSeries {
  run: string;
  series: string;
  xs: ArrayLike<number>;
  raw: ArrayLike<number>;
  smoothed: ArrayLike<number>;
}

function field(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function chartCsv(xLabel: string, series: readonly CsvSeries[]): string {
  const lines = [['run', 'series', xLabel, 'value', 'smoothed'].join(',')];
  for (const s of series) {
    for (let i = 0; i < s.xs.length; i += 1) {
      lines.push([field(s.run), field(s.series), field(s.xs[i] ?? ''), field(s.raw[i] ?? ''), field(s.smoothed[i] ?? '')].join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}
