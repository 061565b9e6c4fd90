// The runs table's groups (issue 54: "runs grouped by seed", as W&B groups them): grouping by a config key and "all
// but seed" (two arms × 3 seeds and one odd run that forms its own group), the labels (only the keys that differ
// between groups), the 95 % t-interval across runs against hand-computed numbers, a group row's cells, sorting groups
// and the runs inside them, the filter keeping groups with a matching run, and the grouped CSV.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wilsonInterval } from '../../../src/dashboard/shared/evaluation';
import type { SuccessChange } from '../../../src/runs/shared/pairedChange';
import { GROUP_DELTA_TITLE, filterGroups, groupCell, groupCount, groupEstimate, groupIntervalTitle, groupsCsv, sortGroups, type RunGroup } from '../../../src/runsTable/shared/runGroups';
import { ALL_BUT_SEED, groupRuns, groupingOf, groupingOptions, tInterval } from '../../../src/runs/shared/runGrouping';
import type { RunsTableRow } from '../../../src/runsTable/shared/runsTable';

const close = (actual: number | undefined, expected: number, message?: string): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-4, `${message ?? ''} ${actual} ≠ ${expected}`);
};

function run(id: string, config: Record<string, string>, success: number, metric?: number): RunsTableRow {
  const successes = Math.round(success * 120);
  return {
    key: `/runs/${id}`,
    id,
    title: id,
    stage: 'train',
    algorithm: config['algorithm'] ?? '?',
    status: 'completed',
    tags: [],
    // What names the run differs in every run: the name, the SFT output it starts from (`model.path`), a description.
    config: { name: id, runs_dir: 'runs', description: `run ${id}`, 'model.path': `runs/sft-${id}`, ...config },
    metrics: metric === undefined ? {} : { 'success/overall': metric },
    evals: { valid_seen: { success, n: 120, interval: wilsonInterval(successes, 120) } },
    changes: {},
  };
}

const grpo = { algorithm: 'grpo', 'opd.estimator': 'sampled', 'rollout.group_size': '8' };
const seed = { algorithm: 'seed', 'opd.estimator': 'expected', 'rollout.group_size': '8' };
/** Two arms × 3 seeds and one odd run (another group size). */
function rows(): RunsTableRow[] {
  return [
    run('grpo-s0', { ...grpo, seed: '0' }, 0.5, 1),
    run('grpo-s1', { ...grpo, seed: '1' }, 0.6, 2),
    run('grpo-s2', { ...grpo, seed: '2' }, 0.7, 6),
    run('seed-s0', { ...seed, seed: '0' }, 0.4, 0.2),
    run('seed-s1', { ...seed, seed: '1' }, 0.45, 0.4),
    run('seed-s2', { ...seed, seed: '2' }, 0.5),
    run('odd', { ...seed, 'rollout.group_size': '4', seed: '0' }, 0.3),
  ];
}

const LABEL_GRPO = 'algorithm=grpo, opd.estimator=sampled, rollout.group_size=8';
const LABEL_SEED = 'algorithm=seed, opd.estimator=expected, rollout.group_size=8';
const LABEL_ODD = 'algorithm=seed, opd.estimator=expected, rollout.group_size=4';
const byLabel = (groups: readonly RunGroup[], label: string): RunGroup => groups.find((g) => g.label === label)!;

test('the t-interval: mean ± t(n−1) · sd / √n (hand-computed)', () => {
  // 0.5, 0.6, 0.7: mean 0.6, sd 0.1, t(2) = 4.303, half-width 4.303 · 0.1 / √3 = 0.2484.
  const three = tInterval([0.5, 0.6, 0.7])!;
  close(three.mean, 0.6);
  close(three.sd, 0.1);
  close(three.high! - three.mean, 0.2484);
  close(three.low, 0.3516);
  close(three.high, 0.8484);
  assert.equal(three.n, 3);
  // 1, 2, 6: mean 3, sd √7 = 2.6458, half-width 4.303 · 2.6458 / √3 = 6.5729.
  const spread = tInterval([1, 2, 6])!;
  close(spread.sd, 2.6458);
  close(spread.low, -3.5729);
  close(spread.high, 9.5729);
  // Two values: t(1) = 12.706; 0.2 and 0.4: sd 0.1414, half-width 12.706 · 0.1414 / √2 = 1.2706.
  const two = tInterval([0.2, 0.4])!;
  close(two.low, 0.3 - 1.2706);
  close(two.high, 0.3 + 1.2706);
  // One value: no interval; none: nothing.
  assert.deepEqual(tInterval([0.42]), { mean: 0.42, n: 1 });
  assert.equal(tInterval([]), undefined);
});

test('grouping: all but seed — two arms × 3 seeds and an odd run of its own; labels name the keys that differ', () => {
  const groups = groupRuns(rows(), ALL_BUT_SEED);
  assert.deepEqual(
    groups.map((g) => [g.label, g.rows.map((r) => r.id), g.total]),
    [
      [LABEL_GRPO, ['grpo-s0', 'grpo-s1', 'grpo-s2'], 3],
      [LABEL_ODD, ['odd'], 1],
      [LABEL_SEED, ['seed-s0', 'seed-s1', 'seed-s2'], 3],
    ],
    'seed, name, runs_dir, description and model.path (a *.path) name the run: the seeds of an arm are one group',
  );
  assert.equal(new Set(groups.map((g) => g.id)).size, 3);
  // Without the odd run the group size no longer differs: it leaves the labels, the ids stay (the page keeps which
  // groups are expanded by them).
  const arms = groupRuns(rows().slice(0, 6), ALL_BUT_SEED);
  assert.deepEqual(arms.map((g) => g.label), ['algorithm=grpo, opd.estimator=sampled', 'algorithm=seed, opd.estimator=expected']);
  assert.deepEqual(arms.map((g) => g.id), [groups[0]!.id, groups[2]!.id]);
  assert.deepEqual(groupRuns(rows().slice(0, 3), ALL_BUT_SEED).map((g) => g.label), ['same config but the seed']);
  assert.deepEqual(groupRuns(rows(), ''), [], 'no grouping: no groups');
});

test('grouping: by one config key (a run without the key is a group of its own)', () => {
  const all = [...rows(), { ...run('bare', {}, 0.1), config: {} }];
  const groups = groupRuns(all, 'config:algorithm');
  assert.deepEqual(groups.map((g) => [g.label, g.rows.length]), [['algorithm=—', 1], ['algorithm=grpo', 3], ['algorithm=seed', 4]]);
  assert.deepEqual(groupRuns(rows(), 'config:rollout.group_size').map((g) => [g.label, g.rows.length]), [['rollout.group_size=4', 1], ['rollout.group_size=8', 6]]);
  const options = groupingOptions(rows());
  assert.deepEqual(options.slice(0, 2), [{ value: '', label: 'nothing' }, { value: ALL_BUT_SEED, label: 'all but seed' }]);
  assert.deepEqual(options.slice(2).map((o) => o.value), ['config:algorithm', 'config:description', 'config:model.path', 'config:name', 'config:opd.estimator', 'config:rollout.group_size', 'config:runs_dir', 'config:seed']);
  assert.equal(groupingOf(ALL_BUT_SEED, rows()), ALL_BUT_SEED);
  assert.equal(groupingOf('config:seed', rows()), 'config:seed');
  assert.equal(groupingOf('config:gone', rows()), '', 'a key no run has any more: no grouping');
  assert.equal(groupingOf(42, rows()), '');
});

test('group cells: mean [lo, hi] n=k across runs for measured columns, the shared value elsewhere', () => {
  const groups = groupRuns(rows(), ALL_BUT_SEED);
  const [grpoGroup, odd, seedGroup] = [byLabel(groups, LABEL_GRPO), byLabel(groups, LABEL_ODD), byLabel(groups, LABEL_SEED)];
  // Evaluation: the mean of the runs' success rates with the t-interval across runs (not the Wilson one).
  assert.deepEqual(groupCell(grpoGroup, 'eval:valid_seen'), { text: '60% [35, 85] n=3', title: groupIntervalTitle('eval:valid_seen') });
  assert.match(groupIntervalTitle('eval:valid_seen'), /t-interval across runs.*not the pooled-episode Wilson interval/);
  // 0.40, 0.45, 0.50: mean 0.45, sd 0.05, half-width 4.303 · 0.05 / √3 = 0.1242 → [33, 57].
  assert.equal(groupCell(seedGroup, 'eval:valid_seen').text, '45% [33, 57] n=3');
  assert.equal(groupCell(odd, 'eval:valid_seen').text, '30% n=1', 'one run: its value, no interval');
  // A metric: 1, 2, 6 → 3 [-3.573, 9.573]; a run without it is left out of n (0.2, 0.4 → n=2, t(1) = 12.706).
  assert.equal(groupCell(grpoGroup, 'metric:success/overall').text, '3 [-3.573, 9.573] n=3');
  assert.equal(groupCell(seedGroup, 'metric:success/overall').text, '0.3 [-0.9706, 1.571] n=2');
  assert.equal(groupCell(odd, 'metric:success/overall').text, '—');
  // Other columns: the value the runs share, else how many values.
  assert.deepEqual(groupCell(grpoGroup, 'config:algorithm'), { text: 'grpo' });
  assert.deepEqual(groupCell(grpoGroup, 'config:seed'), { text: '3 values', title: '0, 1, 2' });
  assert.deepEqual(groupCell(grpoGroup, 'status'), { text: 'completed' });
  assert.deepEqual(groupCell(grpoGroup, 'run'), { text: LABEL_GRPO });
  assert.equal(groupCount(grpoGroup), '3 runs');
  assert.equal(groupCount(odd), '1 run');
  assert.match(GROUP_DELTA_TITLE, /paired comparison between groups is out of scope/);
  // An evaluation's interval stays inside [0, 1]: 0.1 and 0.5 → 0.3 ± 2.54.
  const wide = groupEstimate({ id: 'x', label: 'x', total: 2, rows: [run('a', {}, 0.1), run('b', {}, 0.5)] }, 'eval:valid_seen')!;
  close(wide.mean, 0.3);
  assert.deepEqual([wide.low, wide.high], [0, 1]);
  assert.equal(groupEstimate(grpoGroup, 'config:seed'), undefined, 'a config key is not measured');
});

test('sorting: groups by their mean, the runs inside by the same column, empty last', () => {
  const groups = groupRuns(rows(), ALL_BUT_SEED);
  const down = sortGroups(groups, 'eval:valid_seen', 'descending');
  assert.deepEqual(down.map((g) => g.label), [LABEL_GRPO, LABEL_SEED, LABEL_ODD]); // 0.6, 0.45, 0.3
  assert.deepEqual(down[0]!.rows.map((r) => r.id), ['grpo-s2', 'grpo-s1', 'grpo-s0']);
  const up = sortGroups(groups, 'eval:valid_seen', 'ascending');
  assert.deepEqual(up.map((g) => g.label), [LABEL_ODD, LABEL_SEED, LABEL_GRPO]);
  assert.deepEqual(up[2]!.rows.map((r) => r.id), ['grpo-s0', 'grpo-s1', 'grpo-s2']);
  // The metric's means: 3 and 0.3; the odd group has none: last in both directions.
  assert.deepEqual(sortGroups(groups, 'metric:success/overall', 'ascending').map((g) => g.label), [LABEL_SEED, LABEL_GRPO, LABEL_ODD]);
  assert.deepEqual(sortGroups(groups, 'metric:success/overall', 'descending').map((g) => g.label), [LABEL_GRPO, LABEL_SEED, LABEL_ODD]);
  assert.deepEqual(sortGroups(groups, 'run', 'descending').map((g) => g.label), [LABEL_SEED, LABEL_ODD, LABEL_GRPO]);
  assert.equal(sortGroups(groups, 'eval:valid_seen', 'descending')[2]!.rows.length, 1);
});

test('the filter keeps a group with a matching run, and only its matching runs', () => {
  const groups = groupRuns(rows(), ALL_BUT_SEED);
  const shown = ['run', 'eval:valid_seen', 'config:algorithm'];
  const seedOne = filterGroups(groups, 'seed=1', shown);
  assert.deepEqual(seedOne.map((g) => [g.label, g.rows.map((r) => r.id)]), [[LABEL_GRPO, ['grpo-s1']], [LABEL_SEED, ['seed-s1']]]);
  assert.equal(groupCount(seedOne[0]!), '1 of 3 runs');
  const good = filterGroups(groups, 'valid_seen>55', shown);
  assert.deepEqual(good.map((g) => [g.label, g.rows.map((r) => r.id)]), [[LABEL_GRPO, ['grpo-s1', 'grpo-s2']]]);
  assert.equal(groupCell(good[0]!, 'eval:valid_seen').text.split(' ')[0], '65%', 'the mean is over the runs shown');
  assert.equal(filterGroups(groups, '', shown).length, 3);
  assert.deepEqual(filterGroups(groups, 'nothing-matches', shown), []);
});

/** RFC 4180 fields of one line (quoted fields may hold commas). */
function fields(line: string): string[] {
  const out = [''];
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      out[out.length - 1] += '"';
      i += 1;
    } else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) out.push('');
    else out[out.length - 1] += c;
  }
  return out;
}

test('CSV: a group column on every line, a (mean) line per group with mean, lo, hi, n', () => {
  const all = rows();
  const change: SuccessChange = { before: 0.3, after: 0.5, change: 0.2, low: 0.1, high: 0.3, paired: true, nAfter: 120, nBefore: 120, verdict: 'better' };
  all[0]!.changes = { valid_seen: change };
  const baselines = { valid_seen: '/runs/odd' };
  const groups = sortGroups(groupRuns(all, ALL_BUT_SEED), 'eval:valid_seen', 'descending');
  const csv = groupsCsv(groups.slice(0, 1), ['run', 'eval:valid_seen', 'metric:success/overall', 'config:algorithm', 'config:seed'], baselines);
  const lines = csv.trimEnd().split('\n').map(fields);
  assert.deepEqual(lines[0], [
    'group', 'id', 'dir', 'run',
    'eval valid_seen', 'eval valid_seen low', 'eval valid_seen high', 'eval valid_seen n',
    'Δ eval valid_seen (pp)', 'Δ eval valid_seen low', 'Δ eval valid_seen high', 'Δ eval valid_seen paired',
    'success/overall', 'success/overall low', 'success/overall high', 'success/overall n',
    'algorithm', 'seed',
  ]);
  assert.equal(lines.length, 1 + 1 + 3, 'header, the group line, its three runs');
  const mean = lines[1]!;
  assert.deepEqual([mean[0], mean[1], mean[2], mean[3]], [LABEL_GRPO, '(mean)', '', LABEL_GRPO]);
  close(Number(mean[4]), 0.6);
  close(Number(mean[5]), 0.3516);
  close(Number(mean[6]), 0.8484);
  assert.equal(mean[7], '3', 'n: runs');
  assert.deepEqual(mean.slice(8, 12), ['', '', '', ''], 'no Δ for a group');
  close(Number(mean[12]), 3);
  close(Number(mean[13]), -3.5729);
  close(Number(mean[14]), 9.5729);
  assert.equal(mean[15], '3');
  assert.deepEqual(mean.slice(16), ['grpo', ''], 'the shared value; the seeds differ');
  // Run lines (sorted within the group: 0.7, 0.6, 0.5) keep their Wilson interval, episodes and Δ.
  const s0 = lines[4]!;
  const wilson = wilsonInterval(60, 120);
  assert.deepEqual(s0, [LABEL_GRPO, 'grpo-s0', '/runs/grpo-s0', 'grpo-s0', '0.5', String(wilson.low), String(wilson.high), '120', '20', '10', '30', 'true', '1', '', '', '', 'grpo', '0']);
  assert.deepEqual(lines.slice(2).map((l) => l[1]), ['grpo-s2', 'grpo-s1', 'grpo-s0']);
});
