// LCS alignment of two trajectories by action: insertions, deletions, identical, empty, substitutions, the rows shown
// by the diff, the first divergence and the per-turn deltas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionKey, diffRows, diffTrajectories, episodeDeltas, firstDivergence, lcsAlign, ownDelta, type AlignOp } from '../../../src/diff/shared/align';
import { signClass } from '../../../src/trajectory/shared/format';
import type { TrajectoryStep } from '../../../src/runs/shared/types';
import { statsOfArrays } from '../../../src/trajectory/shared/turnStats';

const chars = (s: string) => [...s];
const align = (a: string, b: string) => lcsAlign(chars(a), chars(b), (x) => x);
const compact = (ops: AlignOp[]) => ops.map((op) => (op.kind === 'same' ? `=${op.a}${op.b}` : op.kind === 'removed' ? `-${op.a}` : `+${op.b}`)).join(' ');

/** Every element of both sides appears exactly once, in order, and `same` pairs are equal. */
function assertValid(a: string, b: string, ops: AlignOp[]): void {
  const seenA: number[] = [];
  const seenB: number[] = [];
  for (const op of ops) {
    if (op.kind !== 'inserted') seenA.push(op.a);
    if (op.kind !== 'removed') seenB.push(op.b);
    if (op.kind === 'same') assert.equal(a[op.a], b[op.b]);
  }
  assert.deepEqual(seenA, [...a].map((_, i) => i));
  assert.deepEqual(seenB, [...b].map((_, i) => i));
}

test('identical sequences align one to one', () => {
  const ops = align('abcd', 'abcd');
  assert.equal(compact(ops), '=00 =11 =22 =33');
});

test('empty sides: everything removed, or everything inserted, or nothing', () => {
  assert.deepEqual(align('', ''), []);
  assert.equal(compact(align('abc', '')), '-0 -1 -2');
  assert.equal(compact(align('', 'ab')), '+0 +1');
});

test('one inserted step does not cascade: the rest still pairs up', () => {
  const ops = align('abcdef', 'abXcdef');
  assert.equal(compact(ops), '=00 =11 +2 =23 =34 =45 =56');
  assertValid('abcdef', 'abXcdef', ops);
});

test('deletions in the middle and at both ends', () => {
  assert.equal(compact(align('abcdef', 'abdef')), '=00 =11 -2 =32 =43 =54');
  assert.equal(compact(align('abc', 'bc')), '-0 =10 =21');
  assert.equal(compact(align('abc', 'ab')), '=00 =11 -2');
});

test('a substitution is a removal then an insertion (removals listed first), paired as one changed row', () => {
  const ops = align('abc', 'aXc');
  assert.equal(compact(ops), '=00 -1 +1 =22');
  assert.deepEqual(diffRows(ops), [
    { kind: 'same', a: 0, b: 0 },
    { kind: 'changed', a: 1, b: 1 },
    { kind: 'same', a: 2, b: 2 },
  ]);
});

test('the alignment is a longest common subsequence (checked against brute force on small cases)', () => {
  const lcsLength = (a: string, b: string): number => {
    if (!a || !b) return 0;
    if (a[0] === b[0]) return 1 + lcsLength(a.slice(1), b.slice(1));
    return Math.max(lcsLength(a.slice(1), b), lcsLength(a, b.slice(1)));
  };
  const cases = [['abcbdab', 'bdcaba'], ['xmjyauz', 'mzjawxu'], ['aaaa', 'aa'], ['abab', 'baba'], ['go', 'og']];
  for (const [a, b] of cases) {
    const ops = align(a!, b!);
    assertValid(a!, b!, ops);
    assert.equal(ops.filter((op) => op.kind === 'same').length, lcsLength(a!, b!), `${a} vs ${b}`);
  }
});

test('rows: unequal runs of removals and insertions pair what they can, the rest stay removed / inserted', () => {
  const ops = align('aXYZb', 'aQb');
  assert.deepEqual(diffRows(ops).map((r) => r.kind), ['same', 'changed', 'removed', 'removed', 'same']);
  assert.deepEqual(diffRows(align('aXb', 'aPQRb')).map((r) => r.kind), ['same', 'changed', 'inserted', 'inserted', 'same']);
  assert.deepEqual(diffRows(align('ab', 'aPQb')).map((r) => r.kind), ['same', 'inserted', 'inserted', 'same']);
});

test('first divergence: the first row that is not the same; −1 when the actions agree', () => {
  assert.equal(firstDivergence(diffRows(align('abc', 'abc'))), -1);
  assert.equal(firstDivergence(diffRows(align('abcd', 'abXcd'))), 2);
  assert.equal(firstDivergence(diffRows(align('abc', 'Xbc'))), 0);
  assert.equal(firstDivergence(diffRows(align('', ''))), -1);
});

test('actions are compared trimmed, case- and space-insensitively; invalid steps share one key', () => {
  assert.equal(actionKey({ action: '  Go to   Countertop 1 ' }), actionKey({ action: 'go to countertop 1' }));
  assert.notEqual(actionKey({ action: 'go to countertop 1' }), actionKey({ action: 'go to countertop 2' }));
  assert.equal(actionKey({ action: null }), actionKey({ action: null }));
  assert.notEqual(actionKey({ action: null }), actionKey({ action: '' }));
});

function step(action: string | null, score: number, advantage: number | null): TrajectoryStep {
  return { t: 0, observation: '', response: '', action, valid: action !== null, score, advantage };
}

test('per-turn deltas are B − A of score, advantage and gate summaries, only on rows with both turns', () => {
  const a = { steps: [step('look', 10, 0.5), step('take mug', 10, 0.5), step('go', 10, 0.5)] };
  const b = { steps: [step('look', 0, -0.5), step('open drawer', 0, -0.5), step('take mug', 0, -0.5), step('go', 0, -0.5)] };
  const gates = (values: number[]) => statsOfArrays({ count: values.length, ids: new Int32Array(values.length), text: values.map(() => 'x'), gate: new Float32Array(values), delta: new Float32Array(values.length), teacherLogp: new Float32Array(values.length), logp: new Float32Array(values.length) });
  const statsA = [gates([0.5, 0.5]), gates([1, 0]), gates([0.25, 0.75])];
  const statsB = [gates([0.75, 0.75]), gates([0.5]), gates([0, 0]), gates([1, 1])];
  const diff = diffTrajectories(a, b, statsA, statsB);
  assert.deepEqual(diff.rows.map((r) => r.kind), ['same', 'inserted', 'same', 'same']);
  assert.equal(diff.firstDivergence, 1);
  assert.deepEqual(diff.counts, { same: 3, changed: 0, removed: 0, inserted: 1 });
  assert.equal(diff.deltas[1], null);
  assert.equal(diff.deltas[0]!.score, -10);
  assert.equal(diff.deltas[0]!.advantage, -1);
  assert.equal(diff.deltas[0]!.meanGate, 0.25);
  assert.equal(diff.deltas[0]!.fracGateAboveHalf, 1);
  assert.equal(diff.deltas[2]!.meanGate, -0.5); // take mug: A mean 0.5, B mean 0
  assert.equal(diff.deltas[3]!.meanGate, 0.5);
  assert.equal(diff.deltas[0]!.envReward, null, 'no env_reward recorded: no delta');
});

test('episodeDeltas: the most common B − A of score and advantage; ownDelta keeps only a row that differs', () => {
  const row = (score: number | null, advantage: number | null) => ({ score, envReward: null, advantage, meanGate: null, fracGateAboveHalf: null });
  const deltas = [row(-10, -1.6), row(-10, -1.6 + 1e-9), null, row(-10.1, -1.6), row(null, null)];
  const episode = episodeDeltas(deltas);
  assert.deepEqual(episode, { score: -10, advantage: -1.6 });
  assert.equal(ownDelta(-10, episode.score), null);
  assert.equal(ownDelta(-1.6 + 1e-9, episode.advantage), null, 'float noise is not a difference');
  assert.equal(ownDelta(-10.1, episode.score), -10.1);
  assert.deepEqual(episodeDeltas([null]), { score: null, advantage: null });
});

test('signClass: a difference that shows as zero at its precision is neither up nor down', () => {
  assert.equal(signClass(-0.00004, 3), 'zero');
  assert.equal(signClass(0.0006, 3), 'up');
  assert.equal(signClass(-0.0006, 3), 'down');
  assert.equal(signClass(0, 2), 'zero');
});
