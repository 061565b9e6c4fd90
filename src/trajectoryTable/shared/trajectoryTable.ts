// The trajectory table (as Inspect's log table): one row per trajectory of a batch with task, type, outcome, length,
// tokens, skill validity and mean gate, sortable by any column. No DOM, no `vscode`: the webview and the unit tests
// import it.
import type { TrajectoryIndexRow } from '../../runs/shared/types';

export interface TableRow {
  id: string;
  task: string;
  type: string;
  success: boolean;
  length: number;
  tokens: number;
  /** `valid` / `invalid` skill, or `none` when no analysis ran. */
  skill: 'valid' | 'invalid' | 'none';
  /** Token-weighted mean gate over the trajectory; null without a teacher pass. */
  meanGate: number | null;
  group?: number;
  sample?: number;
}

export type SortKey = 'id' | 'task' | 'type' | 'success' | 'length' | 'tokens' | 'skill' | 'meanGate';

export function tableRow(row: TrajectoryIndexRow, meanGate: number | null): TableRow {
  return {
    id: row.id,
    task: row.task.id,
    type: row.task.type,
    success: row.success,
    length: row.length,
    tokens: row.tokens,
    skill: row.skill ? (row.skill.valid ? 'valid' : 'invalid') : 'none',
    meanGate,
    ...(row.group !== undefined ? { group: row.group } : {}),
    ...(row.sample !== undefined ? { sample: row.sample } : {}),
  };
}

/** Rows sorted by `key` (missing values last whatever the direction; ties keep the id order). */
export function sortRows(rows: readonly TableRow[], key: SortKey, direction: 'ascending' | 'descending'): TableRow[] {
  const sign = direction === 'ascending' ? 1 : -1;
  const value = (row: TableRow): string | number | null => {
    const v = row[key];
    return typeof v === 'boolean' ? Number(v) : v;
  };
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === y ? a.id.localeCompare(b.id) : x === null ? 1 : -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return sign * order || a.id.localeCompare(b.id);
  });
}
