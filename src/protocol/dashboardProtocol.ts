// The dashboard's messages, declared once for both bundles (src/dashboard/dashboardPanel.ts, webview/dashboard/main.ts).
import type { MetricRow, RunStatus } from '../runs/types';
import { messageSet } from './protocol';

export interface DashboardRun {
  /** The run directory (the run's identity for the host). */
  key: string;
  id: string;
  name: string;
  stage: string;
  algorithm: string;
  status: RunStatus | 'interrupted' | 'broken';
}

/** host → webview */
export type ToDashboard = {
  /** The runs overlaid (in order; first = primary) and all runs that could be. */
  runs: { overlaid: DashboardRun[]; available: DashboardRun[] };
  /** Metrics rows of one run: appended, or the whole series again when `reset`. */
  metrics: { run: string; rows: MetricRow[]; reset: boolean };
  /** A run's status or progress changed. */
  status: { run: string; status: DashboardRun['status']; progress?: { step: number; total: number | null } };
};

/** webview → host */
export type FromDashboard = {
  /** The user changed which runs are overlaid. */
  overlay: { runs: string[] };
  /** After a redraw: points held per run (raw, before decimation) and the redraw's duration. */
  rendered: { points: Record<string, number>; renders: number; ms: number };
};

export const TO_DASHBOARD = messageSet<ToDashboard>({ runs: true, metrics: true, status: true });
export const FROM_DASHBOARD = messageSet<FromDashboard>({ overlay: true, rendered: true });
