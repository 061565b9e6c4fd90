// The dashboard's evaluation panel: success with its Wilson score interval (a binomial proportion from n episodes; it
// stays inside [0, 1] and is honest at the small n of evaluation splits, where the normal approximation is not), per
// split and per task type. No DOM, no `vscode`.
import type { EvalReport, MetricRow } from '../../runs/shared/types';

export interface Interval {
  low: number;
  high: number;
}

/** The Wilson score interval of `successes` out of `n` at z (1.96 ≈ 95 %); [0, 1] when n = 0. */
export function wilsonInterval(successes: number, n: number, z = 1.96): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface EvalCell {
  success: number;
  n: number;
  interval: Interval;
}

/** One evaluation of one run, as the page gets it (the host reads eval/<split>.json). */
export interface EvalSummary {
  split: string;
  step: number | null;
  overall: EvalCell;
  byType: Record<string, EvalCell>;
}

function cell(summary: { success: number; n: number }): EvalCell {
  const successes = Math.round(summary.success * summary.n);
  return { success: summary.success, n: summary.n, interval: wilsonInterval(successes, summary.n) };
}

export function summarizeEval(report: Pick<EvalReport, 'split' | 'step' | 'overall' | 'by_task_type'>): EvalSummary {
  const byType: Record<string, EvalCell> = {};
  for (const [type, summary] of Object.entries(report.by_task_type)) byType[type] = cell(summary);
  return { split: report.split, step: report.step, overall: cell(report.overall), byType };
}

/** `62% [41–79] n=24` */
export function formatCell(value: EvalCell | undefined): string {
  if (!value) return '—';
  const pct = (x: number): string => `${Math.round(x * 100)}`;
  return `${pct(value.success)}% [${pct(value.interval.low)}–${pct(value.interval.high)}] n=${value.n}`;
}

/**
 * The base evaluations of a run as evaluation rows at update 0 (the chart's first point: the policy before training),
 * one per split, with its per-task-type success; `time` is the run's start, so the wall-time axis puts them at 0.
 */
export function baselineRows(
  baselines: ReadonlyArray<{ split: string; before?: Pick<EvalReport, 'overall' | 'by_task_type'> }>,
  started: string | undefined,
): MetricRow[] {
  const rows: MetricRow[] = [];
  for (const { split, before } of baselines) {
    if (!before) continue;
    const row: MetricRow = { step: 0, time: started ?? '', kind: 'eval', split, 'success/overall': before.overall.success };
    for (const [type, summary] of Object.entries(before.by_task_type ?? {})) row[`success/${type}`] = summary.success;
    rows.push(row);
  }
  return rows;
}
