// The rows of the runs table as the panel keeps them between refreshes: a run's row is rebuilt only when the run
// changed (its reports read once then), and each row's change against its split's baseline is the paired change of
// the two eval/<split>.json reports (src/runs/shared/pairedChange.ts), cached by the identity of the two reports read:
// a refresh or a new baseline reads no report again, and a rebuilt run's new reports miss the cache. No `vscode`.
import type { RunEntry } from '../../runs/core/runsCore';
import { successChange, type EvalSample, type SuccessChange } from '../../runs/shared/pairedChange';
import type { Baselines, RunsTableRow } from '../shared/runsTable';
import { readRunsTableRow } from './runsTableRows';

export class RunsTableStore {
  private readonly rows = new Map<string, { row: RunsTableRow; samples: Map<string, EvalSample> }>();
  private readonly changes = new WeakMap<EvalSample, WeakMap<EvalSample, SuccessChange>>();
  /** How many changes were computed (not taken from the cache): tests. */
  computed = 0;

  /** Rebuilds the rows of the runs `rebuild` names and of runs not seen before; forgets runs no longer listed. */
  async update(entries: readonly RunEntry[], rebuild: (dir: string) => boolean, title: (dir: string) => string): Promise<void> {
    const keep = new Set(entries.map((e) => e.dir));
    for (const dir of this.rows.keys()) if (!keep.has(dir)) this.rows.delete(dir);
    const todo = entries.filter((e) => rebuild(e.dir) || !this.rows.has(e.dir));
    const built = await Promise.all(todo.map((entry) => readRunsTableRow(entry, title(entry.dir))));
    for (const read of built) this.rows.set(read.row.key, read);
    // Titles can change for every run when one is added (collisions get the start time).
    for (const entry of entries) {
      const read = this.rows.get(entry.dir);
      if (read) read.row.title = title(entry.dir);
    }
  }

  /** Every row kept, in the order of `entries`. */
  list(entries: readonly RunEntry[]): RunsTableRow[] {
    return entries.map((e) => this.rows.get(e.dir)?.row).filter((r): r is RunsTableRow => r !== undefined);
  }

  /** Sets each row's `changes`: for each split with a baseline (other than the row itself) where both have a report. */
  applyBaselines(rows: readonly RunsTableRow[], baselines: Baselines): void {
    for (const row of rows) {
      const changes: Record<string, SuccessChange> = {};
      for (const [split, baseline] of Object.entries(baselines)) {
        if (baseline === row.key) continue;
        const after = this.rows.get(row.key)?.samples.get(split);
        const before = this.rows.get(baseline)?.samples.get(split);
        if (after && before) changes[split] = this.change(after, before);
      }
      row.changes = changes;
    }
  }

  private change(after: EvalSample, before: EvalSample): SuccessChange {
    let byBefore = this.changes.get(after);
    if (!byBefore) this.changes.set(after, (byBefore = new WeakMap()));
    let change = byBefore.get(before);
    if (!change) {
      change = successChange(after, before);
      byBefore.set(before, change);
      this.computed += 1;
    }
    return change;
  }
}
