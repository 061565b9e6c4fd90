// Messages of the runs table (webview/runsTable, src/runsTable/runsTablePanel.ts). See src/webviewHost/shared/protocol.ts.
import type { RunsTableRow } from './runsTable';
import { messageSet } from '../../webviewHost/shared/protocol';

export type RunsTableToWebview = {
  /** Every run of the workspace (all again on each change), and the pinned baseline's key. */
  rows: { rows: RunsTableRow[]; baseline: string | null; readOnly: boolean };
  error: { message: string };
};

export type RunsTableToHost = {
  /** Replace the tags of these runs (tags.json). */
  tags: { changes: { run: string; tags: string[] }[] };
  /** Pin a baseline run (null: unpin). */
  pin: { run: string | null };
  openDashboard: { runs: string[] };
  openSamples: { run: string };
  exportCsv: { csv: string };
  rendered: { rows: number; ms: number };
};

export const RUNS_TABLE_TO_WEBVIEW = messageSet<RunsTableToWebview>({ rows: true, error: true });
export const RUNS_TABLE_TO_HOST = messageSet<RunsTableToHost>({ tags: true, pin: true, openDashboard: true, openSamples: true, exportCsv: true, rendered: true });
