// Two evaluations of the same tasks compared task by task (as Inspect compares two logs): which tasks the second won
// that the first lost and the reverse, with the paired change and its 95 % interval (src/runs/shared/pairedChange.ts).
// Tasks pair by id (the k-th episode of a task in one with the k-th in the other); a task only one evaluation played
// is left out and counted. No DOM, no `vscode`.
import { pairedByTask, type Interval } from '../../runs/shared/pairedChange';
import type { SampleRow } from './evalSamples';

export type PairChange = 'gained' | 'lost' | 'both won' | 'both failed';

export interface PairRow {
  task: string;
  type: string;
  a: SampleRow;
  b: SampleRow;
  change: PairChange;
}

export interface PairedComparison {
  rows: PairRow[];
  gained: number;
  lost: number;
  /** B − A in success, task by task; null below two pairs. */
  change: Interval | null;
  /** Episodes of A and of B with no partner in the other. */
  unpaired: { a: number; b: number };
}

function changeOf(a: boolean, b: boolean): PairChange {
  if (a === b) return a ? 'both won' : 'both failed';
  return b ? 'gained' : 'lost';
}

export function pairEvaluations(a: readonly SampleRow[], b: readonly SampleRow[]): PairedComparison {
  const waiting = new Map<string, SampleRow[]>();
  for (const row of b) waiting.set(row.task, [...(waiting.get(row.task) ?? []), row]);
  const rows: PairRow[] = [];
  for (const row of a) {
    const partner = waiting.get(row.task)?.shift();
    if (partner) rows.push({ task: row.task, type: row.type, a: row, b: partner, change: changeOf(row.success, partner.success) });
  }
  const episodes = (side: 'a' | 'b') => rows.map((r) => ({ task: { id: r.task }, success: r[side].success }));
  return {
    rows,
    gained: rows.filter((r) => r.change === 'gained').length,
    lost: rows.filter((r) => r.change === 'lost').length,
    change: pairedByTask(episodes('b'), episodes('a')),
    unpaired: { a: a.length - rows.length, b: b.length - rows.length },
  };
}
