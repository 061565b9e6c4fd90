// The dashboard's data path: metric rows → series, debiased smoothing, min-max decimation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DASHBOARD_CHARTS, chartOf, chartOfSeries, isPerTaskType, isUnsmoothed, metricPoints, seriesLabel } from '../../../src/dashboard/shared/charts';
import { Series, SmoothedSeries, liveColumnWidth, liveDecimate, minMaxDecimate } from '../../../src/dashboard/shared/series';
import type { MetricRow } from '../../../src/runs/shared/types';

function series(ys: number[], xs = ys.map((_, i) => i)): Series {
  const s = new Series(2);
  ys.forEach((y, i) => s.push(xs[i] ?? i, y));
  return s;
}

test('a short series comes back whole; NaN is skipped; the range clips', () => {
  assert.deepEqual(minMaxDecimate(series([1, 2, 3]), 10), [
    { x: 0, y: 1 },
    { x: 1, y: 2 },
    { x: 2, y: 3 },
  ]);
  assert.deepEqual(minMaxDecimate(series([1, Number.NaN, 3]), 10).map((p) => p.y), [1, 3]);
  assert.deepEqual(minMaxDecimate(series([1, 2, 3, 4]), 10, { xMin: 1, xMax: 2 }).map((p) => p.x), [1, 2]);
  assert.deepEqual(minMaxDecimate(new Series(), 10), []);
});

test('min-max decimation keeps first, min, max and last of each column, in x order', () => {
  // Two columns of 8 points each: column 0 holds x 0..7, column 1 holds x 8..15.
  const ys = [5, 9, 1, 4, 4, 4, 4, 6, /* column 1 */ 3, 3, 0, 3, 10, 3, 3, 2];
  const out = minMaxDecimate(series(ys), 2);
  assert.deepEqual(out, [
    { x: 0, y: 5 }, // first
    { x: 1, y: 9 }, // max
    { x: 2, y: 1 }, // min
    { x: 7, y: 6 }, // last
    { x: 8, y: 3 },
    { x: 10, y: 0 },
    { x: 12, y: 10 },
    { x: 15, y: 2 },
  ]);
});

test('a million points shrink to at most four per column and keep every extreme', () => {
  const n = 1_000_000;
  const s = new Series(16);
  for (let i = 0; i < n; i += 1) s.push(i, Math.sin(i / 1000) + (i === 777_777 ? 50 : 0) - (i === 123_456 ? 50 : 0));
  const columns = 800;
  const out = minMaxDecimate(s, columns);
  assert.ok(out.length <= columns * 4, `${out.length} points`);
  assert.ok(out.length >= columns * 2);
  assert.ok(out.some((p) => p.x === 777_777 && p.y > 49));
  assert.ok(out.some((p) => p.x === 123_456 && p.y < -49));
  for (let i = 1; i < out.length; i += 1) assert.ok((out[i]?.x ?? 0) > (out[i - 1]?.x ?? 0), 'strictly increasing x');
  assert.deepEqual(out[0], { x: 0, y: 0 });
  assert.equal(out[out.length - 1]?.x, n - 1);
});

test('debiased exponential smoothing, incremental and recomputed alike', () => {
  const smoothed = new SmoothedSeries(0.5);
  [1, 3, 5].forEach((y, i) => smoothed.push(i, y));
  // s1 = 0.5·1 = 0.5 → 0.5/(1-0.5) = 1; s2 = 0.25+1.5 = 1.75 → /0.75 = 2.333…; s3 = 0.875+2.5 = 3.375 → /0.875
  const values = Array.from(smoothed.smoothed.ys.subarray(0, 3));
  assert.deepEqual(values.map((v) => Number(v.toFixed(6))), [1, 2.333333, 3.857143]);
  const other = new SmoothedSeries(0);
  [1, 3, 5].forEach((y, i) => other.push(i, y));
  assert.deepEqual(Array.from(other.smoothed.ys.subarray(0, 3)), [1, 3, 5]);
  other.setSmoothing(0.5);
  assert.deepEqual(Array.from(other.smoothed.ys.subarray(0, 3)), values);
  other.clear();
  assert.equal(other.raw.length + other.smoothed.length, 0);
});

test('metric rows become points of the right charts; eval rows only where evaluation is plotted', () => {
  const update = { step: 3, time: 't', kind: 'update', 'success/overall': 0.5, 'success/pick_and_place': 0.25, 'loss/pg': -0.1, 'loss/opd': null, 'gate/frac_gt_half': 0.33, 'time/rollout': 2, 'tokens/total': 100 } as unknown as MetricRow;
  const points = metricPoints(update);
  assert.deepEqual(points.map((p) => [p.series, p.chart, p.x, p.y]), [
    ['success/overall', 'success', 3, 0.5],
    ['success/pick_and_place', 'success', 3, 0.25],
    ['loss/pg', 'pg', 3, -0.1],
    ['gate/frac_gt_half', 'gate-half', 3, 0.33],
    ['time/rollout', 'time', 3, 2],
  ]);
  const evalRow = { step: 3, time: 't', kind: 'eval', split: 'test_seen', 'success/overall': 0.8, 'episode/length': 7 } as unknown as MetricRow;
  assert.deepEqual(metricPoints(evalRow).map((p) => [p.series, p.split, p.chart]), [['eval:test_seen:success/overall', 'test_seen', 'eval']]);
  // Evaluation has its own chart: the training success chart never mixes in evaluation series.
  assert.equal(chartOfSeries('eval:test_seen:success/overall')?.id, 'eval');
  assert.equal(chartOfSeries('success/overall')?.id, 'success');
  assert.equal(isPerTaskType('eval:valid_seen:success/heat'), true);
  assert.equal(isPerTaskType('success/overall'), false);
  assert.equal(seriesLabel('eval:test_seen:success/overall'), 'eval test_seen · overall');
  assert.equal(seriesLabel('success/pick_and_place'), 'pick_and_place');
  assert.equal(chartOf('loss/sft_val')?.id, 'sft');
  // Every metric the issue names has a chart.
  for (const name of ['success/overall', 'episode/length', 'loss/pg', 'loss/kl', 'loss/entropy', 'loss/opd', 'gate/mean', 'gate/frac_gt_half', 'delta/mean', 'skill/parse_rate', 'skill/summary_names_task', 'skill/names_task_target', 'time/teacher']) {
    assert.ok(chartOf(name), name);
  }
  assert.equal(new Set(DASHBOARD_CHARTS.map((c) => c.id)).size, DASHBOARD_CHARTS.length);
  // Quantile strips: the median is the series (drawn as written), the other quantiles are the boxes, not lines.
  assert.equal(chartOf('gate/p50')?.quantiles, 'gate');
  assert.equal(chartOf('delta/p50')?.quantiles, 'delta');
  assert.equal(chartOf('gate/p95'), undefined);
  assert.equal(chartOf('delta/count'), undefined);
  assert.deepEqual(['delta/p50', 'eval:test_seen:success/overall', 'loss/pg', 'gate/mean'].map(isUnsmoothed), [true, true, false, false]);
});

test('the gate chart shows the mean baseline b beside the mean g when the estimator subtracts one', () => {
  const row = { step: 2, time: 't', kind: 'update', 'gate/mean': 0.47, 'opd/gate_baseline_mean': 0.44, 'opd/tail_mass': 0.01 } as unknown as MetricRow;
  assert.deepEqual(metricPoints(row).map((p) => [p.series, p.chart, p.y]), [
    ['gate/mean', 'gate', 0.47],
    ['opd/gate_baseline_mean', 'gate', 0.44],
  ]);
  assert.equal(chartOf('opd/gate_baseline_mean')?.fraction, true);
  assert.deepEqual([seriesLabel('gate/mean'), seriesLabel('opd/gate_baseline_mean')], ['mean g', 'mean b (subtracted from g)']);
  // `sample` runs write no baseline (and null before any valid skill): nothing is drawn for it.
  const sample = { step: 2, time: 't', kind: 'update', 'gate/mean': 0.47, 'opd/gate_baseline_mean': null } as unknown as MetricRow;
  assert.deepEqual(metricPoints(sample).map((p) => p.series), ['gate/mean']);
});

test('what the valid skills are about: both shares in one fraction chart right after the parse rate; null draws nothing', () => {
  const ids = DASHBOARD_CHARTS.map((c) => c.id);
  assert.equal(ids.indexOf('skill-relevance'), ids.indexOf('parse') + 1);
  const chart = DASHBOARD_CHARTS.find((c) => c.id === 'skill-relevance');
  assert.equal(chart?.fraction, true);
  assert.deepEqual(chart?.metrics, ['skill/summary_names_task', 'skill/names_task_target']);
  const row = { step: 4, time: 't', kind: 'update', 'skill/parse_rate': 0.875, 'skill/summary_names_task': 0.5, 'skill/names_task_target': 0.25 } as unknown as MetricRow;
  assert.deepEqual(metricPoints(row).map((p) => [p.series, p.chart, p.x, p.y]), [
    ['skill/parse_rate', 'parse', 4, 0.875],
    ['skill/summary_names_task', 'skill-relevance', 4, 0.5],
    ['skill/names_task_target', 'skill-relevance', 4, 0.25],
  ]);
  // Stage-1 collect rows carry them too.
  const collect = { step: 1, time: 't', kind: 'collect', 'skill/summary_names_task': 1, 'skill/names_task_target': 0.75 } as unknown as MetricRow;
  assert.deepEqual(metricPoints(collect).map((p) => [p.series, p.chart]), [
    ['skill/summary_names_task', 'skill-relevance'],
    ['skill/names_task_target', 'skill-relevance'],
  ]);
  // An update without a valid skill writes null: no point (as for every other metric), the parse rate still drawn.
  const none = { step: 5, time: 't', kind: 'update', 'skill/parse_rate': 0, 'skill/summary_names_task': null, 'skill/names_task_target': null } as unknown as MetricRow;
  assert.deepEqual(metricPoints(none).map((p) => p.series), ['skill/parse_rate']);
  assert.deepEqual(['skill/summary_names_task', 'skill/names_task_target'].map(seriesLabel), ['summary names the task', "skill names the task's object or receptacle"]);
});

/** The reference for liveDecimate: every point of [xMin, xMax] read once, grouped by grid column floor(x / width). */
function gridDecimate(series: Series, width: number, xMin: number, xMax: number): Array<{ x: number; y: number }> {
  const byColumn = new Map<number, number[]>();
  for (let i = 0; i < series.length; i += 1) {
    const x = series.xs[i]!;
    const y = series.ys[i]!;
    if (x < xMin || x > xMax || Number.isNaN(y)) continue;
    const c = Math.floor(x / width);
    const [first, lo, hi] = byColumn.get(c) ?? [i, i, i];
    byColumn.set(c, [first!, y < series.ys[lo!]! ? i : lo!, y > series.ys[hi!]! ? i : hi!, i]);
  }
  const out: Array<{ x: number; y: number }> = [];
  for (const indices of byColumn.values()) {
    for (const i of [...new Set(indices)].sort((a, b) => a - b)) out.push({ x: series.xs[i]!, y: series.ys[i]! });
  }
  return out;
}

test('live decimation keeps each column\'s first, extremes and last, over ranges and while points are appended one by one', () => {
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const series = new Series();
  const buckets = 300;
  const check = (range?: { xMin: number; xMax: number }): void => {
    const out = liveDecimate(series, buckets, range);
    const xMin = range?.xMin ?? series.xs[0]!;
    const xMax = range?.xMax ?? series.xs[series.length - 1]!;
    const width = liveColumnWidth(xMax - xMin, buckets);
    assert.ok(width <= (xMax - xMin) / buckets && width > (xMax - xMin) / buckets / 1.2, 'a column is at most a pixel column wide, and there are at most a fifth more');
    for (let i = 1; i < out.length; i += 1) assert.ok(out[i]!.x > out[i - 1]!.x, 'x order, each point once');
    assert.ok(out.length <= 4 * (1.2 * buckets + 2), `${out.length} points for ${buckets} buckets`);
    assert.deepEqual(out, gridDecimate(series, width, xMin, xMax), 'the very points a pass over every point picks');
  };
  for (let i = 0; i < 50_000; i += 1) series.push(i + 1, random() < 0.001 ? NaN : Math.sin(i / 500) + random());
  check();
  check({ xMin: 1234.5, xMax: 40_321 });
  check();
  // Live: one point at a time (the columns kept since the last call are reused), then a burst.
  for (let i = 50_000; i < 50_300; i += 1) {
    series.push(i + 1, random() < 0.01 ? NaN : random() * 3);
    check();
  }
  const width = series.columns?.width;
  for (let i = 50_300; i < 70_000; i += 1) series.push(i + 1, random() * 3);
  check();
  assert.notEqual(series.columns?.width, width, 'a range grown by more than a fifth has wider columns');
  assert.equal(series.pyramid?.covered, 70_000, 'the pyramid followed the appended points');
  // Zoomed while points arrive beyond the range: the range's columns do not change.
  check({ xMin: 10_000, xMax: 20_000 });
  series.push(70_001, 99);
  check({ xMin: 10_000, xMax: 20_000 });
  // Wall-time axes have fractional x.
  const minutes = new Series();
  for (let i = 0; i < 20_000; i += 1) minutes.push(i / 7, random());
  assert.deepEqual(liveDecimate(minutes, buckets), gridDecimate(minutes, liveColumnWidth(minutes.xs[19_999]!, buckets), 0, minutes.xs[19_999]!));
  series.clear();
  assert.equal(series.pyramid, undefined);
  assert.equal(series.columns, undefined);
  for (let i = 0; i < 100; i += 1) series.push(i, i);
  assert.equal(liveDecimate(series, buckets).length, 100, 'short series come back whole');
});
