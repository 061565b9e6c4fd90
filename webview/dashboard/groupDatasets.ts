// What a grouped chart draws (issue 54): per group and series, the mean across the group's runs at the steps all of
// them reached, with its 95 % t-interval across the runs as a shaded band (evaluations: as whiskers, in place of a
// run's Wilson interval); smoothing applies to each run before the mean, and "Raw" adds the faded mean of the raw
// values. A group of one run is drawn as that run. An expanded group draws its runs thin behind the mean, each a
// legend entry of its own. The grouped CSV: the mean, low, high and n of each step.
import { isUnsmoothed } from '../../src/dashboard/shared/charts';
import type { GroupCsvSeries } from '../../src/dashboard/shared/csv';
import { aggregateSteps, groupLineText, type GroupedSeries } from '../../src/dashboard/shared/seriesGroups';
import { minMaxDecimate, type Point, type SmoothedSeries } from '../../src/dashboard/shared/series';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import { isolatedText } from '../../src/common/shared/inertText';
import type { ChartView, SeriesDataset } from './chartView';
import type { LegendEntry } from './legend';
import { DASH_PATTERNS, chartSeriesNames, faded, palette, runSeriesDatasets, seriesOrder, shortLabel } from './datasets';
import { groupWord, type RunsGroup } from './grouping';
import { hidden, model, state } from './state';

/** A group's series: its name, and each run's series of it on the step axis (runs without it left out). */
interface GroupSeries {
  name: string;
  entries: Array<{ run: DashboardRun; name: string; series: SmoothedSeries }>;
}

function stepSeries(runKey: string, name: string): SmoothedSeries | undefined {
  const series = model.runs.get(runKey)?.series.get(name)?.step;
  return series && series.raw.length > 0 ? series : undefined;
}

/** The series a chart draws of a group: every name one of its runs has, with the runs that have it. */
function groupSeries(view: ChartView, group: RunsGroup): GroupSeries[] {
  const names = [...new Set(group.rows.flatMap((member) => chartSeriesNames(view, member.run)))].sort(seriesOrder);
  return names.map((name) => ({
    name,
    entries: group.rows.flatMap((member) => {
      const series = stepSeries(member.run.key, name);
      return series ? [{ run: member.run, name, series }] : [];
    }),
  }));
}

/** The mean of the runs' values (smoothed ones when the chart smooths this series); no step when a run lacks it. */
function aggregate(view: ChartView, group: RunsGroup, series: GroupSeries, smoothed: boolean): GroupedSeries {
  const complete = series.entries.length === group.rows.length;
  return aggregateSteps(complete ? series.entries.map((e) => (smoothed ? e.series.smoothed : e.series.raw)) : [], view.spec.fraction);
}

/** The mean's points decimated to the canvas, with the low and high of the same steps. */
function drawnPoints(grouped: GroupedSeries, width: number): { mean: Point[]; low: Point[]; high: Point[] } {
  const range = model.xRange ? { xMin: model.xRange.min, xMax: model.xRange.max } : undefined;
  const length = grouped.xs.length;
  const mean = minMaxDecimate({ xs: Float64Array.from(grouped.xs), ys: Float64Array.from(grouped.mean), length }, width, range);
  const index = new Map(grouped.xs.map((x, i) => [x, i]));
  const at = (values: number[] | undefined) => mean.map((p) => ({ x: p.x, y: values?.[index.get(p.x) ?? -1] ?? p.y }));
  return { mean, low: at(grouped.low), high: at(grouped.high) };
}

function line(label: string, data: Point[], colour: string, dash: number[], extra: Partial<SeriesDataset>): SeriesDataset {
  return { label, data, borderColor: colour, backgroundColor: colour, borderDash: dash, parsing: false, normalized: true, spanGaps: true, pointRadius: 0, ...extra } as SeriesDataset;
}

/** Whether a group's line is the mean of its runs' smoothed values (else of their values as written). */
const smoothedMean = (name: string): boolean => !isUnsmoothed(name) && state.smoothing > 0;

/** The mean line of a group's series (`grouped`: its aggregate as drawn) with its band (or whiskers), and the faded
 * raw mean. */
function meanDatasets(
  view: ChartView,
  group: RunsGroup,
  series: GroupSeries,
  grouped: GroupedSeries,
  style: { colour: string; dash: number[]; label: string },
  width: number,
  robustYs: number[] | undefined,
): SeriesDataset[] {
  const { colour, dash, label } = style;
  const isEval = series.name.startsWith('eval:');
  const { mean, low, high } = drawnPoints(grouped, width);
  if (robustYs) for (const points of [mean, low, high]) for (const p of points) robustYs.push(p.y);
  const datasets: SeriesDataset[] = [
    line(label, mean, colour, dash, {
      borderWidth: 2,
      pointRadius: isEval || mean.length === 1 ? 3 : 0,
      pointHoverRadius: 3,
      order: 0,
      ...(isEval ? { intervals: mean.map((_, i) => ({ low: low[i]!.y, high: high[i]!.y })) } : {}),
    }),
  ];
  if (!isEval) {
    // The band: chart.js's filler between its low (no line) and its high line, both behind the runs and the mean.
    datasets.push(line(`${label} (95 % t-interval, low)`, low, faded(colour), [], { borderWidth: 0, order: 2, fill: false }));
    datasets.push(line(`${label} (95 % t-interval, high)`, high, faded(colour), [], { borderWidth: 0, order: 2, fill: '-1' }));
  }
  if (state.showRaw && smoothedMean(series.name)) {
    const raw = drawnPoints(aggregate(view, group, series, false), width).mean;
    datasets.push(line(`${label} (raw)`, raw, faded(colour), dash, { borderWidth: 1, order: 3 }));
  }
  return datasets;
}

/** The datasets and legend of a grouped chart (and with "Robust y" the values its y range is taken from). */
export function groupedDatasetsFor(view: ChartView, width: number, groups: readonly RunsGroup[]): { datasets: SeriesDataset[]; legend: LegendEntry[]; robustYs: number[] | undefined } {
  const colours = palette();
  const datasets: SeriesDataset[] = [];
  const legend: LegendEntry[] = [];
  const robustYs = state.robustY && !view.spec.fraction ? ([] as number[]) : undefined;
  groups.forEach((group, groupIndex) => {
    const colour = colours[groupIndex % colours.length] ?? '#888';
    const n = group.rows.length;
    groupSeries(view, group).forEach((series, seriesIndex) => {
      const dash = DASH_PATTERNS[seriesIndex % DASH_PATTERNS.length] ?? [];
      const short = shortLabel(view, series.name);
      const key = `group:${group.id}|${series.name}`;
      const grouped = n > 1 ? aggregate(view, group, series, smoothedMean(series.name)) : undefined;
      const label = `${isolatedText(group.label)} · ${short} — ${groupLineText(n, grouped?.xs.length ?? 0, groupWord(n), series.name.startsWith('eval:'))}`;
      const off = hidden.has(key);
      const expanded = n > 1 && state.expanded.includes(group.id);
      legend.push({ key, label, colour, dash, hidden: off, ...(n > 1 ? { group: { id: group.id, expanded, runs: n, word: groupWord(n) } } : {}) });
      if (!grouped) {
        if (!off && series.entries[0]) datasets.push(...runSeriesDatasets(view, series.entries[0], { colour, dash, label }, width, robustYs));
        return;
      }
      if (!off) datasets.push(...meanDatasets(view, group, series, grouped, { colour, dash, label }, width, robustYs));
      if (!expanded) return;
      for (const entry of series.entries) {
        const memberKey = `${entry.run.key}|${series.name}`;
        const memberLabel = `${isolatedText(entry.run.name)} · ${short}`;
        const memberOff = hidden.has(memberKey);
        legend.push({ key: memberKey, label: memberLabel, colour, dash, hidden: memberOff, member: true });
        if (!memberOff) datasets.push(...runSeriesDatasets(view, entry, { colour, dash, label: memberLabel, member: true }, width, undefined));
      }
    });
  });
  return { datasets, legend, robustYs };
}

/** The grouped chart's CSV series: each visible group series' raw mean, and its smoothed mean when it is smoothed. */
export function groupedCsvSeries(view: ChartView, groups: readonly RunsGroup[]): GroupCsvSeries[] {
  return groups.flatMap((group) =>
    groupSeries(view, group)
      .filter((series) => !hidden.has(`group:${group.id}|${series.name}`))
      .map((series) => {
        const raw = aggregate(view, group, series, false);
        return { group: group.label, series: shortLabel(view, series.name), raw, ...(smoothedMean(series.name) ? { smoothed: aggregate(view, group, series, true) } : {}) };
      }),
  );
}
