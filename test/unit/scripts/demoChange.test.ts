// The demo summary's change in held-out success (scripts/lib/demoChange.mjs), against hand-computed numbers.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

type Interval = [number, number, number];
interface Episode { task: { id: string }; success: boolean }
interface Report { overall: { success: number; n: number }; episodes?: Episode[] }
interface Module {
  t975: (dof: number) => number;
  pairedByTask: (after: unknown, before: unknown) => Interval | null;
  differenceInterval: (after: { success: number; n: number }, before: { success: number; n: number }) => Interval;
  changeLine: (split: string, after: Report, before: Report) => string;
}

async function load(): Promise<Module> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'lib', 'demoChange.mjs')).href)) as Module;
}

function evaluation(outcomes: string, ids?: string[]): Report {
  const episodes = [...outcomes].map((c, i) => ({ task: { id: ids?.[i] ?? `t${i}` }, success: c === '1' }));
  const wins = episodes.filter((e) => e.success).length;
  return { overall: { success: wins / episodes.length, n: episodes.length }, episodes };
}

test('t975 is the table below 30 degrees of freedom and within 1e-3 of Student t above', async () => {
  const { t975 } = await load();
  assert.equal(t975(2), 4.303);
  assert.equal(t975(29), 2.045);
  // Student's t 0.975 quantiles: 30 → 2.0423, 119 → 1.9801, 599 → 1.9639.
  for (const [dof, t] of [[30, 2.0423], [119, 1.9801], [599, 1.9639]] as const) assert.ok(Math.abs(t975(dof) - t) < 1e-3, `${dof}`);
});

test('paired by task: the mean per-task difference with a t-interval, by hand', async () => {
  const { pairedByTask } = await load();
  // Per-task differences: +1, +1, 0, 0 → mean 0.5, sample sd sqrt(1/3), half-width 3.182 · 0.57735 / 2 = 0.91856.
  const paired = pairedByTask(evaluation('1100').episodes, evaluation('0000').episodes);
  assert.ok(paired);
  const [d, lo, hi] = paired;
  assert.ok(Math.abs(d - 0.5) < 1e-12);
  assert.ok(Math.abs(lo - (0.5 - 0.91856)) < 1e-4 && Math.abs(hi - (0.5 + 0.91856)) < 1e-4, `${lo} ${hi}`);
});

test('paired by task refuses other tasks, another order, another length or a non-boolean outcome', async () => {
  const { pairedByTask } = await load();
  const before = evaluation('0101');
  assert.equal(pairedByTask(evaluation('0101', ['t0', 't1', 't2', 'x']).episodes, before.episodes), null);
  assert.equal(pairedByTask(evaluation('0101', ['t1', 't0', 't2', 't3']).episodes, before.episodes), null);
  assert.equal(pairedByTask(evaluation('010').episodes, before.episodes), null);
  const odd = evaluation('0101').episodes!.map((e, i) => (i === 2 ? { ...e, success: 1 } : e));
  assert.equal(pairedByTask(odd, before.episodes), null);
  assert.equal(pairedByTask(undefined, before.episodes), null);
});

test('pairing narrows the interval of the same change when the tasks are the same', async () => {
  const { changeLine, differenceInterval, pairedByTask } = await load();
  // 60 tasks: the same 30 won before and after, and 9 more won after: +15 points either way.
  const before = evaluation('1'.repeat(30) + '0'.repeat(30));
  const after = evaluation('1'.repeat(39) + '0'.repeat(21));
  const [, pairedLo, pairedHi] = pairedByTask(after.episodes, before.episodes)!;
  const [, lo, hi] = differenceInterval(after.overall, before.overall);
  assert.ok(pairedHi - pairedLo < 0.6 * (hi - lo), `paired ${pairedLo}..${pairedHi}, unpaired ${lo}..${hi}`);
  assert.ok(lo < 0 && pairedLo > 0);
  const line = changeLine('valid_seen', after, before);
  assert.match(line, /valid_seen: \+15 points, 95 % interval \[\+6, \+24\] paired over the same 60 tasks — an improvement larger than its interval/);
  // Without episodes (or with other tasks) it falls back to the two-sample interval, and says so.
  const unpaired = changeLine('valid_seen', { overall: after.overall }, before);
  assert.match(unpaired, /\+15 points, 95 % interval \[-3, \+31\] 60 and 60 episodes — inside the evaluation's noise/);
});

test('a fall beyond its interval is called worse', async () => {
  const { changeLine } = await load();
  const line = changeLine('valid_unseen', evaluation('1'.repeat(20) + '0'.repeat(40)), evaluation('1'.repeat(40) + '0'.repeat(20)));
  assert.match(line, /valid_unseen: -33 points, .* — worse than before, beyond its interval\./);
});
