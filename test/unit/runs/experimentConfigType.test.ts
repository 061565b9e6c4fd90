// The experiment's generated types (src/runs/shared/generated/experiment.ts, from schemas/experiment.schema.json)
// describe real experiments and run configs. Each literal below is checked twice: by the compiler against the type
// (npm run typecheck compiles test/), and here against the committed file it copies, so neither can drift alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readExperimentText } from '../../../src/experiments/core/experimentYaml';
import { RunReader } from '../../../src/runs/core/runReader';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { opdEstimatorOf } from '../../../src/runs/shared/opdEstimator';
import type { ExperimentConfig, RecordedExperiment } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

test('a committed example experiment is an ExperimentConfig', () => {
  const example: ExperimentConfig = {
    name: 'household-demo-stage2',
    seed: 0,
    runs_dir: '../runs',
    algorithm: 'seed',
    updates: 30,
    model: { path: '../runs/household-demo-sft/model', device: 'cpu' },
    environment: { name: 'household', options: { max_steps: 20 } },
    rollout: { tasks_per_update: 4, group_size: 8, max_steps: 20, history: 3, max_prompt_tokens: 1024, max_response_tokens: 48, temperature: 0.4 },
    analyzer: { kind: 'self', max_tokens: 192 },
    collect: { tasks_per_type: 4, rollouts_per_task: 4, tasks_per_batch: 12, temperature: 0.4 },
    sft: { epochs: 1, lr: 1e-4, batch_size: 8, micro_batch_size: 8, max_length: 2048 },
    rl: { lr: 1e-4, mini_batch_size: 256, micro_batch_size: 16 },
    opd: { lambda: 0.01, beta: 5 },
    eval: { tasks: 120, temperature: 0.4, every: 30, splits: ['valid_seen', 'valid_unseen'] },
    report_to: ['tensorboard'],
    checkpoint: { every: 30, keep_last: 1 },
  };
  const file = readFileSync(path.join(repoRoot, 'examples', 'household-demo-stage2.seed.yaml'), 'utf8');
  // The reader's mappings have no prototype (a key `__proto__` stays a key); the JSON round trip gives plain objects.
  assert.deepEqual(JSON.parse(JSON.stringify(readExperimentText(file).value)), example);
});

test("run.json's config is read as a RecordedExperiment, and a run older than a field lacks it", async () => {
  const recorded: RecordedExperiment = {
    name: 'household-seed',
    seed: 0,
    runs_dir: 'runs',
    algorithm: 'seed',
    updates: 2,
    model: { path: 'tiny-policy', dtype: 'float32', device: 'cpu' },
    rollout: { tasks_per_update: 2, group_size: 2, max_steps: 4, history: 2, max_response_tokens: 64 },
    opd: { lambda: 0.01, beta: 5 },
  };
  const reader = new RunReader(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), RunSchemas.load(path.join(repoRoot, 'schemas')));
  const { config } = await reader.readManifest();
  assert.deepEqual(config, recorded);
  // The fixture's trainer wrote no `opd.estimator` (nor `environment`): optional in the type, and the reader's default.
  assert.equal(config.opd?.estimator, undefined);
  assert.equal(opdEstimatorOf(config), 'sample');
  assert.equal(config.environment?.name, undefined);
  assert.equal(config.rollout?.max_steps, 4);
});
