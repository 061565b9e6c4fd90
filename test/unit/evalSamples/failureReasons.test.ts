// Issue 54: the evaluation samples' "why it failed" column (src/evalSamples/shared/failureReasons.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnoseEpisode, failureText, type EpisodeStep } from '../../../src/evalSamples/shared/failureReasons';
import { filterSamples, type SampleRow } from '../../../src/evalSamples/shared/evalSamples';

const step = (action: string | null, observation: string): EpisodeStep => ({ action, valid: action !== null, observation });

test('a looping episode that ran out of steps, with actions that had no effect and a malformed turn', () => {
  // results: step i's is step i+1's observation; the last one's the final observation
  const steps = [
    step('go to cabinet 1', 'You are in the middle of a room.'),
    step('open cabinet 1', 'You arrive at cabinet 1.'),
    step('go to cabinet 1', 'Nothing happens.'),
    step(null, 'Nothing happens.'),
    step('go to cabinet 1', 'You arrive at cabinet 1.'),
    step('take mug 1 from cabinet 1', 'Nothing happens.'),
  ];
  const diagnosis = diagnoseEpisode(steps, 'Nothing happens.', 6);
  assert.deepEqual(diagnosis, { steps: 6, outOfSteps: true, noEffect: 4, malformed: 1, repeated: { action: 'go to cabinet 1', times: 3 } });
  // open, the second go to, the third go to and take were answered "Nothing happens."; the malformed turn's reply
  // is not an action without effect
  assert.equal(failureText(diagnosis, 6), 'ran out of steps (6/6) · 4 without effect · “go to cabinet 1” ×3 · 1 malformed');
});

test('an episode that ended early says so, with nothing else to report', () => {
  const diagnosis = diagnoseEpisode([step('look', 'You are in a room.'), step('go to sink 1', 'You see a sink.')], 'You arrive at sink 1.', 20);
  assert.equal(failureText(diagnosis, 20), 'ended after 2 steps');
  assert.equal(diagnosis.repeated, undefined);
});

test('the filter finds episodes by why they failed', () => {
  const row = (task: string, why?: string): SampleRow => ({ task, type: 't', split: 'valid_seen', step: 10, success: false, length: 20, reward: 0, ...(why ? { why } : {}) });
  const rows = [row('a', 'ran out of steps (20/20) · 7 without effect'), row('b', 'ended after 3 steps'), row('c')];
  assert.deepEqual(filterSamples(rows, 'without effect').map((r) => r.task), ['a']);
  assert.deepEqual(filterSamples(rows, '-ran').map((r) => r.task), ['b', 'c']);
});
