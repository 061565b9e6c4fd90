// The dashboard's charts. Which metrics each draws, their legend labels and their unit come from the metric names of
// schemas/metric.schema.json (its `x-chart`, `x-label` and `x-unit`, generated into METRIC_NAMES); this module says only
// how each chart is drawn and in which order. Shared by the webview bundle and the unit tests; no DOM, no Node, no
// `vscode`.
import { METRIC_NAMES, METRIC_UNITS, type MetricName, type MetricUnitName } from '../../runs/shared/generated/metricNames';
import { listedMetric, metricEntry } from '../../runs/shared/knownMetrics';
import type { QuantileFamily } from '../../runs/shared/metricQuantiles';
import type { MetricRow } from '../../runs/shared/types';

/** How one chart is drawn; the metrics whose `x-chart` is its id (or its `metricsOf`) are what it draws. */
interface ChartLayout {
  id: string;
  /** The title without the unit, which the metrics' unit adds. */
  title: string;
  /** Plots evaluation rows (as points with intervals) instead of training rows, of the metrics of chart `metricsOf`. */
  evaluation?: boolean;
  metricsOf?: string;
  /** A strip chart of the family's per-update quantiles: one box per update (p25–p75 in p05–p95), the median as the
   * line (its metric, `<family>/p50`, unsmoothed); the other quantiles of the family are the boxes. */
  quantiles?: QuantileFamily;
  /** Drawn from the teacher's scores or the skills: a run that writes skills (it logs `skill/parse_rate`) but has no
   * point here yet says so in the chart instead of the chart vanishing (no skill parsed, nothing distilled). */
  fromSkills?: boolean;
}

export interface ChartSpec extends ChartLayout {
  /** The title with the unit's symbol, when it has one: `Entropy (nats/token)`. */
  title: string;
  /** The metric names it draws, a family's as what its names look like (`success/<task_type>`). */
  metrics: readonly string[];
  /** The unit of its metrics (one per chart). */
  unit: MetricUnitName;
  /** Values are fractions: the y axis is fixed to [0, 1]. */
  fraction: boolean;
}

/** What a `fromSkills` chart says while a run that writes skills has no point in it. */
export const NO_SKILL_DATA = 'No data yet: no skill has parsed in these runs, so the teacher scored no token (see Skill parse rate).';

const LAYOUTS: readonly ChartLayout[] = [
  { id: 'success', title: 'Success rate (training rollouts)' },
  { id: 'eval', title: 'Evaluation success (95% Wilson interval)', evaluation: true, metricsOf: 'success' },
  { id: 'length', title: 'Episode length' },
  { id: 'pg', title: 'Policy-gradient loss' },
  { id: 'kl', title: 'KL to the reference, k3' },
  { id: 'entropy', title: 'Entropy' },
  { id: 'opd', title: 'OPD loss before λ', fromSkills: true },
  // With an OPD estimator that subtracts a baseline (centred, baseline, expected) the update weighed tokens by g − b:
  // the mean b (opd/gate_baseline_mean) is drawn beside the mean g, so their gap is the mean weight.
  { id: 'gate', title: 'Gate mean g (and baseline b, when the estimator subtracts one)', fromSkills: true },
  { id: 'gate-half', title: 'Fraction g > 0.5', fromSkills: true },
  { id: 'gate-quantiles', title: 'Gate g per update: median, 25–75 %, 5–95 % of distilled tokens', quantiles: 'gate', fromSkills: true },
  { id: 'delta', title: 'Δ mean', fromSkills: true },
  { id: 'delta-quantiles', title: 'Δ per update: median, 25–75 %, 5–95 % of distilled tokens', quantiles: 'delta', fromSkills: true },
  { id: 'parse', title: 'Skill parse rate' },
  // What the valid skills are about (trainer/seed_trainer/algo/skill_relevance.py): a format-valid skill can be about
  // another task, which the parse rate does not show. Null (no point) in an update without a valid skill.
  { id: 'skill-relevance', title: 'Skills about their own task (share of valid skills)', fromSkills: true },
  // The optimizer group: what every update and SFT step writes of its optimizer steps.
  { id: 'optim-lr', title: 'Optimizer: learning rate' },
  { id: 'optim-grad-norm', title: 'Optimizer: gradient norm before clipping' },
  { id: 'time', title: 'Phase times' },
  { id: 'sft', title: 'Stage-1 SFT loss' },
];

/** The metrics a layout draws: those whose chart is its id (or its `metricsOf`), in the schema's order. */
export function chartMetrics(layout: { id: string; metricsOf?: string }): MetricName[] {
  return METRIC_NAMES.filter((entry) => entry.chart === (layout.metricsOf ?? layout.id));
}

function chartSpec(layout: ChartLayout): ChartSpec {
  const metrics = chartMetrics(layout);
  const unit = metrics[0]?.unit ?? 'loss'; // a chart without metrics fails test/unit/runs/metricNames.test.ts
  const symbol = METRIC_UNITS[unit].symbol;
  return { ...layout, title: symbol ? `${layout.title} (${symbol})` : layout.title, metrics: metrics.map((entry) => entry.name), unit, fraction: unit === 'fraction' };
}

export const DASHBOARD_CHARTS: readonly ChartSpec[] = LAYOUTS.map(chartSpec);

/** The chart of a metric of a training row, or with `evaluation` of an evaluation row. */
export function chartOf(metric: string, evaluation = false): ChartSpec | undefined {
  const chart = metricEntry(metric)?.chart;
  if (!chart) return undefined;
  return DASHBOARD_CHARTS.find(
    (spec) => Boolean(spec.evaluation) === evaluation && (spec.metricsOf ?? spec.id) === chart && (!spec.quantiles || metric === `${spec.quantiles}/p50`),
  );
}

/** The chart of a series name (`eval:<split>:<metric>` for evaluation series). */
export function chartOfSeries(series: string): ChartSpec | undefined {
  const match = /^eval:[^:]+:(.+)$/.exec(series);
  return match ? chartOf(match[1] ?? '', true) : chartOf(series);
}

/** A series drawn as written, whatever the smoothing: evaluation points and the medians of quantile strips (their
 * boxes are the update's own numbers; a smoothed median would leave them). */
export function isUnsmoothed(series: string): boolean {
  return series.startsWith('eval:') || chartOfSeries(series)?.quantiles !== undefined;
}

/** A per-task-type series of a success chart (hidden with "Per task type" off): a family's name the schema does not list
 * itself (`success/heat`, not `success/overall`). */
export function isPerTaskType(series: string): boolean {
  const metric = series.replace(/^eval:[^:]+:/, '');
  return listedMetric(metric) === undefined && metricEntry(metric) !== undefined;
}

/** One plottable value of a metrics row. `series` names the line: the metric, or `eval:<split>:<metric>`. */
export interface MetricPoint {
  series: string;
  metric: string;
  chart: string;
  x: number;
  y: number;
  /** Set for evaluation rows. */
  split?: string;
}

const RESERVED = new Set(['step', 'time', 'kind', 'epoch', 'split']);

/** The values of a row that some chart shows (nulls, non-numbers and unplotted metrics skipped). */
export function metricPoints(row: MetricRow): MetricPoint[] {
  const points: MetricPoint[] = [];
  const isEval = row.kind === 'eval';
  for (const [key, value] of Object.entries(row)) {
    if (RESERVED.has(key) || typeof value !== 'number' || !Number.isFinite(value)) continue;
    const chart = chartOf(key, isEval);
    if (!chart) continue;
    const split = isEval ? (row.split ?? 'eval') : undefined;
    points.push({
      series: split === undefined ? key : `eval:${split}:${key}`,
      metric: key,
      chart: chart.id,
      x: row.step,
      y: value,
      ...(split === undefined ? {} : { split }),
    });
  }
  return points;
}

/** The legend text of a series: `overall`, `pick_and_place`, `eval test_seen · overall`, `rollout`… */
export function seriesLabel(series: string): string {
  const named = listedMetric(series)?.label;
  if (named) return named;
  const match = /^eval:([^:]+):(.+)$/.exec(series);
  const short = (metric: string): string => metric.slice(metric.indexOf('/') + 1);
  return match ? `eval ${match[1]} · ${short(match[2] ?? '')}` : short(series);
}
