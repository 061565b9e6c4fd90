// Issue 41 item 1: which weights rescore a trajectory when the checkpoint that scored it was not kept, and how the
// viewer names them (src/whatIf/shared/weights.ts, src/whatIf/core/exportChoice.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exportCandidates } from '../../src/whatIf/core/exportChoice';
import { nearestKept, scoringStep, shortWeights, stepOfWeights, trainerWeightsText, weightsNote } from '../../src/whatIf/shared/weights';

test('the latest kept step at or before the wanted one, else the nearest after', () => {
  assert.equal(scoringStep('train', 30), 29);
  assert.equal(scoringStep('train', 1), 0);
  assert.equal(scoringStep('collect', 5), 0);
  assert.equal(nearestKept([10, 20, 30], 29), 20);
  assert.equal(nearestKept([10, 20, 30], 20), 20);
  assert.equal(nearestKept([30, 40], 29), 30);
  assert.equal(nearestKept([], 29), undefined);
  assert.equal(stepOfWeights('exports/step-000020-onnx'), 20);
  assert.equal(stepOfWeights('checkpoints/step-000029'), 29);
  assert.equal(stepOfWeights('/models/household-tiny'), undefined);
});

test('the viewer says whether the weights scored the trajectory', () => {
  assert.equal(weightsNote('checkpoints/step-000029', 'train', 30), 'the weights that scored update 30 (step-000029)');
  assert.equal(
    weightsNote('checkpoints/step-000020', 'train', 30),
    'not the weights that scored update 30 (step-000029): step-000029, which scored update 30, was not kept; step-000020 is the latest kept before it',
  );
  assert.match(weightsNote('exports/step-000001-onnx', 'train', 1), /the starting model has no export; step-000001 is the nearest kept after it/);
  assert.match(weightsNote('/somewhere/household-tiny', 'train', 2), /^the run’s starting model: step-000001, which scored update 2, was not kept/);
  assert.equal(shortWeights('/somewhere/models/household-tiny'), '…/household-tiny');
  assert.equal(shortWeights('checkpoints/step-000001'), 'checkpoints/step-000001');
});

test('exportCandidates: a pruned step-(k−1) export falls back to the latest before it, else the nearest after', () => {
  const run = mkdtempSync(path.join(os.tmpdir(), 'seed-whatif-weights-'));
  try {
    const exportOf = (name: string) => {
      mkdirSync(path.join(run, 'exports', name), { recursive: true });
      writeFileSync(path.join(run, 'exports', name, 'export.json'), '{}');
    };
    exportOf('step-000010-onnx');
    exportOf('step-000030-onnx');
    const late = exportCandidates(run, 30, 'train');
    assert.equal(path.basename(late.chosen!), 'step-000010-onnx');
    assert.equal(late.exact, false);
    assert.equal(late.wanted, 'step-000029');
    assert.equal(path.basename(exportCandidates(run, 5, 'train').chosen!), 'step-000010-onnx'); // none before step 4: the nearest after
    assert.equal(path.basename(exportCandidates(run, 31, 'train').chosen!), 'step-000030-onnx');
    assert.equal(exportCandidates(run, 31, 'train').exact, true);
    // an evaluation at update 30 played step-000030, whose export exists
    assert.equal(path.basename(exportCandidates(run, 30, 'eval').chosen!), 'step-000030-onnx');
    assert.equal(exportCandidates(run, 30, 'eval').exact, true);
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
    'not the weights that played the evaluation at update 30 (step-000030): step-000030, which played the evaluation at update 30, was not kept; step-000020 is the latest kept before it',
  );
  assert.equal(weightsNote('/somewhere/household-tiny', 'eval', null), 'the weights that played this evaluation');
  assert.equal(weightsNote('/somewhere/household-tiny', 'collect', null), 'the weights that scored this trajectory (the run’s model)');
});

test('the question that offers the trainer names what it loads; no "step-000000" for a starting model', () => {
  assert.equal(trainerWeightsText('train', 30), 'step-000029 when kept, else the latest kept checkpoint before it');
  assert.equal(trainerWeightsText('eval', 30), 'step-000030 when kept, else the latest kept checkpoint before it');
  assert.equal(trainerWeightsText('train', 1), 'the run’s starting model');
  assert.equal(trainerWeightsText('collect', null), 'the run’s starting model');
  assert.equal(trainerWeightsText('eval', null), 'the weights this evaluation played');
});
