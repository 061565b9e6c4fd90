// Webview test of the diff view's labels (issue 54 item 7): a turn's action reads "well-formed" (format verification)
// with "no effect" where the environment answered "Nothing happens." (the last turn by its final observation), never
// "valid"; the step score carries its
// explanation; the per-episode B − A of the score and the advantage is said once, a row showing its own only where it
// differs; a gate difference that shows as 0.000 is not coloured as a loss. The screenshot is
// test-results/webview-diff-labels.png.
import assert from 'node:assert/strict';
import { decodeTokenArrays } from '../../src/runs/shared/tokenArrays';
import type { TestCase } from './run';
import { syntheticTrajectory } from './synthetic';
import { encodeFloat32 } from '../unit/support/tokenEncoding';

export const diffLabelTests: TestCase[] = [
  [
    'diff: well-formed / no effect badges, the score explained, episode deltas said once, a 0.000 Δg not red',
    async (context) => {
      const actions = ['go to fridge 1', 'open fridge 1', 'take mug 1 from fridge 1', 'go to microwave 1', 'heat mug 1 with microwave 1', 'go to cabinet 1'];
      const a = syntheticTrajectory({ id: 'it-000003-0001', actions, seed: 1, success: true, tokensPerTurn: 20 });
      const b = syntheticTrajectory({ id: 'it-000003-0002', actions, seed: 2, success: false, tokensPerTurn: 20 });
      for (const step of a.steps) Object.assign(step, { score: 10, advantage: 0.8, observation: 'You arrive somewhere.' });
      for (const step of b.steps) Object.assign(step, { score: 0, advantage: -0.8, observation: 'You arrive somewhere.' });
      b.steps[3]!.score = -0.1; // as if B's turn 4 were penalised: the one row whose Δscore is its own
      b.steps[3]!.observation = 'Nothing happens.'; // B's turn 3 had no effect
      b.final_observation = 'Nothing happens.'; // and so did its last turn, answered by the final observation
      // Turn 2: B's tokens are A's with one gate lowered by 0.001: mean Δg ≈ −5e-5, shown as 0.000.
      const gates = Array.from(decodeTokenArrays(a.steps[1]!.tokens!).gate!);
      gates[0] = gates[0]! - 0.001;
      b.steps[1]!.tokens = { ...a.steps[1]!.tokens!, gate: encodeFloat32(gates) };

      const view = await context.open('diff', { width: 1100, height: 800 });
      await view.send('show', { a: { runDir: '/runs/a', run: 'a', trajectory: a }, b: { runDir: '/runs/b', run: 'b', trajectory: b } });
      await view.waitFor('rendered');
      const badges = await view.page.locator('.cell .badge').allTextContents();
      assert.ok(!badges.includes('valid'), `badges: ${badges.join(', ')}`);
      assert.equal(badges.filter((text) => text === 'well-formed').length, 12);
      assert.deepEqual(await view.page.locator('.cell.side-b[data-turn="2"] .badge').allTextContents(), ['well-formed', 'no effect']);
      assert.deepEqual(await view.page.locator('.cell.side-b[data-turn="5"] .badge').allTextContents(), ['well-formed', 'no effect']);
      assert.deepEqual(await view.page.locator('.cell.side-a[data-turn="5"] .badge').allTextContents(), ['well-formed']);
      assert.match((await view.page.locator('.cell [data-k="score"]').first().getAttribute('title')) ?? '', /Step score = rl\.reward_scale/);
      assert.equal(await view.page.locator('[data-k="episode-deltas"] [data-k="episodeScore"]').textContent(), 'Δscore −10.00');
      assert.equal(await view.page.locator('[data-k="episode-deltas"] [data-k="episodeAdvantage"]').textContent(), 'Δadv −1.600');
      const rowScores = await view.page.$$eval('.row', (rows) => rows.map((row) => row.querySelector('[data-k="score"]:not(.cell [data-k="score"])')?.textContent ?? null));
      assert.deepEqual(rowScores, [null, null, null, 'Δscore −10.10', null, null]);
      assert.equal(await view.page.locator('.row [data-k="advantage"]').count(), 0, 'Δadv is the episode’s on every row');
      const gate = view.page.locator('.row[data-row="1"] [data-k="meanGate"]');
      assert.match((await gate.textContent()) ?? '', /^Δg −?0\.000$/);
      assert.equal(await gate.getAttribute('class'), 'delta zero');
      await context.screenshot(view, 'diff-labels');
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
];
