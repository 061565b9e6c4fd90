// The evaluated episodes of a run: the trajectory index's eval rows (every evaluation, with its trajectory), and for
// a split whose episodes were not recorded as trajectories, the episodes of its latest eval/<split>.json. No `vscode`.
import type { RunEntry } from '../../runs/core/runsCore';
import type { SampleRow } from '../shared/evalSamples';
import { diagnoseEpisode, failureText } from '../shared/failureReasons';

export async function sampleRows(entry: RunEntry): Promise<SampleRow[]> {
  const rows: SampleRow[] = [];
  const splitsWithTrajectories = new Set<string>();
  const reader = entry.index.reader;
  const maxSteps = maxStepsOf(entry);
  for (const batch of entry.index.batches.values()) {
    if (batch.phase !== 'eval') continue;
    for (const group of batch.groups.values()) {
      for (const row of group.rows) {
        const split = row.task.split ?? batch.split ?? 'eval';
        splitsWithTrajectories.add(split);
        // Why a failed episode failed: read from its trajectory (one seek per episode; successes are not read).
        const trajectory = row.success ? undefined : await reader.readTrajectory(row).catch(() => undefined);
        const why = trajectory ? failureText(diagnoseEpisode(trajectory.steps, trajectory.final_observation, maxSteps), maxSteps) : undefined;
        rows.push({ trajectory: row.id, task: row.task.id, type: row.task.type, split, step: row.update, success: row.success, length: row.length, reward: row.reward, tokens: row.tokens, ...(why ? { why } : {}) });
      }
    }
  }
  for (const split of await reader.listEvalSplits().catch(() => [])) {
    if (splitsWithTrajectories.has(split)) continue;
    const report = await reader.readEval(split).catch(() => undefined);
    for (const episode of report?.episodes ?? []) {
      rows.push({
        ...(episode.trajectory ? { trajectory: episode.trajectory } : {}),
        task: episode.task.id,
        type: episode.task.type,
        split,
        step: report?.step ?? null,
        success: episode.success,
        length: episode.length,
        reward: episode.reward,
      });
    }
  }
  return rows;
}

/** The step budget of the run's episodes (its config's `rollout.max_steps`), when it records one. */
function maxStepsOf(entry: RunEntry): number | undefined {
  return entry.index.manifest?.config.rollout?.max_steps;
}
