// Messages of the runs table (webview/runsTable, src/runsTable/runsTablePanel.ts). See src/webviewHost/shared/protocol.ts.
import type { Baselines, RunsTableRow } from './runsTable';
import { messageSet } from '../../webviewHost/shared/protocol';

export type RunsTableToWebview = {
  /** Every run of the workspace (all again on each change, each with its changes against the baselines), and the
   * baseline run of each split that has one (split → run key). */
  rows: { rows: RunsTableRow[]; baselines: Baselines; readOnly: boolean };
  error: { message: string };
};

export type RunsTableToHost = {
  /** Replace the tags of these runs (tags.json). */
  tags: { changes: { run: string; tags: string[] }[] };
  /** Make a run the baseline of every split it has an evaluation report of. */
  pin: { run: string };
  /** The run is no longer a baseline (null: no split keeps one). */
  unpin: { run: string | null };
  openDashboard: { runs: string[] };
  openSamples: { run: string };
  exportCsv: { csv: string };
  rendered: { rows: number; ms: number };
};

export const RUNS_TABLE_TO_WEBVIEW = messageSet<RunsTableToWebview>({ rows: true, error: true });
export const RUNS_TABLE_TO_HOST = messageSet<RunsTableToHost>({ tags: true, pin: true, unpin: true, openDashboard: true, openSamples: true, exportCsv: true, rendered: true });
