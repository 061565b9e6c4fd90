// "Compare" on a task group of the Runs tree: a failure and a success of the group, both with gate data (a teacher
// pass), so that the diff has heatmaps to compare. A group without such a pair is refused with the reason instead of
// being paired silently. No `vscode` import.
import type { TrajectoryIndexRow } from '../../runs/shared/types';

export type GroupPair = { pair: [failure: TrajectoryIndexRow, success: TrajectoryIndexRow] } | { refusal: string };

export function groupComparePair(rows: readonly TrajectoryIndexRow[]): GroupPair {
  const failures = rows.filter((row) => !row.success);
  const successes = rows.filter((row) => row.success);
  if (failures.length === 0 || successes.length === 0) {
    return { refusal: `this group has ${failures.length === 0 ? 'no failure' : 'no success'} to compare with; select two trajectories instead` };
  }
  const failure = failures.find((row) => row.teacher);
  const success = successes.find((row) => row.teacher);
  if (failure && success) return { pair: [failure, success] };
  const missing = !failure && !success ? 'neither its failures nor its successes have' : !failure ? 'its failures have no' : 'its successes have no';
  return { refusal: `${missing} gate data (no teacher pass: GRPO, evaluation or an invalid skill), so the diff would show no heatmap; select two trajectories to compare them anyway` };
}
