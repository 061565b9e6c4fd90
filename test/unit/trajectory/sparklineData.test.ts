// The per-turn Δ sparkline's numbers (src/trajectory/shared/sparklineData.ts): columns keep every spike of a long turn, the
// range is shared by the turns, non-finite values are skipped, a click maps back to its token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedRange, sparkColumns, sparkSummary, tokenAt, yOf } from '../../../src/trajectory/shared/sparklineData';

test('columns: one per token for a short turn; min/max per column for a long one, so a single spike survives', () => {
  const short = Float32Array.from([0.5, -1, 0]);
  assert.deepEqual(sparkColumns(short, 100), [
    { token: 0, min: 0.5, max: 0.5 },
    { token: 1, min: -1, max: -1 },
    { token: 2, min: 0, max: 0 },
  ]);
  const long = new Float32Array(10_000);
  long[7_777] = -4;
  long[123] = 2.5;
  const columns = sparkColumns(long, 120);
  assert.equal(columns.length, 120);
  assert.equal(Math.min(...columns.map((c) => c.min)), -4, 'the spike is drawn');
  assert.equal(Math.max(...columns.map((c) => c.max)), 2.5);
  const spike = columns.find((c) => c.min === -4)!;
  assert.ok(spike.token <= 7_777 && 7_777 < spike.token + 10_000 / 120 + 1, `column from token ${spike.token}`);
  // Every token belongs to exactly one column.
  assert.deepEqual(columns.map((c) => c.token).slice(0, 3), [0, 83, 166]);
});

test('non-finite values are skipped; a column of only NaN draws nothing; an empty turn has no columns', () => {
  assert.deepEqual(sparkColumns(Float32Array.from([Number.NaN, 1, Infinity]), 3), [{ token: 1, min: 1, max: 1 }]);
  assert.deepEqual(sparkColumns(new Float32Array(0), 50), []);
  assert.deepEqual(sparkSummary(Float32Array.from([Number.NaN, -Infinity])), { finite: 0, peakToken: -1, peak: 0 });
  assert.deepEqual(sparkSummary(Float32Array.from([0.25, -0.75, 0.75, Number.NaN])), { finite: 3, peakToken: 1, peak: -0.75 }, 'the first of equal peaks');
});

test('the range is shared by the turns (the largest finite |Δ|), and y maps it to the strip with 0 in the middle', () => {
  assert.equal(sharedRange([Float32Array.from([0.2, -3]), undefined, Float32Array.from([Number.NaN, 1, -Infinity])]), 3);
  assert.equal(sharedRange([undefined]), 0);
  assert.equal(yOf(0, 3, 20), 10);
  assert.equal(yOf(3, 3, 20), 1);
  assert.equal(yOf(-3, 3, 20), 19);
  assert.equal(yOf(99, 3, 20), 1, 'clamped');
  assert.equal(yOf(1, 0, 20), 10, 'no range: the middle line');
});

test('a click maps to the token under it', () => {
  assert.equal(tokenAt(0, 200, 95), 0);
  assert.equal(tokenAt(199.9, 200, 95), 94);
  assert.equal(tokenAt(100, 200, 95), 47);
  assert.equal(tokenAt(250, 200, 95), 94, 'clamped');
  assert.equal(tokenAt(10, 200, 0), -1);
});
