// Messages of the trajectory table (webview/trajectoryTable, src/trajectoryTable/trajectoryTablePanel.ts). See protocol.ts.
import type { TableRow } from './trajectoryTable';
import { messageSet } from '../../webviewHost/shared/protocol';

export type TableToWebview = {
  /** The rows of one batch of a run (an update, a collection batch, an evaluation split). */
  rows: { run: string; batch: string; rows: TableRow[] };
  error: { message: string };
};

export type TableToHost = {
  open: { id: string };
  compare: { a: string; b: string };
  rendered: { rows: number; ms: number };
};

export const TABLE_TO_WEBVIEW = messageSet<TableToWebview>({ rows: true, error: true });
export const TABLE_TO_HOST = messageSet<TableToHost>({ open: true, compare: true, rendered: true });
