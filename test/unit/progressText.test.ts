// Issue 54 item 3: a live run's progress text; a model conversion before the first update is its own step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressText } from '../../src/training/core/progressText';
import type { RunEvent, RunManifest } from '../../src/runs/shared/types';

const manifest = { status: 'running', progress: { step: 0, total: 3, unit: 'update' } } as unknown as RunManifest;
const event = (fields: Partial<RunEvent>): RunEvent => ({ time: '2026-01-01T00:00:00Z', type: 'progress', message: '', ...fields }) as RunEvent;

test('while SmolLM2 converts, the text says so instead of "update 0/3"', () => {
  const converting = event({ message: 'converting SmolLM2-135M-Instruct once (~540 MB, about half a minute on one CPU core)', phase: 'convert', done: 0, total: 1 });
  assert.equal(progressText(manifest, converting, undefined), converting.message);
  assert.equal(progressText(manifest, event({ message: 'converted', phase: 'convert', done: 1, total: 1 }), undefined), 'update 0/3 · convert 1/1');
});

test('otherwise the step, the phase and the latest success', () => {
  assert.equal(progressText(manifest, event({ phase: 'rollout', done: 2, total: 4 }), 0.25), 'update 0/3 · rollout 2/4 · success 25%');
  assert.equal(progressText({ ...manifest, status: 'stopping' } as RunManifest, undefined, undefined), 'stopping (checkpointing) · update 0/3');
  assert.equal(progressText(undefined, undefined, undefined), '');
});
