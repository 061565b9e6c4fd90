// The evaluation sample table (as Inspect's per-sample view): one row per evaluated task episode with its type,
// success, length and reward; a summary per task type with 95 % Wilson intervals; sort and filter. A run's
// evaluations are told apart by split and the update evaluated (null: the model as loaded). No DOM, no `vscode`.
import { wilsonInterval, type EvalCell } from '../../dashboard/shared/evaluation';

export interface SampleRow {
  /** The trajectory id (trajectories/eval-<split>.jsonl), when the episode was recorded. */
  trajectory?: string;
  task: string;
  type: string;
  split: string;
  /** The update whose weights were evaluated; null for the model as loaded. */
  step: number | null;
  success: boolean;
  length: number;
  reward: number;
  tokens?: number;
  /** A failed episode's "why it failed" (failureReasons.ts), when its trajectory was recorded. */
  why?: string;
  /** An episode of another run: the base evaluation this run's run.json links for the split (`baseline_evals`);
   * its directory opens the trajectory, its title names the evaluation. */
  source?: { runDir: string; title: string };
}

export interface Evaluation {
  /** `valid_seen@20`, `valid_seen@base`. */
  key: string;
  split: string;
  step: number | null;
  label: string;
  n: number;
}

export function evaluationKey(split: string, step: number | null, source?: { runDir: string }): string {
  return `${split}@${source ? `run:${source.runDir}` : (step ?? 'base')}`;
}

/** The key of the evaluation a row belongs to. */
export function rowEvaluation(row: SampleRow): string {
  return evaluationKey(row.split, row.step, row.source);
}

/** The evaluations among the rows, by split, then step (the model as loaded first). */
export function evaluationsOf(rows: readonly SampleRow[]): Evaluation[] {
  const found = new Map<string, Evaluation>();
  for (const row of rows) {
    const key = rowEvaluation(row);
    const label = row.source ? `${row.split} · base evaluation (${row.source.title})` : `${row.split} · ${row.step === null ? 'as loaded' : `update ${row.step}`}`;
    const entry = found.get(key) ?? { key, split: row.split, step: row.source ? -1 : row.step, label, n: 0 };
    entry.n += 1;
    found.set(key, entry);
  }
  // a linked base evaluation first (step −1 for the order), then the model as loaded, then by update
  return [...found.values()].sort((a, b) => a.split.localeCompare(b.split) || (a.step ?? -0.5) - (b.step ?? -0.5)).map((e) => (e.step === -1 ? { ...e, step: null } : e));
}

export interface SampleSummary {
  overall: EvalCell;
  byType: Array<[type: string, cell: EvalCell, meanLength: number]>;
}

function cellOf(rows: readonly SampleRow[]): EvalCell {
  const successes = rows.filter((r) => r.success).length;
  return { success: rows.length > 0 ? successes / rows.length : 0, n: rows.length, interval: wilsonInterval(successes, rows.length) };
}

export function summarizeSamples(rows: readonly SampleRow[]): SampleSummary {
  const byType = new Map<string, SampleRow[]>();
  for (const row of rows) byType.set(row.type, [...(byType.get(row.type) ?? []), row]);
  return {
    overall: cellOf(rows),
    byType: [...byType.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([type, group]) => [type, cellOf(group), group.reduce((s, r) => s + r.length, 0) / group.length]),
  };
}

export type SampleSortKey = 'task' | 'type' | 'success' | 'length' | 'reward' | 'why' | 'trajectory';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function sortSamples(rows: readonly SampleRow[], key: SampleSortKey, direction: 'ascending' | 'descending'): SampleRow[] {
  const sign = direction === 'ascending' ? 1 : -1;
  const value = (row: SampleRow): number | string => {
    if (key === 'success') return row.success ? 1 : 0;
    if (key === 'length' || key === 'reward') return row[key];
    return row[key] ?? '';
  };
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return order === 0 ? collator.compare(a.task, b.task) : sign * order;
  });
}

/** Words that must all match: `success` / `failure`, `type:NAME`, `-WORD` excludes, else a substring of the task
 * id, its type, the trajectory id or why it failed (case-insensitive). */
export function filterSamples(rows: readonly SampleRow[], query: string): SampleRow[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (row: SampleRow, word: string): boolean => {
    if (word === 'success' || word === 'failure') return row.success === (word === 'success');
    if (word.startsWith('type:')) return row.type.toLowerCase() === word.slice(5);
    return `${row.task}\n${row.type}\n${row.trajectory ?? ''}\n${row.why ?? ''}`.toLowerCase().includes(word);
  };
  return rows.filter((row) => words.every((word) => (word.startsWith('-') && word.length > 1 ? !matches(row, word.slice(1)) : matches(row, word))));
}
