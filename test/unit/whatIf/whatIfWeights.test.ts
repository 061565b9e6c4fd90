// Issue 41 item 1 and issue 54 item 1: which weights rescore a trajectory when the checkpoint that scored it was not
// kept — one rule for both scorers, checked against the cases the trainer's test checks too — and how the viewer names
// them (src/whatIf/shared/weights.ts, src/whatIf/core/exportChoice.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { chooseWeights, exportOffer } from '../../../src/whatIf/core/exportChoice';
import { nearestKept, scoringStep, shortWeights, stepOfWeights, trainerWeightsText, weightsNote } from '../../../src/whatIf/shared/weights';

const RULE = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'whatif', 'weights-rule.json'), 'utf8')) as {
  cases: { kept: number[]; wanted: number; chosen: number | null }[];
};

test('the kept step nearest to the wanted one, the earlier of two as near: the cases the trainer checks too', () => {
  assert.ok(RULE.cases.length >= 5);
  for (const { kept, wanted, chosen } of RULE.cases) assert.equal(nearestKept(kept, wanted) ?? null, chosen, `kept ${kept}, wanted ${wanted}`);
  assert.equal(scoringStep('train', 30), 29);
  assert.equal(scoringStep('train', 1), 0);
  assert.equal(scoringStep('collect', 5), 0);
  assert.equal(stepOfWeights('exports/step-000020-onnx'), 20);
  assert.equal(stepOfWeights('checkpoints/step-000029'), 29);
  assert.equal(stepOfWeights('/models/household-tiny'), undefined);
});

test('the viewer says whether the weights scored the trajectory', () => {
  assert.equal(weightsNote('checkpoints/step-000029', 'train', 30), 'the weights that scored update 30 (step-000029)');
  assert.equal(
    weightsNote('checkpoints/step-000020', 'train', 30),
    'not the weights that scored update 30 (step-000029): step-000029, which scored update 30, was not kept; step-000020 is the nearest kept, 9 updates before it',
  );
  assert.equal(
    weightsNote('checkpoints/step-000030', 'train', 30),
    'not the weights that scored update 30 (step-000029): step-000029, which scored update 30, was not kept; step-000030 is the nearest kept, 1 update after it',
  );
  assert.match(weightsNote('exports/step-000001-onnx', 'train', 1), /the starting model has no export; step-000001 is the nearest kept, 1 update after it/);
  assert.match(weightsNote('/somewhere/household-tiny', 'train', 2), /step-000001, which scored update 2, was not kept; the run’s starting model is the nearest kept, 1 update before it$/);
  assert.equal(shortWeights('/somewhere/models/household-tiny'), '…/household-tiny');
  assert.equal(shortWeights('checkpoints/step-000001'), 'checkpoints/step-000001');
});

test('chooseWeights: both scorers get the same step; the export of that step, or its checkpoint for the trainer', () => {
  const run = mkdtempSync(path.join(os.tmpdir(), 'seed-whatif-weights-'));
  try {
    const exportOf = (name: string, source?: string) => {
      mkdirSync(path.join(run, 'exports', name), { recursive: true });
      writeFileSync(path.join(run, 'exports', name, 'export.json'), JSON.stringify(source ? { source: { id: 'r', checkpoint: source } } : {}));
    };
    const keep = (step: number) => mkdirSync(path.join(run, 'checkpoints', `step-${String(step).padStart(6, '0')}`), { recursive: true });
    // The demo's Stage-2 run keeps step-000030 only: update 30 (π_old = step-000029) is rescored with step-000030 by
    // either scorer, not with the starting model 29 updates away.
    keep(30);
    let choice = chooseWeights(run, 30, 'train');
    assert.deepEqual([choice.wantedStep, choice.step, choice.exact, choice.checkpoint, choice.exportDir], [29, 30, false, path.join('checkpoints', 'step-000030'), undefined]);
    exportOf('step-000030-onnx');
    choice = chooseWeights(run, 30, 'train');
    assert.equal(path.basename(choice.exportDir!), 'step-000030-onnx');
    assert.equal(choice.checkpoint, path.join('checkpoints', 'step-000030'));
    // update 5 (π_old = step 4): the starting model is nearer than step 30; nothing to export or load by name
    choice = chooseWeights(run, 5, 'train');
    assert.deepEqual([choice.step, choice.checkpoint, choice.exportDir], [0, undefined, undefined]);
    // an export named by its export.json's checkpoint counts as that step, even when the checkpoint was pruned
    exportOf('mine', 'step-000010');
    choice = chooseWeights(run, 12, 'train');
    assert.deepEqual([choice.step, path.basename(choice.exportDir!), choice.checkpoint], [10, 'mine', undefined]);
    // an evaluation at update 30 played step-000030, whose export exists
    choice = chooseWeights(run, 30, 'eval');
    assert.deepEqual([choice.step, choice.exact, path.basename(choice.exportDir!)], [30, true, 'step-000030-onnx']);
    // an export that names no step is not used (its weights could be any model's)
    exportOf('unnamed');
    assert.equal(chooseWeights(run, 1, 'train').exportDir, undefined);
    assert.equal(chooseWeights(run, 1, 'train').exports.length, 3);
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});

test('the export offered beside the trainer is of the kept checkpoint chosen: the demo’s step-000030, not the pruned step-000029', () => {
  const run = mkdtempSync(path.join(os.tmpdir(), 'seed-whatif-offer-'));
  try {
    // The demo's Stage-2 run: update 30 was scored by step-000029, pruned; step-000030 kept; no export yet.
    mkdirSync(path.join(run, 'checkpoints', 'step-000030'), { recursive: true });
    const trainer = chooseWeights(run, 30, 'train', false);
    assert.deepEqual(exportOffer(trainer, chooseWeights(run, 30, 'train').exportDir !== undefined), {
      exportCheckpoint: 'checkpoints/step-000030',
      hint: 'Or export checkpoints/step-000030 as ONNX for the editor: What if… then rescores it here, without the trainer.',
    });
    // An export of step 30 too large for the editor: nothing to offer; the starting model (update 5): no checkpoint to export.
    assert.equal(exportOffer(trainer, true), undefined);
    assert.equal(exportOffer(chooseWeights(run, 5, 'train', false), false), undefined);
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});

test('an evaluation is rescored with the weights it played: step-k at update k, an eval run of the model its model', () => {
  assert.equal(scoringStep('eval', 30), 30);
  assert.equal(scoringStep('eval', null), 0);
  assert.equal(weightsNote('checkpoints/step-000030', 'eval', 30), 'the weights that played the evaluation at update 30 (step-000030)');
  assert.equal(weightsNote('/w/runs/train/checkpoints/step-000030', 'eval', 30), 'the weights that played the evaluation at update 30 (step-000030)');
  assert.equal(
    weightsNote('checkpoints/step-000020', 'eval', 30),
    'not the weights that played the evaluation at update 30 (step-000030): step-000030, which played the evaluation at update 30, was not kept; step-000020 is the nearest kept, 10 updates before it',
  );
  assert.equal(weightsNote('/somewhere/household-tiny', 'eval', null), 'the weights that played this evaluation');
  assert.equal(weightsNote('/somewhere/household-tiny', 'collect', null), 'the weights that scored this trajectory (the run’s model)');
});

test('the question that offers the trainer names what it loads; no "step-000000" for a starting model', () => {
  assert.equal(trainerWeightsText('train', 30), 'step-000029 when kept, else the kept weights nearest to it');
  assert.equal(trainerWeightsText('eval', 30), 'step-000030 when kept, else the kept weights nearest to it');
  assert.equal(trainerWeightsText('train', 1), 'the run’s starting model');
  assert.equal(trainerWeightsText('collect', null), 'the run’s starting model');
  assert.equal(trainerWeightsText('eval', null), 'the weights this evaluation played');
});
