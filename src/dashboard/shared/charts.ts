// Which metrics the dashboard plots, and in which chart (docs/run-format.md §6 names them). Shared by the webview
// bundle and the unit tests; no DOM, no Node, no `vscode`.
import type { QuantileFamily } from '../../runs/shared/metricQuantiles';
import type { MetricRow } from '../../runs/shared/types';

export interface ChartSpec {
  id: string;
  title: string;
  /** Metric names this chart shows (exact names or prefixes ending in `/`). */
  metrics: readonly string[];
  /** Values are fractions: the y axis is fixed to [0, 1]. */
  fraction?: boolean;
  /** Plots evaluation rows (as points with intervals) instead of training rows. */
  evaluation?: boolean;
  /** A strip chart of the family's per-update quantiles: one box per update (p25–p75 in p05–p95), the median as the
   * line (its metric, `<family>/p50`, unsmoothed). */
  quantiles?: QuantileFamily;
  /** Drawn from the teacher's scores or the skills: a run that writes skills (it logs `skill/parse_rate`) but has no
   * point here yet says so in the chart instead of the chart vanishing (no skill parsed, nothing distilled). */
  fromSkills?: boolean;
}

/** What a `fromSkills` chart says while a run that writes skills has no point in it. */
export const NO_SKILL_DATA = 'No data yet: no skill has parsed in these runs, so the teacher scored no token (see Skill parse rate).';

export const DASHBOARD_CHARTS: readonly ChartSpec[] = [
  { id: 'success', title: 'Success rate (training rollouts)', metrics: ['success/'], fraction: true },
  { id: 'eval', title: 'Evaluation success (95% Wilson interval)', metrics: ['success/'], fraction: true, evaluation: true },
  { id: 'length', title: 'Episode length (steps)', metrics: ['episode/length'] },
  { id: 'pg', title: 'Policy-gradient loss', metrics: ['loss/pg'] },
  { id: 'kl', title: 'KL to the reference (k3, nats/token)', metrics: ['loss/kl'] },
  { id: 'entropy', title: 'Entropy (nats/token)', metrics: ['loss/entropy'] },
  { id: 'opd', title: 'OPD loss (before λ)', metrics: ['loss/opd'], fromSkills: true },
  // With an OPD estimator that subtracts a baseline (centred, baseline, expected) the update weighed tokens by g − b:
  // the mean b (opd/gate_baseline_mean) is drawn beside the mean g, so their gap is the mean weight.
  { id: 'gate', title: 'Gate mean g (and baseline b, when the estimator subtracts one)', metrics: ['gate/mean', 'opd/gate_baseline_mean'], fraction: true, fromSkills: true },
  { id: 'gate-half', title: 'Fraction g > 0.5', metrics: ['gate/frac_gt_half'], fraction: true, fromSkills: true },
  { id: 'gate-quantiles', title: 'Gate g per update: median, 25–75 %, 5–95 % of distilled tokens', metrics: ['gate/p50'], fraction: true, quantiles: 'gate', fromSkills: true },
  { id: 'delta', title: 'Δ mean (nats)', metrics: ['delta/mean'], fromSkills: true },
  { id: 'delta-quantiles', title: 'Δ per update (nats): median, 25–75 %, 5–95 % of distilled tokens', metrics: ['delta/p50'], quantiles: 'delta', fromSkills: true },
  { id: 'parse', title: 'Skill parse rate', metrics: ['skill/parse_rate'], fraction: true },
  // What the valid skills are about (trainer/seed_trainer/algo/skill_relevance.py): a format-valid skill can be about
  // another task, which the parse rate does not show. Null (no point) in an update without a valid skill.
  { id: 'skill-relevance', title: 'Skills about their own task (share of valid skills)', metrics: ['skill/summary_names_task', 'skill/names_task_target'], fraction: true, fromSkills: true },
  { id: 'time', title: 'Phase times (s)', metrics: ['time/'] },
  { id: 'sft', title: 'Stage-1 SFT loss', metrics: ['loss/sft', 'loss/sft_val'] },
];

/** The chart of a metric of a training row, or with `evaluation` of an evaluation row. */
export function chartOf(metric: string, evaluation = false): ChartSpec | undefined {
  return DASHBOARD_CHARTS.find(
    (chart) => Boolean(chart.evaluation) === evaluation && chart.metrics.some((name) => (name.endsWith('/') ? metric.startsWith(name) : metric === name)),
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

/** A per-task-type series of a success chart (hidden with "Per task type" off). */
export function isPerTaskType(series: string): boolean {
  const metric = series.replace(/^eval:[^:]+:/, '');
  return metric.startsWith('success/') && metric !== 'success/overall';
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

/** Series whose legend text is not the part of the metric name after its `/`. */
const SERIES_LABELS: Readonly<Record<string, string>> = {
  'gate/mean': 'mean g',
  'opd/gate_baseline_mean': 'mean b (subtracted from g)',
  'skill/summary_names_task': 'summary names the task',
  'skill/names_task_target': "skill names the task's object or receptacle",
};

/** The legend text of a series: `overall`, `pick_and_place`, `eval test_seen · overall`, `rollout`… */
export function seriesLabel(series: string): string {
  const named = SERIES_LABELS[series];
  if (named) return named;
  const match = /^eval:([^:]+):(.+)$/.exec(series);
  const short = (metric: string): string => metric.slice(metric.indexOf('/') + 1);
  return match ? `eval ${match[1]} · ${short(match[2] ?? '')}` : short(series);
}
