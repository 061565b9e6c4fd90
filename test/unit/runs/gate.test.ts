// The one gate of the extension (src/runs/shared/gate.ts), against hand-computed values: g = σ(β·Δ), Δ = ℓ^skill − ℓ^θ.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GATE_CENTRE, gateOf, gateOfDelta, summarizeGates } from '../../../src/runs/shared/gate';

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-7) =>
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < tolerance, `${actual} ≠ ${expected}`);

test('g = σ(β·Δ): ½ at Δ = 0 and for β = 0, symmetric, saturating without overflow', () => {
  assert.equal(gateOfDelta(0, 5), GATE_CENTRE);
  assert.equal(gateOfDelta(3, 0), GATE_CENTRE); // GRPO+OPSD: every gate is ½
  close(gateOfDelta(0.2, 5), 0.7310585786300049); // σ(1) = e / (1 + e)
  close(gateOfDelta(-1, 5), 0.0066928509242848554); // σ(−5)
  close(gateOfDelta(0.4, 5) + gateOfDelta(-0.4, 5), 1, 1e-12);
  assert.equal(gateOfDelta(-1000, 5), 0);
  assert.equal(gateOfDelta(1000, 5), 1);
});

test('gateOf: Δ and g per token from the teacher and student log-probs', () => {
  const { delta, gate } = gateOf([-1, -2, -0.5], [-1.2, -1.8, -0.5], 5);
  close(delta[0], 0.2, 1e-6);
  close(delta[1], -0.2, 1e-6);
  assert.equal(delta[2], 0);
  close(gate[0], 0.7310585786300049, 1e-6); // float32
  close(gate[1], 1 - 0.7310585786300049, 1e-6);
  assert.equal(gate[2], 0.5);
  assert.throws(() => gateOf([-1, -2], [-1], 5), /gateOf: 2 teacher and 1 student log-probs/);
});

test('summarizeGates weighs every token of every part once; strictly above ½ counts', () => {
  const part = (gate: number[], delta: number[]) => ({ gate: new Float32Array(gate), delta: new Float32Array(delta) });
  const summary = summarizeGates([part([0.25, 0.5, 1], [-0.2, 0, 0.5]), part([0.75], [0.3])]);
  assert.equal(summary.tokens, 4);
  close(summary.meanGate, 0.625);
  close(summary.fracAboveHalf, 0.5); // 1 and 0.75; 0.5 is not above
  close(summary.meanDelta, 0.15);
  assert.deepEqual(summarizeGates([part([], [])]), { tokens: 0, meanGate: null, fracAboveHalf: null, meanDelta: null });
});
