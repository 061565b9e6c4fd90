// The dashboard's y ranges: quantiles of sorted values, the outlier-robust range ("Robust y") against numbers worked
// out by hand, and the range a chart sets on a linear and a log axis.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartYRange, quantileOfSorted, robustRange } from '../../../src/dashboard/shared/robustRange';

const near = (actual: number | undefined, expected: number, message?: string): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${message ?? ''} ${actual} ≠ ${expected}`);
};
const from = (start: number, end: number): number[] => Array.from({ length: end - start + 1 }, (_, i) => start + i);

test('quantiles interpolate linearly between the two nearest ranks', () => {
  const sorted = [0.1, 0.3, 0.5, 0.7, 0.9];
  near(quantileOfSorted(sorted, 0.05), 0.14); // position 0.2
  near(quantileOfSorted(sorted, 0.25), 0.3);
  near(quantileOfSorted(sorted, 0.5), 0.5);
  near(quantileOfSorted(sorted, 0.95), 0.86); // position 3.8
  near(quantileOfSorted(sorted, 1), 0.9);
  assert.ok(Number.isNaN(quantileOfSorted([], 0.5)));
});

test('a spike in a short run is left out; the rest keeps a 5 % margin', () => {
  // 10..38 and 1000 (n = 30): q1 = 17.25, q3 = 31.75, fences −26.25 and 75.25; one point per end may go
  const range = robustRange([...from(10, 38), 1000]);
  assert.ok(range);
  near(range.min, 10 - 1.4);
  near(range.max, 38 + 1.4);
  assert.deepEqual([range.below, range.above], [0, 1]);
});

test('a trend and a wide spread keep every point', () => {
  const trend = robustRange([1, 5, 9]); // q1 3, q3 7: fences −9 and 19
  assert.ok(trend);
  near(trend.min, 0.6);
  near(trend.max, 9.4);
  const spread = robustRange(from(0, 99)); // fences −123.75 and 222.75
  assert.ok(spread);
  assert.deepEqual([spread.below, spread.above], [0, 0]);
  near(spread.min, -4.95);
  near(spread.max, 103.95);
});

test('at most 5 % of the points (at least one) go at each end, and only far-out ones', () => {
  // 30 points, two spikes: only the larger one may go (5 % of 30 is 1.5)
  const two = robustRange([...from(10, 37), 500, 1000]);
  assert.ok(two);
  near(two.max, 500 + 0.05 * 490);
  assert.equal(two.above, 1);
  // 200 points: ten may go at each end; the one spike at each end does
  const both = robustRange([-1e4, ...from(0, 197), 1e4]); // q1 48.75, q3 148.25: fences −249.75 and 446.75
  assert.ok(both);
  assert.deepEqual([both.below, both.above], [1, 1]);
  near(both.min, -9.85);
  near(both.max, 206.85);
  // 0 on 80 points, 10 on 20 (quartiles 0 and 0: every 10 is "far out"): only 5 of them go, 10 stays in view
  const structure = robustRange([...Array<number>(80).fill(0), ...Array<number>(20).fill(10)]);
  assert.ok(structure);
  assert.equal(structure.above, 5);
  near(structure.max, 10.5);
});

test('non-finite values are ignored; nothing finite gives no range', () => {
  const range = robustRange([Number.NaN, 1, Number.POSITIVE_INFINITY, 3]);
  assert.ok(range);
  near(range.min, 0.9);
  near(range.max, 3.1);
  assert.equal(robustRange([Number.NaN]), undefined);
  assert.equal(robustRange([]), undefined);
});

test('a chart’s y range: chart.js fits it unless robust or flat', () => {
  const spiky = [...from(10, 38), 1000];
  assert.equal(chartYRange(spiky, { robust: false, log: false }), undefined);
  assert.deepEqual(chartYRange(spiky, { robust: true, log: false }), { min: 10 - 1.4, max: 38 + 1.4 });
  // A flat series (float noise in the 16th digit) keeps a span of a tenth of its size, robust or not.
  for (const robust of [false, true]) {
    const flat = chartYRange([3, 3.0000000000000004, 3], { robust, log: false });
    assert.ok(flat);
    near(flat.min, 2.85);
    near(flat.max, 3.15);
  }
  // 0.5 everywhere but one spike: robust leaves the spike out and the flat rule gives the span.
  const spikeOnFlat = chartYRange([...Array<number>(20).fill(0.5), 40], { robust: true, log: false });
  assert.ok(spikeOnFlat);
  near(spikeOnFlat.min, 0.475);
  near(spikeOnFlat.max, 0.525);
});

test('on a log axis the robust range is taken in log10 over the positive values', () => {
  const values = [-5, 0, ...from(0, 29).map((k) => 10 ** k), 1e300]; // log10: 0..29 and 300 → 300 goes
  assert.equal(chartYRange(values, { robust: false, log: true }), undefined);
  const range = chartYRange(values, { robust: true, log: true });
  assert.ok(range);
  near(Math.log10(range.min), -1.45);
  near(Math.log10(range.max), 30.45);
});
