// The before → after rows under a run in the Runs tree (issue 54 item 5: their intervals were cut at the default
// sidebar width): the split as the label, the change with its interval whole in the description, the words in the
// tooltip; and the width model the rows are fitted with, against what code-server drew.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowRoom, rowWidth } from '../../../src/common/core/sidebarWidth';
import type { BeforeAfter } from '../../../src/runs/core/beforeAfter';
import { points, successChange } from '../../../src/runs/shared/pairedChange';
import type { EvalReport } from '../../../src/runs/shared/types';
import { changeRow } from '../../../src/runsTree/core/changeRow';

test('the width model: the rows code-server drew at the default sidebar width, never less and at most 1.5 % more', () => {
  // Printed by test/ui/runsTables.ts (the row's end against its room) before the rows were fitted.
  const drawn: Array<[label: string, description: string, px: number]> = [
    ['bench-seed-s4 · seed', 'eval 58% / 50%', 236.2],
    ['bench-grpo-s4 · grpo', 'eval 55% / 40%', 234.0],
    ['bench-grpo-opsd-s1 · grpo_opsd', 'eval 63% / 40%', 307.8],
    ['valid_unseen 50% → 50%', '+0 [-130, +130] noise', 303.0],
  ];
  for (const [label, description, px] of drawn) {
    const estimate = rowWidth(label, description);
    assert.ok(estimate >= px - 0.1 && estimate <= px * 1.015, `${label} | ${description}: ${estimate.toFixed(1)} px, drawn ${px}`);
  }
  // The room measured there: 233 px at the top level, 8 px less per level.
  assert.deepEqual([rowRoom(1), rowRoom(2)], [233, 225]);
});

/** An evaluation of `outcomes` (1: success) over tasks t0, t1, … */
function report(split: string, outcomes: string): EvalReport {
  const episodes = [...outcomes].map((c, i) => ({ task: { id: `t${i}`, type: 'heat' }, success: c === '1', reward: Number(c), length: 3 }));
  const success = episodes.filter((e) => e.success).length / episodes.length;
  return { split, step: 30, time: '2026-03-01T12:00:00Z', overall: { success, n: episodes.length }, by_task_type: {}, episodes };
}

function linked(split: string, before: EvalReport | undefined, after: EvalReport | undefined): BeforeAfter {
  return { split, baseRun: '/w/runs/base', ...(before ? { before } : {}), ...(after ? { after } : {}), ...(before && after ? { change: successChange(after, before) } : {}) };
}

test('the demo\'s rows: the split, then before → after and the change with its interval, whole in the row', () => {
  // 120 tasks, as npm run demo evaluates: 68 → 70 won on valid_seen, 66 → 70 on valid_unseen.
  for (const [split, before, after] of [
    ['valid_seen', '1'.repeat(68) + '0'.repeat(52), '1'.repeat(64) + '0'.repeat(4) + '1'.repeat(6) + '0'.repeat(46)],
    ['valid_unseen', '1'.repeat(66) + '0'.repeat(54), '1'.repeat(62) + '0'.repeat(4) + '1'.repeat(8) + '0'.repeat(46)],
  ] as const) {
    const pair = linked(split, report(split, before), report(split, after));
    const change = pair.change!;
    const row = changeRow(pair);
    const pct = (x: number): string => String(Math.round(100 * x));
    assert.equal(row.label, split);
    assert.equal(row.description, `${pct(change.before)}→${pct(change.after)}% ${points(change.change)} [${points(change.low)}, ${points(change.high)}]`);
    assert.ok(rowWidth(row.label, row.description) <= rowRoom(2), `${row.label} | ${row.description}`);
    // Every word in the tooltip: both successes, the change, its interval, how it was paired, the verdict, the base.
    assert.match(row.tooltip, new RegExp(`success ${pct(change.before)}% before \\(base policy\\) → ${pct(change.after)}% after`));
    assert.ok(row.tooltip.includes(`[${points(change.low)}, ${points(change.high)}] paired over the same 120 tasks`), row.tooltip);
    assert.ok(row.tooltip.includes("inside the evaluation's noise") && row.tooltip.includes('base evaluation: /w/runs/base'), row.tooltip);
  }
});

test('where before → after does not fit, it gives way (the tooltip keeps it); then the split\'s middle; the change never', () => {
  // Four tasks, one gained and one lost (as test/fixtures/runs/valid-eval-*): an interval of three digits, ±130 points
  // as computed, printed cut at ±100 (a change in success cannot leave them; the tooltip says so).
  const pair = changeRow(linked('valid_unseen', report('valid_unseen', '0101'), report('valid_unseen', '1001')));
  assert.deepEqual([pair.label, pair.description], ['valid_unseen', '+0 [-100, +100]']);
  assert.match(pair.tooltip, /50% before \(base policy\) → 50% after; change \+0 points, 95 % interval \[-100, \+100\] \(cut at ±100 points, [^)]* is \[-130, \+130\]\) paired over the same 4 tasks/);
  const long = changeRow(linked('household_valid_unseen_long_tasks', report('s', '0101000011'), report('s', '1101010011')));
  assert.equal(long.label, 'househol…g_tasks');
  assert.equal(long.description, '+20 [-10, +50]');
  for (const row of [pair, long]) assert.ok(rowWidth(row.label, row.description) <= rowRoom(2), `${row.label} | ${row.description}`);
});

test('a row without a change says why in a few words', () => {
  const waiting = changeRow(linked('test_seen', report('test_seen', '0000'), undefined));
  assert.deepEqual([waiting.label, waiting.description], ['test_seen', 'no final evaluation yet']);
  assert.equal(waiting.tooltip, 'test_seen: no final evaluation yet.\nsuccess 0% before (base policy), n = 4\nbase evaluation: /w/runs/base');
  // A short split leaves room for the base's success.
  assert.equal(changeRow(linked('dev', report('dev', '0110'), undefined)).description, '50%→… no final evaluation yet');
  assert.equal(changeRow(linked('test_seen', undefined, undefined)).description, 'no base evaluation');
  const unreadable = changeRow({ split: 'test_seen', baseRun: '/w/runs/base', problem: 'base evaluation base: eval/test_seen.json: no such file' });
  assert.equal(unreadable.description, 'base unreadable', 'the long words do not fit beside test_seen');
  assert.match(unreadable.tooltip, /no such file/);
});
