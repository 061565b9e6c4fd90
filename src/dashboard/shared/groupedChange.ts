// The before → after of a group of runs (issue 54): per split, the mean success before and after across the group's
// runs and the mean of their changes with its 95 % t-interval across runs — the spread between seeds, where each
// run's own interval (paired task by task) holds only its evaluation's noise. No DOM, no `vscode`.
import { tInterval, type Estimate } from '../../runs/shared/runGrouping';
import type { BeforeAfterView } from './protocol';

export interface GroupedChange {
  split: string;
  /** Runs with both evaluations of the split (the runs the change is the mean of). */
  n: number;
  before: Estimate | undefined;
  after: Estimate | undefined;
  /** The mean change with its t-interval (from two runs on). */
  change: Estimate | undefined;
  /** `better` / `worse` when the interval across runs leaves out 0, `noise` when it holds it, `one run` for n = 1. */
  verdict: 'better' | 'worse' | 'noise' | 'one run' | 'none';
}

/** Per split (sorted), the group's before → after from its runs' rows (each run's list of splits). */
export function groupedChanges(runs: ReadonlyArray<readonly BeforeAfterView[]>): GroupedChange[] {
  const splits = [...new Set(runs.flatMap((pairs) => pairs.map((p) => p.split)))].sort();
  return splits.map((split) => {
    const pairs = runs.map((list) => list.find((p) => p.split === split)).filter((p): p is BeforeAfterView => p !== undefined);
    const changed = pairs.filter((p) => p.change !== undefined);
    const change = tInterval(changed.map((p) => p.change!.change));
    const verdict =
      change === undefined ? 'none' : change.low === undefined || change.high === undefined ? 'one run' : change.low > 0 ? 'better' : change.high < 0 ? 'worse' : 'noise';
    return {
      split,
      n: changed.length,
      before: tInterval(changed.map((p) => p.change!.before)),
      after: tInterval(changed.map((p) => p.change!.after)),
      change,
      verdict,
    };
  });
}
