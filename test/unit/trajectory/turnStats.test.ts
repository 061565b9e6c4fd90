// Per-turn and per-trajectory summaries of the token arrays (mean g, fraction g > 0.5, mean Δ), checked by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TokenArrays } from '../../../src/runs/shared/tokenArrays';
import { encodeTokenArrays } from '../support/tokenEncoding';
import type { Trajectory } from '../../../src/runs/shared/types';
import { combineStats, meanAdvantage, statsOfArrays, stepStats, trajectoryStats } from '../../../src/trajectory/shared/turnStats';

function arrays(gate: number[], teacher = true): TokenArrays {
  const n = gate.length;
  const base: TokenArrays = { count: n, ids: new Int32Array(n), text: gate.map(() => 't'), logp: new Float32Array(gate.map(() => -1)) };
  return teacher ? { ...base, gate: new Float32Array(gate), delta: new Float32Array(gate.map((g) => g - 0.5)), teacherLogp: new Float32Array(gate.map(() => -0.5)) } : base;
}

const close = (actual: number | null, expected: number) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${actual} ≠ ${expected}`);

test('one turn: mean g, fraction strictly above 0.5, mean Δ and log-probs', () => {
  const stats = statsOfArrays(arrays([0.25, 0.5, 0.75, 1]));
  assert.equal(stats.tokens, 4);
  assert.equal(stats.teacher, true);
  close(stats.meanGate, 0.625);
  close(stats.fracGateAboveHalf, 0.5); // 0.75 and 1; 0.5 is not above
  close(stats.meanDelta, 0.125);
  close(stats.meanTeacherLogp, -0.5);
  close(stats.meanLogp, -1);
});

test('no arrays, or no teacher pass: no gate summary', () => {
  assert.deepEqual(statsOfArrays(undefined), { tokens: 0, teacher: false, meanGate: null, fracGateAboveHalf: null, meanDelta: null, meanTeacherLogp: null, meanLogp: null });
  const plain = statsOfArrays(arrays([0.9, 0.9], false));
  assert.equal(plain.teacher, false);
  assert.equal(plain.meanGate, null);
  assert.equal(plain.fracGateAboveHalf, null);
  close(plain.meanLogp, -1);
});

test('a trajectory weighs turns by their tokens; turns without a teacher pass do not dilute the gate', () => {
  const total = combineStats([statsOfArrays(arrays([1, 1, 1])), statsOfArrays(arrays([0])), statsOfArrays(arrays([0.2, 0.2], false)), statsOfArrays(undefined)]);
  assert.equal(total.tokens, 6);
  close(total.meanGate, 0.75);
  close(total.fracGateAboveHalf, 0.75);
  close(total.meanLogp, -1);
});

test('from a stored trajectory: decoded steps, the mean advantage', () => {
  const trajectory: Trajectory = {
    id: 't',
    phase: 'train',
    update: 1,
    task: { id: 'q', type: 'heat' },
    success: true,
    reward: 1,
    length: 2,
    steps: [
      { t: 0, observation: '', response: '', action: 'a', valid: true, advantage: 1, tokens: encodeTokenArrays(arrays([0, 1])) },
      { t: 1, observation: '', response: '', action: 'b', valid: true, advantage: 0 },
    ],
  };
  close(stepStats(trajectory.steps[0]!).meanGate, 0.5);
  const { turns, total } = trajectoryStats(trajectory);
  assert.equal(turns[1]!.tokens, 0);
  close(total.fracGateAboveHalf, 0.5);
  assert.equal(meanAdvantage(trajectory), 0.5);
  assert.equal(meanAdvantage({ ...trajectory, steps: [{ ...trajectory.steps[1]!, advantage: null }] }), null);
});
