// Which weights rescore a trajectory, and how the viewer names them. The gates of Stage-2 update k were computed by
// π_old, the weights after update k − 1 (checkpoint step-(k−1)); update 1 and Stage-1 trajectories by the run's
// starting model (step 0 here). An evaluation at update k played the weights after update k (step-k); an `eval` run
// of a checkpoint records that checkpoint's update, one of the model none. When that checkpoint was not kept (runs
// keep a few), the kept weights nearest to it in updates are used — the run's starting model counting as step 0, the
// earlier of two as near — and the viewer says so. One rule for both scorers: the extension picks the step and hands
// it to the trainer (`--checkpoint`), whose own default is the same rule (`nearest_kept` in
// trainer/seed_trainer/runlog/layout.py); test/fixtures/whatif/weights-rule.json holds the cases both test
// suites check. No vscode or Node imports: the webview uses it too.

/** The checkpoint step whose weights scored (an evaluation: played) a trajectory (0: the run's starting model). */
export function scoringStep(phase: string, update: number | null | undefined): number {
  if (typeof update !== 'number') return 0;
  if (phase === 'train') return update >= 2 ? update - 1 : 0;
  return phase === 'eval' && update >= 1 ? update : 0;
}

/** Of the kept steps (0: the starting model), the one nearest to `wanted` in updates, the earlier of two as near;
 * undefined when none is kept. Why nearest and not "latest before": with checkpoints kept every 20 updates, update
 * 30's π_old (step 29) is one update from step 30 but 29 from the starting model. */
export function nearestKept(kept: readonly number[], wanted: number): number | undefined {
  let best: number | undefined;
  for (const step of kept) {
    const closer = best === undefined || Math.abs(step - wanted) < Math.abs(best - wanted);
    const asCloseAndEarlier = best !== undefined && Math.abs(step - wanted) === Math.abs(best - wanted) && step < best;
    if (closer || asCloseAndEarlier) best = step;
  }
  return best;
}

/** The step of a checkpoint or export name (`checkpoints/step-000020`, `exports/step-000020-onnx`). */
export function stepOfWeights(name: string): number | undefined {
  const match = /(?:^|[\\/])step-(\d+)(?:-onnx)?\/?$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

export function checkpointName(step: number): string {
  return `step-${String(step).padStart(6, '0')}`;
}

/**
 * One sentence saying which weights a rescoring used and whether they are the ones that scored the trajectory:
 * "the weights that scored update 30 (step-000029)" or "not the weights that scored update 30: step-000029 was not
 * kept; step-000030 is the nearest kept, 1 update after it"; for an evaluation, the weights that played it.
 */
export function weightsNote(weights: string, phase: string, update: number | null | undefined): string {
  const wanted = scoringStep(phase, update);
  const evaluation = phase === 'eval';
  // "scored update 30" / "played the evaluation at update 30"
  const did = evaluation ? 'played' : 'scored';
  const target = evaluation ? `the evaluation at update ${update}` : `update ${update}`;
  const what =
    wanted === 0
      ? phase === 'train' ? 'update 1 (the run\u2019s starting model)' : evaluation ? 'this evaluation' : 'this trajectory (the run\u2019s model)'
      : `${target} (${checkpointName(wanted)})`;
  const step = stepOfWeights(weights);
  if (step === undefined) {
    return wanted === 0 ? `the weights that ${did} ${what}` : `not the weights that ${did} ${what}: ${checkpointName(wanted)}, which ${did} ${target}, was not kept; the run\u2019s starting model is the nearest kept, ${wanted} update${wanted === 1 ? '' : 's'} before it`;
  }
  if (step === wanted) return `the weights that ${did} ${what}`;
  const kept = wanted === 0 ? 'the starting model has no export' : `${checkpointName(wanted)}, which ${did} ${target}, was not kept`;
  const away = Math.abs(step - wanted);
  return `not the weights that ${did} ${what}: ${kept}; ${checkpointName(step)} is the nearest kept, ${away} update${away === 1 ? '' : 's'} ${step < wanted ? 'before' : 'after'} it`;
}

/**
 * How the view names a result's weights: as recorded when relative to the run (`checkpoints/step-000020`,
 * `exports/step-000020-onnx`); a model outside the run (the starting model, recorded as an absolute path) by its
 * folder name, so the view does not spell out the machine's directories.
 */
export function shortWeights(weights: string): string {
  if (!/^([/\\]|[A-Za-z]:[/\\])/.test(weights)) return weights;
  const parts = weights.split(/[/\\]+/).filter(Boolean);
  return `…/${parts[parts.length - 1] ?? weights}`;
}

/** What the trainer loads, for the question that offers it ("It loads …"): a checkpoint by name, or — for update 1,
 * Stage 1 and an `eval` run of the model — no checkpoint at all. */
export function trainerWeightsText(phase: string, update: number | null | undefined): string {
  const wanted = scoringStep(phase, update);
  if (wanted > 0) return `${checkpointName(wanted)} when kept, else the kept weights nearest to it`;
  return phase === 'eval' ? 'the weights this evaluation played' : 'the run\u2019s starting model';
}
