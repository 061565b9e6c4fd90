// What `npm run demo` asks the trainer to do, in order, as plain data: scripts/demo.mjs runs these steps and
// test/unit/scripts/demoSteps.test.ts checks how they chain (each step reads the run folder an earlier one wrote).
export const STAGE1 = 'examples/household-demo.seed.yaml';
export const STAGE2 = 'examples/household-demo-stage2.seed.yaml';
export const SPLITS = ['valid_seen', 'valid_unseen'];

/** The demo's run folders under PREFIX (an earlier demo's folders of the same names are replaced). */
export function demoRuns(prefix) {
  return {
    ...Object.fromEntries(SPLITS.map((split) => [`base-${split}`, `${prefix}-base-${split}`])),
    collect: `${prefix}-collect`,
    sft: `${prefix}-sft`,
    train: `${prefix}-train`,
  };
}

/** The trainer commands (`python -m seed_trainer ARGS`), each with its progress label and the heading it opens. */
export function demoSteps(runs) {
  return [
    ...SPLITS.map((split, i) => ({
      heading: i === 0 ? 'Evaluating the base policy (plain prompt)' : undefined,
      label: `eval ${split}`,
      args: ['eval', STAGE1, '--split', split, '--run-dir', runs[`base-${split}`]],
    })),
    {
      heading: 'Stage 1: collect rollouts, oracle analyzer writes a skill for each',
      label: 'collect',
      args: ['collect', STAGE1, '--run-dir', runs.collect],
    },
    {
      heading: 'Stage 1: SFT on the analyses (the policy learns to write skills)',
      label: 'sft',
      args: ['sft', STAGE1, '--data', runs.collect, '--run-dir', runs.sft],
    },
    {
      heading: 'Stage 2: SEED (GRPO + gated on-policy distillation from self-written skills), then evaluation',
      label: 'train',
      // The base evaluations are linked to the train run (run.json baseline_evals): the extension shows the
      // before/after from them.
      args: ['train', STAGE2, '--run-dir', runs.train, ...SPLITS.flatMap((s) => ['--baseline-eval', runs[`base-${s}`]])],
    },
  ];
}
