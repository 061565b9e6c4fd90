// A turn's action is judged by the environment's reply to it: the next step's observation, and for the last turn the
// trajectory's final observation (issue 54 item 7: the last turn's "no effect" was never shown, its reply being read
// from a next step that does not exist).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionResult } from '../../../src/runs/shared/actionResult';
import { actionBadges } from '../../../src/trajectory/shared/format';

const episode = {
  steps: [{ observation: 'You are in the middle of a room.' }, { observation: 'Nothing happens.' }, { observation: 'On the countertop 1, you see a mug 1.' }],
  final_observation: 'Nothing happens.',
};
const badgesOfTurns = (trajectory: typeof episode | Omit<typeof episode, 'final_observation'>): string[] =>
  trajectory.steps.map((_, index) => actionBadges(true, actionResult(trajectory, index)).map((badge) => badge.text).join('+'));

test('the reply to a turn is the next observation; to the last turn, the final observation', () => {
  assert.deepEqual([0, 1, 2].map((index) => actionResult(episode, index)), ['Nothing happens.', 'On the countertop 1, you see a mug 1.', 'Nothing happens.']);
  assert.equal(actionResult(episode, 3), undefined);
  assert.equal(actionResult({ steps: episode.steps }, 2), undefined, 'no final observation recorded: no reply known');
});

test('"no effect" on every turn the environment answered "Nothing happens.", the last one included', () => {
  assert.deepEqual(badgesOfTurns(episode), ['well-formed+no effect', 'well-formed', 'well-formed+no effect']);
  assert.deepEqual(badgesOfTurns({ steps: episode.steps }), ['well-formed+no effect', 'well-formed', 'well-formed']);
  // A malformed action is not judged by its reply.
  assert.deepEqual(actionBadges(false, 'Nothing happens.').map((badge) => badge.text), ['malformed']);
});
