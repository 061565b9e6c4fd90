// Webview tests of issue 54 item 6: a valid skill that reads as if written about another episode is flagged above
// the skill, in the trajectory viewer and in the skill review (src/runs/shared/skillRelevance.ts); a skill about its
// own task is not. Screenshots: test-results/webview-skill-mismatch-viewer.png, webview-skill-mismatch-review.png.
import assert from 'node:assert/strict';
import type { SkillRecord } from '../../src/runs/shared/types';
import type { TestCase } from './run';
import { syntheticTrajectory } from './synthetic';

const DEMO = {
  task: 'cool some lettuce and put it in garbagecan.',
  skill: 'Clean the pan with the fridge before you put it in the cabinet.',
  summary: 'Task: find two pencil and put them in drawer. Outcome: failure after 24 action(s).',
};

function record(id: string, skill: string, summary: string): SkillRecord {
  return {
    id,
    trajectory: { id, file: 'it-000030.jsonl' },
    task: { id: 'household/cool-lettuce-3', type: 'pick_cool_then_place_in_recep', description: DEMO.task },
    success: false,
    reward: 0,
    length: 20,
    source: 'self',
    summary,
    skill,
    valid: true,
    reason: null,
    time: '2026-03-01T12:00:30.000Z',
    review: { state: 'pending' },
  } as SkillRecord;
}

export const skillMismatchTests: TestCase[] = [
  [
    'viewer: a skill about another episode is flagged above it; one about its own task is not',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 20, tokensPerTurn: 8 });
      Object.assign(trajectory.task, { description: DEMO.task });
      Object.assign(trajectory.skill!, { text: DEMO.skill, summary: DEMO.summary });
      const view = await context.open('trajectory', { width: 1100, height: 700 });
      await view.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      await view.waitFor('rendered');
      const note = (await view.page.locator('.skill-panel [data-k="mismatch"]').textContent()) ?? '';
      assert.match(note, /^About another episode\? The episode summary does not name this task's lettuce and garbagecan\./);
      assert.match(note, /The skill names neither lettuce nor garbagecan\. The summary counts 24 actions; this episode had 20\./);
      await context.screenshot(view, 'skill-mismatch-viewer');

      Object.assign(trajectory.skill!, { text: 'Cool the lettuce in the fridge, then go to the garbagecan.', summary: 'Task: cool some lettuce and put it in garbagecan. Outcome: failure after 20 action(s).' });
      const own = await context.open('trajectory', { width: 1100, height: 700 });
      await own.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      await own.waitFor('rendered');
      assert.equal(await own.page.locator('[data-k="mismatch"]').count(), 0);
      assert.deepEqual([...view.errors, ...own.errors], []);
    },
  ],
  [
    'review: the skill review flags the same skill, and not its own task\'s',
    async (context) => {
      const review = await context.open('review', { width: 1000, height: 700 });
      const records = [record('it-000030-0001', DEMO.skill, DEMO.summary), record('it-000030-0002', 'Cool the lettuce first.', 'Task: cool some lettuce and put it in garbagecan. Outcome: failure after 20 action(s).')];
      await review.send('records', { file: 'skills.jsonl', run: 'valid', runDir: '/runs/valid', lines: records.map((r, index) => ({ line: index + 1, record: r })), problems: [], readOnly: null });
      await review.waitFor('rendered');
      assert.equal(await review.page.locator('.card[data-id="it-000030-0001"] [data-k="mismatch"]').count(), 1);
      assert.equal(await review.page.locator('.card[data-id="it-000030-0002"] [data-k="mismatch"]').count(), 0);
      await context.screenshot(review, 'skill-mismatch-review');
      assert.deepEqual(review.errors, []);
    },
  ],
];
