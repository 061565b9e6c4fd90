// "SEED: Train" links the base evaluations of the experiment (issue 41 item 3): which eval runs count as the base.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { baselineArgs, chooseBaselines, type EvalRunFacts } from '../../../src/training/core/baselineEvals';
import type { RunManifest } from '../../../src/runs/shared/types';

const root = path.resolve('/w');
const experiment = path.join(root, 'demo.seed.yaml');

function evalRun(name: string, fields: Partial<RunManifest>, reports: EvalRunFacts['reports'], completed = true): EvalRunFacts {
  const manifest = {
    format_version: 1, id: name, name: 'demo', experiment: { path: '../../demo.seed.yaml', sha256: '0'.repeat(64) },
    config: { model: { path: 'builtin:household-tiny' } }, stage: 'eval', algorithm: 'seed', status: 'completed', pid: 1,
    host: 'h', started: '2026-12-01T10:00:00Z', versions: { trainer: '0', python: '3' }, device: { kind: 'cpu', name: 'cpu', count: 0 },
    ...fields,
  } as RunManifest;
  return { dir: path.join(root, 'runs', name), manifest, completed, reports };
}

test('the newest completed base evaluation of the same experiment and weights, per split', () => {
  const runs = [
    evalRun('old-seen', {}, [{ split: 'valid_seen', step: null }]),
    evalRun('new-seen', { started: '2026-12-01T11:00:00Z' }, [{ split: 'valid_seen', step: null }]),
    evalRun('unseen', {}, [{ split: 'valid_unseen', step: null }]),
    evalRun('checkpoint', { started: '2026-12-02T00:00:00Z' }, [{ split: 'valid_seen', step: 30 }]),
    evalRun('other-model', { started: '2026-12-02T00:00:00Z', config: { model: { path: 'models/x' } } }, [{ split: 'valid_seen', step: null }]),
    evalRun('other-file', { started: '2026-12-02T00:00:00Z', experiment: { path: '../../other.seed.yaml', sha256: '0'.repeat(64) } }, [{ split: 'valid_seen', step: null }]),
    evalRun('failed', { started: '2026-12-02T00:00:00Z' }, [{ split: 'valid_seen', step: null }], false),
    { ...evalRun('train', { stage: 'train', started: '2026-12-02T00:00:00Z' }, [{ split: 'valid_seen', step: null }]) },
  ];
  const chosen = chooseBaselines(experiment, 'builtin:household-tiny', runs);
  assert.deepEqual([...chosen], [['valid_seen', path.join(root, 'runs', 'new-seen')], ['valid_unseen', path.join(root, 'runs', 'unseen')]]);
  assert.deepEqual(baselineArgs(chosen), ['--baseline-eval', path.join(root, 'runs', 'new-seen'), '--baseline-eval', path.join(root, 'runs', 'unseen')]);
  assert.equal(chooseBaselines(experiment, undefined, runs).size, 0);
});
