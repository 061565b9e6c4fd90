// The dashboard's vscode-free parts: Wilson intervals (checked against values worked by hand), axis ticks without
// floating-point noise, the run-comparison table's config differences and final metrics, CSV export.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanNumber, paddedRange, xTickLabel } from '../../../src/dashboard/shared/axis';
import { chartCsv } from '../../../src/dashboard/shared/csv';
import { formatCell, summarizeEval, wilsonInterval } from '../../../src/dashboard/shared/evaluation';
import { FINAL_METRICS, NOT_READ, configDifferences, differingKeys, finalMetrics, flattenConfig, stageReads } from '../../../src/dashboard/shared/runComparison';
import type { MetricRow, RecordedExperiment } from '../../../src/runs/shared/types';

function close(actual: number, expected: number, digits = 4): void {
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${actual} ≈ ${expected}`);
}

test('Wilson interval: 8 of 10 → [0.4902, 0.9433]; 0 of 10 → [0, 0.2775]; n = 0 → [0, 1]', () => {
  // By hand: p = 0.8, z² = 3.8416; centre = (0.8 + 0.19208)/1.38416 = 0.71674; half = 1.96/1.38416 · √(0.016 + 0.009604) = 0.22662.
  const eight = wilsonInterval(8, 10);
  close(eight.low, 0.4902);
  close(eight.high, 0.9433);
  const none = wilsonInterval(0, 10);
  close(none.low, 0);
  close(none.high, 0.2775);
  assert.deepEqual(wilsonInterval(0, 0), { low: 0, high: 1 });
  const all = wilsonInterval(24, 24);
  assert.ok(all.high === 1 && all.low > 0.85 && all.low < 0.87, JSON.stringify(all));
});

test('an evaluation report becomes cells with intervals, overall and per task type', () => {
  const summary = summarizeEval({ split: 'valid_seen', step: 4, overall: { success: 0.8, n: 10, mean_length: 5 }, by_task_type: { heat: { success: 0.5, n: 4, mean_length: 6 } } });
  assert.equal(formatCell(summary.overall), '80% [49–94] n=10');
  assert.equal(summary.byType.heat?.n, 4);
  assert.equal(formatCell(undefined), '—');
});

test('x ticks: whole steps only, no floating-point noise; a single point gets a range around it', () => {
  assert.equal(xTickLabel(3, 'step'), '3');
  assert.equal(xTickLabel(0.8200000000000001, 'step'), '');
  assert.equal(xTickLabel(0.8200000000000001, 'time'), '0.82 min');
  assert.equal(cleanNumber(0.30000000000000004), '0.3');
  assert.equal(cleanNumber(123456), '1.23e+5');
  assert.deepEqual(paddedRange(1, 1, 'step'), { min: 0, max: 2 });
  assert.equal(paddedRange(1, 5, 'step'), undefined);
});

test('comparison: only the config keys that differ; the last value of each metric; evaluations by split', () => {
  const a = flattenConfig({ algorithm: 'seed', opd: { beta: 5, lambda: 0.01 }, rollout: { group_size: 8 }, tags: ['x'] });
  const b = flattenConfig({ algorithm: 'grpo', opd: { beta: 5, lambda: 0.01 }, rollout: { group_size: 4 } });
  assert.equal(a['opd.beta'], '5');
  assert.deepEqual(differingKeys([a, b]), ['algorithm', 'rollout.group_size', 'tags']);
  const rows = [
    { step: 1, time: 't', kind: 'update', 'success/overall': 0.25, 'loss/opd': 0.02 },
    { step: 2, time: 't', kind: 'update', 'success/overall': 0.5, 'loss/opd': null },
    { step: 2, time: 't', kind: 'eval', split: 'valid_seen', 'success/overall': 0.75 },
  ] as unknown as MetricRow[];
  const final = finalMetrics(rows);
  assert.equal(final.step, 2);
  assert.deepEqual(final.values, { 'success/overall': 0.5, 'loss/opd': 0.02 });
  assert.deepEqual(final.evaluations, { valid_seen: 0.75 });
});

test('comparison: only the config sections a stage reads (issue 54 item 9: sft.* and collect.* of Stage-2 runs)', () => {
  const common: RecordedExperiment = { algorithm: 'seed', rollout: { group_size: 8 }, collect: { split: 'train' }, sft: { lr: 1e-5, data: 'runs/a' } };
  const a = { stage: 'train', config: { ...common, rl: { lr: 1e-6 } } };
  const b = { stage: 'train', config: { ...common, rl: { lr: 2e-6 }, collect: { split: 'valid_seen' }, sft: { lr: 2e-5, data: 'runs/b' } } };
  // The two Stage-2 runs' configs do differ in sft.* and collect.*, which their stage never reads.
  assert.deepEqual(differingKeys([flattenConfig(a.config), flattenConfig(b.config)]), ['collect.split', 'rl.lr', 'sft.data', 'sft.lr']);
  assert.deepEqual(configDifferences([a, b]), [{ key: 'rl.lr', cells: ['0.000001', '0.000002'] }]);
  // Stage 1's SFT reads rl.* (its non-finite guard) but no rollout: two SFT runs differ by sft.* only here.
  const sft = (lr: number, groupSize: number) => ({ stage: 'sft', config: { ...common, sft: { lr }, rollout: { group_size: groupSize } } });
  assert.deepEqual(configDifferences([sft(1e-5, 8), sft(3e-5, 4)]).map((row) => row.key), ['sft.lr']);
  // An eval run next to a train run: keys the eval does not read are not read, compared among the train runs only.
  const evaluation = { stage: 'eval', config: { ...common, rl: { lr: 5e-6 }, rollout: { group_size: 1 } } };
  const rows = configDifferences([a, b, evaluation]);
  assert.deepEqual(rows.find((row) => row.key === 'rl.lr')?.cells, ['0.000001', '0.000002', NOT_READ]);
  assert.deepEqual(rows.find((row) => row.key === 'rollout.group_size')?.cells, ['8', '8', '1']);
  assert.equal(rows.some((row) => row.key.startsWith('sft.') || row.key.startsWith('collect.')), false, JSON.stringify(rows));
  // A key read by one run only is no difference; a key missing from a run that reads it is.
  assert.deepEqual(configDifferences([a, evaluation]).map((row) => row.key), ['rollout.group_size']);
  assert.deepEqual(configDifferences([a, { stage: 'train', config: { algorithm: 'seed' } }]).find((row) => row.key === 'rl.lr')?.cells, ['0.000001', '∅']);
  assert.equal(stageReads('train', 'collect.split'), false);
  assert.equal(stageReads('eval', 'eval.tasks'), true);
  assert.equal(stageReads('unknown-stage', 'sft.lr'), true);
});

test('comparison: what the valid skills are about, listed after the parse rate; a null keeps the last value', () => {
  const names = FINAL_METRICS.map(([metric]) => metric);
  const parse = names.indexOf('skill/parse_rate');
  assert.deepEqual(names.slice(parse, parse + 3), ['skill/parse_rate', 'skill/summary_names_task', 'skill/names_task_target']);
  const labels = new Map(FINAL_METRICS);
  assert.ok(labels.get('skill/summary_names_task'));
  assert.ok(labels.get('skill/names_task_target'));
  assert.equal(new Set(FINAL_METRICS.map(([, label]) => label)).size, FINAL_METRICS.length);
  const rows = [
    { step: 1, time: 't', kind: 'update', 'skill/parse_rate': 0.5, 'skill/summary_names_task': 0.25, 'skill/names_task_target': 0.75 },
    { step: 2, time: 't', kind: 'update', 'skill/parse_rate': 0, 'skill/summary_names_task': null, 'skill/names_task_target': null },
  ] as unknown as MetricRow[];
  assert.deepEqual(finalMetrics(rows).values, { 'skill/parse_rate': 0, 'skill/summary_names_task': 0.25, 'skill/names_task_target': 0.75 });
});

test('CSV: one line per point, names with commas and quotes quoted', () => {
  const csv = chartCsv('step', [{ run: 'demo, "v2"', series: 'overall', xs: [1, 2], raw: [0.5, 1], smoothed: [0.5, 0.8] }]);
  assert.equal(csv, 'run,series,step,value,smoothed\n"demo, ""v2""",overall,1,0.5,0.5\n"demo, ""v2""",overall,2,1,0.8\n');
});
