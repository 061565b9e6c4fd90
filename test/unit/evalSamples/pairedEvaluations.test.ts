// Issue 54: two evaluations of the same tasks compared task by task (src/evalSamples/shared/pairedEvaluations.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pairEvaluations } from '../../../src/evalSamples/shared/pairedEvaluations';
import type { SampleRow } from '../../../src/evalSamples/shared/evalSamples';

const row = (task: string, success: boolean, step: number | null): SampleRow => ({ task, type: task.split('-')[0]!, split: 'valid_seen', step, success, length: 5, reward: Number(success) });

test('flips each way, the tasks both won or lost, the paired change, and the unpaired episodes', () => {
  const before = [row('heat-1', false, null), row('cool-2', true, null), row('heat-3', false, null), row('look-4', true, null), row('only-a', true, null)];
  const after = [row('look-4', false, 30), row('heat-3', true, 30), row('heat-1', true, 30), row('cool-2', true, 30), row('only-b', false, 30)];
  const compared = pairEvaluations(before, after);
  assert.deepEqual(compared.rows.map((r) => [r.task, r.change]), [['heat-1', 'gained'], ['cool-2', 'both won'], ['heat-3', 'gained'], ['look-4', 'lost']]);
  assert.deepEqual([compared.gained, compared.lost, compared.unpaired], [2, 1, { a: 1, b: 1 }]);
  // per-task differences +1, 0, +1, −1: mean 0.25, sd 0.957, t(3) 3.182 → half-width 1.523
  const [change, low, high] = compared.change!;
  assert.equal(change, 0.25);
  assert.ok(Math.abs(low - (0.25 - 1.5233)) < 1e-3 && Math.abs(high - (0.25 + 1.5233)) < 1e-3, `${low} ${high}`);
});

test('a task played twice pairs its episodes in order', () => {
  const compared = pairEvaluations([row('t-1', true, 0), row('t-1', false, 0)], [row('t-1', false, 9), row('t-1', false, 9)]);
  assert.deepEqual(compared.rows.map((r) => r.change), ['lost', 'both failed']);
});
