// Which base evaluations a new Stage-2 run links (run.json `baseline_evals`, `train --baseline-eval`): for each split,
// the newest completed `eval` run of the same experiment file that evaluated the experiment's own starting weights
// (`model.path` as the file says now, not a checkpoint of a run: its report's `step` is null). "SEED: Train" passes
// them, so Evaluate (the base) → Train gives a before/after without asking. No `vscode`.
import path from 'node:path';
import type { RunManifest } from '../../runs/shared/types';

export interface EvalRunFacts {
  dir: string;
  manifest: RunManifest | undefined;
  completed: boolean;
  /** The splits of its reports, each with the report's `step` (null: not a Stage-2 checkpoint). */
  reports: { split: string; step: number | null }[];
}

/** split → eval run directory, for a train run of `experimentFile` starting from `modelPath`. */
export function chooseBaselines(experimentFile: string, modelPath: string | undefined, runs: readonly EvalRunFacts[]): Map<string, string> {
  const chosen = new Map<string, { dir: string; started: string }>();
  const target = path.resolve(experimentFile);
  for (const run of runs) {
    const manifest = run.manifest;
    if (!manifest || manifest.stage !== 'eval' || !run.completed) continue;
    if (path.resolve(run.dir, manifest.experiment.path) !== target) continue;
    const evaluated = manifest.config.model?.path;
    if (modelPath === undefined || evaluated !== modelPath) continue;
    for (const report of run.reports) {
      if (report.step !== null) continue;
      const known = chosen.get(report.split);
      if (!known || known.started < manifest.started) chosen.set(report.split, { dir: run.dir, started: manifest.started });
    }
  }
  return new Map([...chosen].sort((a, b) => a[0].localeCompare(b[0])).map(([split, { dir }]) => [split, dir]));
}

/** The trainer's arguments for them. */
export function baselineArgs(baselines: ReadonlyMap<string, string>): string[] {
  return [...new Set(baselines.values())].flatMap((dir) => ['--baseline-eval', dir]);
}
