// The dashboard's grouped runs (issue 54: "runs grouped by seed", as W&B groups them): the per-step mean and 95 %
// t-interval across a group's runs at the steps all of them reached, against numbers worked by hand (unequal lengths,
// a step written twice, a NaN, a group of one), the legend's words, the grouped CSV, a group's before → after, and
// the grouping of the dashboard's runs by the runs table's rule (runs/shared/runGrouping.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupedChartCsv } from '../../../src/dashboard/shared/csv';
import { groupedChanges } from '../../../src/dashboard/shared/groupedChange';
import type { BeforeAfterView } from '../../../src/dashboard/shared/protocol';
import { flattenConfig } from '../../../src/dashboard/shared/runComparison';
import { aggregateSteps, groupLineText, type StepSeries } from '../../../src/dashboard/shared/seriesGroups';
import { ALL_BUT_SEED, groupRuns, memberWord } from '../../../src/runs/shared/runGrouping';
import type { SuccessChange } from '../../../src/runs/shared/pairedChange';

const series = (points: Array<[number, number]>): StepSeries => ({ xs: points.map((p) => p[0]), ys: points.map((p) => p[1]), length: points.length });

const close = (actual: readonly number[] | undefined, expected: readonly number[], message: string): void => {
  assert.ok(actual && actual.length === expected.length, `${message}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
  actual.forEach((value, i) => assert.ok(Math.abs(value - expected[i]!) < 1e-5, `${message}[${i}]: ${value} ≠ ${expected[i]}`));
};

test('three runs of unequal length: mean and t-interval (t(2) = 4.303) at the steps all three reached', () => {
  const a = series([[1, 0.2], [2, 0.4], [3, 0.6], [4, 0.8]]);
  const b = series([[1, 0.4], [2, 0.6], [3, 0.8]]); // stopped at step 3
  const c = series([[1, 0.6], [2, 0.5], [3, 0.4], [4, 0.3], [5, 0.2]]);
  const grouped = aggregateSteps([a, b, c]);
  assert.deepEqual(grouped.xs, [1, 2, 3], 'steps 4 and 5 are not reached by every run');
  assert.equal(grouped.n, 3);
  close(grouped.mean, [0.4, 0.5, 0.6], 'mean');
  // step 1: sd 0.2, half width 4.303 · 0.2 / √3 = 0.496868; step 2: sd 0.1 → 0.248434; step 3: sd 0.2.
  close(grouped.low, [-0.096868, 0.251566, 0.103132], 'low');
  close(grouped.high, [0.896868, 0.748434, 1.096868], 'high');
  // A success rate keeps its interval inside [0, 1].
  const fraction = aggregateSteps([a, b, c], true);
  close(fraction.low, [0, 0.251566, 0.103132], 'low (fraction)');
  close(fraction.high, [0.896868, 0.748434, 1], 'high (fraction)');
  close(fraction.mean, [0.4, 0.5, 0.6], 'the mean is not moved by the clamp');
});

test('two runs: t(1) = 12.706; steps in common only; a step written twice counts with its last value; NaN is no value', () => {
  const resumed = series([[0, 9], [2, 1], [2, 3], [3, NaN], [4, 5]]); // step 2 written again after a resume
  const other = series([[1, 7], [2, 5], [3, 2], [4, 7]]);
  const grouped = aggregateSteps([resumed, other]);
  assert.deepEqual(grouped.xs, [2, 4], 'step 0 and 1 are one run\'s; step 3 is NaN in one');
  close(grouped.mean, [4, 6], 'mean');
  // step 2: values 3 and 5, sd √2, half width 12.706 · √2 / √2 = 12.706.
  close(grouped.low, [4 - 12.706, 6 - 12.706], 'low');
  close(grouped.high, [4 + 12.706, 6 + 12.706], 'high');
});

test('a group of one run is that run: its values, no interval, n = 1; no run: nothing', () => {
  const grouped = aggregateSteps([series([[1, 0.3], [2, 0.5]])]);
  assert.deepEqual(grouped, { xs: [1, 2], mean: [0.3, 0.5], low: undefined, high: undefined, n: 1 });
  assert.deepEqual(aggregateSteps([]).xs, []);
  assert.deepEqual(aggregateSteps([series([[1, 1]]), series([[2, 1]])]).xs, [], 'no step in common');
});

test('the legend says what a group line is: mean of n seeds, its interval, the steps all reached; n = 1', () => {
  assert.equal(groupLineText(3, 8, 'seeds'), 'mean of 3 seeds, 95 % t-interval; steps all 3 reached');
  assert.equal(groupLineText(2, 8, 'seeds'), 'mean of 2 seeds, 95 % t-interval; steps both reached');
  assert.equal(groupLineText(3, 1, 'runs', true), 'mean of 3 runs, 95 % t-interval; evaluations all 3 reached');
  assert.equal(groupLineText(3, 0, 'seeds'), '3 seeds, no step all 3 reached');
  assert.equal(groupLineText(1, 10, 'seed'), '1 seed (n=1)');
  assert.equal(memberWord(ALL_BUT_SEED, 3), 'seeds');
  assert.equal(memberWord('config:algorithm', 1), 'run');
});

test('the grouped CSV: step, group, series, n, mean, low, high (and the smoothed mean when smoothed)', () => {
  const raw = aggregateSteps([series([[1, 0.2], [2, 0.5]]), series([[1, 0.4], [2, 0.5]]), series([[1, 0.6], [2, 0.5]])]);
  const one = aggregateSteps([series([[1, 0.1]])]);
  const csv = groupedChartCsv('step', [
    { group: 'algorithm=grpo, rollout.group_size=8', series: 'overall', raw, smoothed: raw },
    { group: 'algorithm=seed', series: 'overall', raw: one },
  ]);
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], 'step,group,series,n,mean,low,high,smoothed_mean,smoothed_low,smoothed_high');
  const first = lines[1]!.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  assert.deepEqual(first.slice(0, 4), ['1', '"algorithm=grpo, rollout.group_size=8"', 'overall', '3']);
  close(first.slice(4).map(Number), [0.4, -0.096868, 0.896868, 0.4, -0.096868, 0.896868], 'step 1');
  assert.equal(lines[2], '2,"algorithm=grpo, rollout.group_size=8",overall,3,0.5,0.5,0.5,0.5,0.5,0.5', 'no spread: the interval is the mean');
  assert.equal(lines[3], '1,algorithm=seed,overall,1,0.1,,,,,', 'a group of one: no interval');
});

const change = (before: number, after: number): SuccessChange => ({ before, after, change: after - before, low: after - before - 0.1, high: after - before + 0.1, paired: true, nAfter: 60, nBefore: 60, verdict: 'noise' });
const view = (split: string, c?: SuccessChange): BeforeAfterView => ({ split, baseRun: 'base', before: { success: c?.before ?? 0.4, n: 60 }, ...(c ? { after: { success: c.after, n: 60 }, change: c } : {}) });

test("a group's before → after: mean before, after and change with its t-interval across the runs", () => {
  const [noise, better] = groupedChanges([
    [view('valid_seen', change(0.4, 0.5)), view('valid_unseen', change(0.3, 0.5))],
    [view('valid_seen', change(0.4, 0.6)), view('valid_unseen', change(0.3, 0.55))],
    [view('valid_seen', change(0.4, 0.7)), view('valid_unseen', change(0.3, 0.6))],
  ]);
  // valid_seen: changes 0.1, 0.2, 0.3 → mean 0.2, sd 0.1, half width 0.248434: the interval holds 0.
  assert.equal(noise?.split, 'valid_seen');
  assert.equal(noise?.n, 3);
  close([noise!.before!.mean, noise!.after!.mean, noise!.change!.mean, noise!.change!.low!, noise!.change!.high!], [0.4, 0.6, 0.2, -0.048434, 0.448434], 'valid_seen');
  assert.equal(noise?.verdict, 'noise');
  // valid_unseen: changes 0.2, 0.25, 0.3 → sd 0.05, half width 0.124217: [0.125783, 0.374217] leaves out 0.
  close([better!.change!.mean, better!.change!.low!, better!.change!.high!], [0.25, 0.125783, 0.374217], 'valid_unseen');
  assert.equal(better?.verdict, 'better');
  // A run without its final evaluation yet is not in the mean; one run left has no interval.
  const [pending] = groupedChanges([[view('valid_seen', change(0.4, 0.5))], [view('valid_seen')]]);
  assert.deepEqual([pending?.n, pending?.verdict, pending?.change?.low], [1, 'one run', undefined]);
});

test("the dashboard's runs group by the runs table's rule: all but seed from their nested configs", () => {
  const run = (name: string, config: object) => ({ name, config: flattenConfig(config) });
  const runs = [
    run('grpo-s0', { name: 'arms', seed: 0, algorithm: 'grpo', rollout: { group_size: 8 } }),
    run('seed-s1', { name: 'arms', seed: 1, algorithm: 'seed', rollout: { group_size: 8 } }),
    run('grpo-s1', { name: 'arms', seed: 1, algorithm: 'grpo', rollout: { group_size: 8 } }),
    run('seed-s0', { name: 'arms', seed: 0, algorithm: 'seed', rollout: { group_size: 8 } }),
    run('odd', { name: 'odd', seed: 0, algorithm: 'seed', rollout: { group_size: 4 } }),
  ];
  const groups = groupRuns(runs, ALL_BUT_SEED);
  assert.deepEqual(
    groups.map((g) => [g.label, g.rows.map((r) => r.name)]),
    [
      ['algorithm=grpo, rollout.group_size=8', ['grpo-s0', 'grpo-s1']],
      ['algorithm=seed, rollout.group_size=4', ['odd']],
      ['algorithm=seed, rollout.group_size=8', ['seed-s1', 'seed-s0']],
    ],
  );
  assert.deepEqual(groupRuns(runs, 'config:seed').map((g) => [g.label, g.rows.length]), [['seed=0', 3], ['seed=1', 2]]);
});
