// CSV export of a dashboard chart: one line per point of every visible series (RFC 4180 quoting, so run names with
// commas or quotes stay one field); grouped (issue 54), one line per step of each group's mean. No DOM, no `vscode`.
import type { GroupedSeries } from './seriesGroups';

export interface CsvSeries {
  run: string;
  series: string;
  xs: ArrayLike<number>;
  raw: ArrayLike<number>;
  smoothed: ArrayLike<number>;
}

function field(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
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

export interface GroupCsvSeries {
  group: string;
  series: string;
  raw: GroupedSeries;
  /** The same members' smoothed values aggregated (what the chart draws with smoothing on). */
  smoothed?: GroupedSeries;
}

/**
 * A grouped chart as CSV: one line per step of each group's series — the step, the group's label, the series, n (its
 * runs), the mean of their values with its 95 % t-interval (low, high; empty for a group of one), and the same of
 * their smoothed values when the chart is smoothed.
 */
export function groupedChartCsv(xLabel: string, series: readonly GroupCsvSeries[]): string {
  const smoothed = series.some((s) => s.smoothed);
  const header = [xLabel, 'group', 'series', 'n', 'mean', 'low', 'high', ...(smoothed ? ['smoothed_mean', 'smoothed_low', 'smoothed_high'] : [])];
  const lines = [header.join(',')];
  for (const s of series) {
    const sm = s.smoothed;
    const at = new Map(sm ? sm.xs.map((x, i) => [x, i]) : []);
    s.raw.xs.forEach((x, i) => {
      const j = at.get(x);
      const tail = !smoothed ? [] : sm && j !== undefined ? [sm.mean[j], sm.low?.[j], sm.high?.[j]] : [undefined, undefined, undefined];
      lines.push([x, s.group, s.series, s.raw.n, s.raw.mean[i], s.raw.low?.[i], s.raw.high?.[i], ...tail].map(field).join(','));
    });
  }
  return `${lines.join('\n')}\n`;
}
