// The virtualized turn list's arithmetic: offsets by prefix sums, measured heights replacing estimates, the rows in
// view, and the height estimate of wrapped text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualLayout, estimateTextHeight } from '../../../src/trajectory/shared/virtualLayout';

test('offsets are prefix sums of the estimates; total height; index at a y', () => {
  const layout = new VirtualLayout(5, (i) => (i + 1) * 10); // 10 20 30 40 50
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => layout.offsetOf(i)), [0, 10, 30, 60, 100, 150]);
  assert.equal(layout.totalHeight, 150);
  assert.equal(layout.indexAt(0), 0);
  assert.equal(layout.indexAt(9.9), 0);
  assert.equal(layout.indexAt(10), 1);
  assert.equal(layout.indexAt(149), 4);
  assert.equal(layout.indexAt(1000), 4);
  assert.equal(layout.indexAt(-5), 0);
});

test('a measured height moves the rows after it, not before', () => {
  const layout = new VirtualLayout(4, () => 100);
  assert.equal(layout.offsetOf(3), 300);
  assert.equal(layout.setHeight(1, 250), true);
  assert.equal(layout.setHeight(1, 250.2), false, 'sub-pixel changes are ignored');
  assert.deepEqual([0, 1, 2, 3].map((i) => layout.offsetOf(i)), [0, 100, 350, 450]);
  assert.equal(layout.totalHeight, 550);
  assert.equal(layout.heightOf(1), 250);
  assert.equal(layout.setHeight(9, 10), false, 'out of range');
});

test('visible range: rows intersecting the viewport plus overscan, end exclusive', () => {
  const layout = new VirtualLayout(100, () => 50); // 5000 px
  assert.deepEqual(layout.visibleRange(0, 200), { start: 0, end: 4 });
  assert.deepEqual(layout.visibleRange(25, 200), { start: 0, end: 5 });
  assert.deepEqual(layout.visibleRange(1000, 200, 100), { start: 18, end: 26 });
  assert.deepEqual(layout.visibleRange(4900, 400), { start: 98, end: 100 });
  assert.deepEqual(new VirtualLayout(0, () => 10).visibleRange(0, 100), { start: 0, end: 0 });
});

test('50 turns × 512 tokens: a viewport needs only a few rows', () => {
  const layout = new VirtualLayout(50, () => 900);
  const { start, end } = layout.visibleRange(20_000, 800, 600);
  assert.ok(end - start <= 4, `${end - start} rows`);
});

test('estimated height of wrapped text: lines × line height, empty lines count, empty text is 0', () => {
  assert.equal(estimateTextHeight('', 80, 18), 0);
  assert.equal(estimateTextHeight('short', 80, 18), 18);
  assert.equal(estimateTextHeight('x'.repeat(200), 80, 18), 3 * 18);
  assert.equal(estimateTextHeight('a\n\nb', 80, 18), 3 * 18);
  assert.equal(estimateTextHeight('x'.repeat(1 << 20), 100, 10), Math.ceil((1 << 20) / 100) * 10);
});
