// The dashboard's messages, declared once for both bundles (src/dashboard/dashboardPanel.ts, webview/dashboard/).
import type { EvalSummary } from './evaluation';
import type { MetricRow, RecordedExperiment, RunStatus } from '../../runs/shared/types';
import type { SuccessChange } from '../../runs/shared/pairedChange';
import { messageSet } from '../../webviewHost/shared/protocol';

export interface DashboardRun {
  /** The run directory (the run's identity for the host). */
  key: string;
  id: string;
  /** The title that tells this run from the others listed (src/runs/core/runLabel.ts). */
  name: string;
  stage: string;
  algorithm: string;
  status: RunStatus | 'interrupted' | 'broken';
  /** ISO start time: wall-time axes count from it. */
  started?: string;
  /** The trainer's error message of a failed run. */
  error?: string;
  /** The resolved experiment config of run.json (the comparison table diffs it). */
  config?: RecordedExperiment;
}

/** One split's before/after of a run linked to its base evaluation (run.json `baseline_evals`). */
export interface BeforeAfterView {
  split: string;
  /** The base evaluation run's directory name. */
  baseRun: string;
  before?: { success: number; n: number };
  after?: { success: number; n: number };
  change?: SuccessChange;
  problem?: string;
}

/** host → webview */
export type ToDashboard = {
  /** The runs overlaid (in order; first = primary) and all runs that could be. */
  runs: { overlaid: DashboardRun[]; available: DashboardRun[] };
  /**
   * Metrics rows of one run: appended, or the whole series again when `reset`. `baseline`: the run's base evaluations
   * (run.json `baseline_evals`) as evaluation rows at update 0, drawn as the evaluation chart's first point but never
   * the run's own evaluation (its final metrics); the before/after panel shows them as "before".
   */
  metrics: { run: string; rows: MetricRow[]; reset: boolean; baseline?: MetricRow[] };
  /** A run's status or progress changed. */
  status: { run: string; status: DashboardRun['status']; progress?: { step: number; total: number | null }; error?: string };
  /** The latest evaluation report of each split of a run (eval/<split>.json), with intervals. */
  evaluations: { run: string; reports: EvalSummary[]; beforeAfter?: BeforeAfterView[] };
};

/** webview → host */
export type FromDashboard = {
  /** The user changed which runs are overlaid. */
  overlay: { runs: string[] };
  /** After a redraw: points held per run (raw, before decimation) and the redraw's duration. */
  rendered: { points: Record<string, number>; renders: number; ms: number };
  /** Save a chart: PNG as a base64 data URL, or CSV text; `name` is the suggested file name. */
  export: { format: 'png' | 'csv'; name: string; data: string };
};

export const TO_DASHBOARD = messageSet<ToDashboard>({ runs: true, metrics: true, status: true, evaluations: true });
export const FROM_DASHBOARD = messageSet<FromDashboard>({ overlay: true, rendered: true, export: true });
