// What a chart of runs draws: the series of the overlaid runs that belong to it, as chart.js datasets (smoothed line,
// faded raw line, evaluation points with their Wilson intervals, a strip's median with its boxes) decimated to the
// canvas width, its legend, and its CSV. A grouped chart: groupDatasets.ts, which draws a group's runs as these do.
import { chartOfSeries, isPerTaskType, seriesLabel } from '../../src/dashboard/shared/charts';
import type { CsvSeries } from '../../src/dashboard/shared/csv';
import { wilsonInterval, type Interval } from '../../src/dashboard/shared/evaluation';
import { liveDecimate, type Point, type SmoothedSeries } from '../../src/dashboard/shared/series';
import { displayText, isolatedText } from '../../src/common/shared/inertText';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import { cssVar, type ChartView, type SeriesDataset } from './chartView';
import type { LegendEntry } from './legend';
import type { StripBox } from './quantileStrips';
import { drawnAxis } from './grouping';
import { hidden, model, state } from './state';

export const DASH_PATTERNS: number[][] = [[], [6, 3], [2, 2], [10, 3, 2, 3], [1, 3]];

export function palette(): string[] {
  return [
    cssVar('--vscode-charts-blue', '#3794ff'),
    cssVar('--vscode-charts-orange', '#d18616'),
    cssVar('--vscode-charts-green', '#89d185'),
    cssVar('--vscode-charts-purple', '#b180d7'),
    cssVar('--vscode-charts-red', '#f14c4c'),
    cssVar('--vscode-charts-yellow', '#cca700'),
  ];
}

/** `#rrggbb` / `rgb()` at the opacity of the hex byte `alpha`. */
export function translucent(colour: string, alpha: string): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  if (hex) return `#${hex[1]}${alpha}`;
  return colour.replace(/^rgb\(([^)]+)\)$/, `rgba($1, ${(parseInt(alpha, 16) / 255).toFixed(2)})`);
}

/** The raw line under the smoothed one, and a group's band: a quarter of the colour. */
export function faded(colour: string): string {
  return translucent(colour, '40');
}

interface SeriesInView {
  run: DashboardRun;
  runIndex: number;
  name: string;
  seriesIndex: number;
  series: SmoothedSeries;
  key: string;
}

/** The names of a run's series that a chart draws, in drawing order (per task type only when asked for). */
export function chartSeriesNames(view: ChartView, run: DashboardRun): string[] {
  const data = model.runs.get(run.key);
  const names = [...(data?.series.keys() ?? [])].filter((name) => chartOfSeries(name)?.id === view.spec.id && (state.perTaskType || !isPerTaskType(name)));
  return names.sort(seriesOrder);
}

/** The series of a chart in drawing order (hidden ones included: the legend lists them). */
function seriesOf(view: ChartView): SeriesInView[] {
  const found: SeriesInView[] = [];
  model.overlaid.forEach((run, runIndex) => {
    const data = model.runs.get(run.key);
    if (!data) return;
    chartSeriesNames(view, run).forEach((name, seriesIndex) => {
      const series = data.series.get(name)?.[state.xAxis];
      if (!series || series.raw.length === 0) return;
      found.push({ run, runIndex, name, seriesIndex, series, key: `${run.key}|${name}` });
    });
  });
  return found;
}

/** The boxes of a run's strip in the visible x range (all of them: one per update, far fewer than a series' points). */
function stripsOf(run: DashboardRun, family: string): StripBox[] {
  const boxes = model.runs.get(run.key)?.strips.get(family)?.[drawnAxis()] ?? [];
  const range = model.xRange;
  return range ? boxes.filter((b) => b.x >= range.min && b.x <= range.max) : boxes;
}

/** The Wilson interval of each point of an evaluation series (n from the run's latest report of that split). */
function intervalsOf(run: DashboardRun, name: string, points: Point[]): Array<Interval | undefined> {
  const match = /^eval:([^:]+):success\/(.+)$/.exec(name);
  const report = match ? model.runs.get(run.key)?.evaluations.find((e) => e.split === match[1]) : undefined;
  const n = match && report ? (match[2] === 'overall' ? report.overall.n : report.byType[match[2] ?? '']?.n) : undefined;
  return points.map((p) => (n ? wilsonInterval(Math.round(p.y * n), n) : undefined));
}

/** How one series of one run is drawn. `member`: a run of an expanded group, thin behind its group's mean. */
export interface SeriesStyle {
  colour: string;
  dash: number[];
  label: string;
  member?: boolean;
}

/** A run's series as chart.js datasets: its line (smoothed unless drawn as written), the faded raw line, an
 * evaluation's Wilson whiskers, a strip's boxes; with "Robust y" its raw points and box ends go to `robustYs`. */
export function runSeriesDatasets(
  view: ChartView,
  entry: { run: DashboardRun; name: string; series: SmoothedSeries },
  style: SeriesStyle,
  width: number,
  robustYs: number[] | undefined,
): SeriesDataset[] {
  const { run, name, series } = entry;
  const { colour, dash, label, member = false } = style;
  const range = model.xRange ? { xMin: model.xRange.min, xMax: model.xRange.max } : undefined;
  const isEval = name.startsWith('eval:');
  const perType = isPerTaskType(name);
  const family = view.spec.quantiles;
  const unsmoothed = isEval || series.smoothing === 0;
  const smoothed = liveDecimate(unsmoothed ? series.raw : series.smoothed, width, range);
  const showRaw = state.showRaw && !unsmoothed && series.raw.length > 1 && !member;
  const raw = unsmoothed ? smoothed : showRaw || robustYs ? liveDecimate(series.raw, width, range) : [];
  const strips = family ? stripsOf(run, family) : undefined;
  if (robustYs) {
    for (const p of raw) robustYs.push(p.y);
    for (const box of strips ?? []) robustYs.push(box.p05, box.p95);
  }
  // A series of one point has no line to draw: it is drawn as a point (evaluation series are points on a line).
  const single = series.raw.length === 1;
  const lineColour = member ? translucent(colour, '99') : colour;
  const datasets: SeriesDataset[] = [
    {
      label,
      data: smoothed,
      borderColor: lineColour,
      backgroundColor: lineColour,
      borderWidth: member || perType ? 1 : 1.75,
      borderDash: dash,
      pointRadius: isEval || single ? (member ? 2 : 3) : 0,
      pointHoverRadius: 3,
      showLine: true, // evaluations too: before → after reads as one line, not two columns of dots
      parsing: false,
      normalized: true,
      spanGaps: true,
      // chart.js draws a lower order on top: a group's runs behind its mean (order 0), bands further back.
      order: member ? 1 : 0,
      // A group's runs drawn behind its mean keep to their lines: their whiskers would hide the mean's.
      ...(isEval && !member ? { intervals: intervalsOf(run, name, smoothed) } : {}),
      ...(strips ? { strips } : {}),
    } as SeriesDataset,
  ];
  if (showRaw) {
    datasets.push({
      label: `${label} (raw)`,
      data: raw,
      borderColor: faded(colour),
      backgroundColor: faded(colour),
      borderWidth: 1,
      borderDash: dash,
      pointRadius: 0,
      parsing: false,
      normalized: true,
      spanGaps: true,
      order: 3,
    } as SeriesDataset);
  }
  return datasets;
}

/** The datasets and legend of a chart of runs (not grouped), and with "Robust y" the values its y range is taken from:
 * the raw points (a smoothed line only ever carries a spike's tail, and may leave the plot with it) and the strips'
 * box ends. */
export function datasetsFor(view: ChartView, width: number): { datasets: SeriesDataset[]; legend: LegendEntry[]; robustYs: number[] | undefined } {
  const colours = palette();
  const many = model.overlaid.length > 1;
  const datasets: SeriesDataset[] = [];
  const legend: LegendEntry[] = [];
  const robustYs = state.robustY && !view.spec.fraction ? ([] as number[]) : undefined; // fractions keep [0, 1]
  for (const entry of seriesOf(view)) {
    const { run, runIndex, name, seriesIndex, key } = entry;
    const perType = isPerTaskType(name);
    const colour = (many ? colours[runIndex % colours.length] : colours[seriesIndex % colours.length]) ?? '#888';
    const dash = many ? (DASH_PATTERNS[seriesIndex % DASH_PATTERNS.length] ?? []) : perType ? [4, 3] : [];
    const short = shortLabel(view, name);
    const label = many ? `${isolatedText(run.name)} · ${short}` : short;
    const off = hidden.has(key);
    legend.push({ key, label, colour, dash, hidden: off });
    if (!off) datasets.push(...runSeriesDatasets(view, entry, { colour, dash, label }, width, robustYs));
  }
  return { datasets, legend, robustYs };
}

/** A series' name in a legend: the metric's label, a strip chart's what-it-shows. */
export function shortLabel(view: ChartView, name: string): string {
  return view.spec.quantiles ? 'median, boxes 25–75 % and 5–95 %' : displayText(seriesLabel(name));
}

export function seriesOrder(a: string, b: string): number {
  const rank = (name: string): number => (name.endsWith('/overall') || name === 'time/total' ? 0 : 1);
  return rank(a) - rank(b) || a.localeCompare(b);
}

export function csvSeries(view: ChartView): CsvSeries[] {
  return seriesOf(view)
    .filter((s) => !hidden.has(s.key))
    .map((s) => ({ run: s.run.name, series: displayText(seriesLabel(s.name)), xs: s.series.raw.xs.subarray(0, s.series.raw.length), raw: s.series.raw.ys.subarray(0, s.series.raw.length), smoothed: s.series.smoothed.ys.subarray(0, s.series.smoothed.length) }));
}
