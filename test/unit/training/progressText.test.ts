// Issue 54 item 3: a live run's progress text; a model conversion before the first update is its own step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConverting, notificationMessage, progressText, statusBarText } from '../../../src/training/core/progressText';
import { runTitle } from '../../../src/runs/core/runLabel';
import type { RunEvent, RunManifest } from '../../../src/runs/shared/types';

const manifest = { status: 'running', progress: { step: 0, total: 3, unit: 'update' } } as unknown as RunManifest;
const event = (fields: Partial<RunEvent>): RunEvent => ({ time: '2026-01-01T00:00:00Z', type: 'progress', message: '', ...fields }) as RunEvent;

test('while SmolLM2 converts, the text says so instead of "update 0/3"', () => {
  const converting = event({ message: 'converting SmolLM2-135M-Instruct once (~540 MB, about half a minute on one CPU core)', phase: 'convert', done: 0, total: 1 });
  assert.equal(progressText(manifest, converting, undefined), converting.message);
  // Converted: the run's step alone until the first update's event, no "convert 1/1" phase.
  assert.equal(progressText(manifest, event({ message: 'converted', phase: 'convert', done: 1, total: 1 }), undefined), 'update 0/3');
  // The status bar says it too, instead of "0/3".
  assert.equal(isConverting(converting), true);
  assert.equal(statusBarText('smollm2-household · seed', { stopping: false, converting: true, progress: { step: 0, total: 3 }, success: '', others: 0 }), '$(loading~spin) SEED smollm2-household · seed · converting the model');
  assert.equal(statusBarText('smollm2-household · seed', { stopping: false, converting: isConverting(event({ phase: 'convert', done: 1, total: 1 })), progress: { step: 0, total: 3 }, success: '', others: 0 }), '$(loading~spin) SEED smollm2-household · seed 0/3');
});

test('otherwise the step, the phase and the latest success', () => {
  assert.equal(progressText(manifest, event({ phase: 'rollout', done: 2, total: 4 }), 0.25), 'update 0/3 · rollout 2/4 · success 25%');
  assert.equal(progressText({ ...manifest, status: 'stopping' } as RunManifest, undefined, undefined), 'stopping (checkpointing) · update 0/3');
  assert.equal(progressText(undefined, undefined, undefined), '');
});

test('the notification and the status bar name a run alike: the Runs tree’s title, not its id (issue 54 item 9)', () => {
  const live = { id: '20261206-234500-train-household-demo', name: 'household-demo', stage: 'train', algorithm: 'seed', status: 'running', progress: { step: 3, total: 30, unit: 'update' } } as unknown as RunManifest;
  const title = runTitle({ dir: `/w/runs/${live.id}`, manifest: live, metrics: [] }); // what runs.title(dir) starts from
  assert.equal(title, 'household-demo · seed');
  const bar = statusBarText(title, { stopping: false, progress: { step: 3, total: 30 }, success: ' · 40%', others: 1 });
  assert.equal(bar, '$(loading~spin) SEED household-demo · seed 3/30 · 40% +1');
  const message = notificationMessage(title, progressText(live, undefined, 0.4));
  assert.equal(message, 'household-demo · seed — update 3/30 · success 40%');
  for (const text of [bar, message]) assert.ok(!text.includes(live.id), text);
  // Before run.json is read the run's only name is its directory's, in both; a stop request pauses the icon.
  const early = runTitle({ dir: `/w/runs/${live.id}`, manifest: undefined, metrics: [] });
  assert.equal(notificationMessage(early, 'starting the trainer…'), `${live.id} — starting the trainer…`);
  assert.equal(statusBarText(early, { stopping: true, success: '', others: 0 }), `$(debug-pause) SEED ${live.id}`);
  assert.equal(notificationMessage(title, ''), title);
});
