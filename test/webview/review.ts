// Webview tests of the skill review (webview/review): cards for every record, counts, filters by outcome / task type /
// state / text, and the decisions it posts to the host (accept, reject, edit with text, open trajectory).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SkillRecord } from '../../src/runs/shared/types';
import { repoRoot } from './harness';
import type { TestCase } from './run';

function fixtureRecords(): SkillRecord[] {
  const text = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'skills.jsonl'), 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line) as SkillRecord);
}

function message(records: SkillRecord[], readOnly: string | null = null) {
  return { file: 'runs/valid/skills.jsonl', run: 'valid', runDir: '/runs/valid', lines: records.map((record, index) => ({ line: index + 1, record })), problems: [], readOnly };
}

export const reviewTests: TestCase[] = [
  [
    'review: one card per record with its state, counts, and decisions posted to the host',
    async (context) => {
      const records = fixtureRecords();
      const view = await context.open('review');
      await view.send('records', message(records));
      const report = await view.waitFor<{ records: number; shown: number }>('rendered');
      assert.equal(report.records, records.length);
      assert.equal(await view.page.locator('.card[data-id]').count(), records.length);
      for (const record of records) {
        assert.equal(await view.page.locator(`.card[data-id="${record.id}"]`).getAttribute('data-state'), record.review.state);
      }
      assert.equal(await view.page.locator('[data-k="counts"] .state-accepted').textContent(), '1 accepted');
      assert.equal(await view.page.locator('[data-k="counts"] .state-pending').textContent(), '1 pending');
      const edited = records.find((r) => r.review.state === 'edited')!;
      assert.equal(await view.page.locator(`.card[data-id="${edited.id}"] [data-k="skill"]`).textContent(), edited.review.text);
      const invalid = records.find((r) => !r.valid)!;
      assert.equal(await view.page.locator(`.card[data-id="${invalid.id}"] [data-action="accept"]`).isDisabled(), true, 'an invalid record cannot be accepted');
      assert.match((await view.page.locator(`.card[data-id="${invalid.id}"] [data-k="reason"]`).textContent()) ?? '', /episode_skill empty/);

      const pending = records.find((r) => r.review.state === 'pending')!;
      const card = view.page.locator(`.card[data-id="${pending.id}"]`);
      await card.locator('[data-action="accept"]').click();
      assert.deepEqual(await view.waitFor('decide'), { id: pending.id, state: 'accepted' });
      await card.locator('[data-action="reject"]').click();
      assert.deepEqual(await view.waitFor('decide', 2), { id: pending.id, state: 'rejected' });
      await card.locator('[data-action="edit"]').click();
      const area = card.locator('textarea');
      assert.equal(await area.inputValue(), pending.skill);
      await area.fill('   ');
      assert.equal(await card.locator('[data-action="save-edit"]').isDisabled(), true, 'a blank edit cannot be saved');
      await area.fill('Heat first, then place.');
      await card.locator('[data-action="save-edit"]').click();
      assert.deepEqual(await view.waitFor('decide', 3), { id: pending.id, state: 'edited', text: 'Heat first, then place.' });
      await card.locator('[data-action="open"]').click();
      assert.deepEqual(await view.waitFor('openTrajectory'), { id: pending.id });
      assert.equal(await view.page.locator(`.card[data-id="collect-000001-0004"] [data-action="open"]`).isDisabled(), true, 'no trajectory kept');
      await card.locator('[data-action="what-if"]').click();
      assert.deepEqual(await view.waitFor('whatIf'), { id: pending.id });
      assert.equal(await view.page.locator(`.card[data-id="collect-000001-0004"] [data-action="what-if"]`).isDisabled(), true, 'no trajectory to rescore');

      // The host answers with the changed document: the card follows.
      const updated = records.map((r) => (r.id === pending.id ? { ...r, review: { state: 'accepted' as const, time: '2026-03-02T00:00:00.000Z' } } : r));
      await view.send('records', message(updated));
      await view.waitFor('rendered', 2);
      // Wait for the card and the counts to show the new state (the re-render may land a frame after the signal);
      // a timeout fails the test.
      await view.page.locator(`.card[data-id="${pending.id}"][data-state="accepted"]`).waitFor({ timeout: 5000 });
      await view.page.locator('[data-k="counts"] .state-accepted', { hasText: /^2 accepted$/ }).waitFor({ timeout: 5000 });
      await context.screenshot(view, 'review');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'review: filters by outcome, task type, state and text; keyboard decisions; read-only while collecting',
    async (context) => {
      const records = fixtureRecords();
      const view = await context.open('review');
      await view.send('records', message(records));
      await view.waitFor('rendered');
      const shown = () => view.page.$$eval('.card[data-id]', (cards) => cards.map((c) => c.getAttribute('data-id')));
      await view.page.selectOption('[data-filter="outcome"]', 'failure');
      assert.deepEqual(await shown(), records.filter((r) => !r.success).map((r) => r.id));
      await view.page.selectOption('[data-filter="outcome"]', 'all');
      await view.page.selectOption('[data-filter="taskType"]', 'clean');
      assert.deepEqual(await shown(), records.filter((r) => r.task.type === 'clean').map((r) => r.id));
      await view.page.selectOption('[data-filter="taskType"]', 'all');
      await view.page.selectOption('[data-filter="state"]', 'edited');
      assert.deepEqual(await shown(), records.filter((r) => r.review.state === 'edited').map((r) => r.id));
      await view.page.selectOption('[data-filter="state"]', 'all');
      await view.page.fill('[data-filter="text"]', 'sinkbasin');
      assert.deepEqual(await shown(), records.filter((r) => r.skill?.includes('sinkbasin')).map((r) => r.id));
      await view.page.fill('[data-filter="text"]', '');
      assert.equal((await shown()).length, records.length);

      await view.page.locator('body').click({ position: { x: 5, y: 5 } });
      await view.page.keyboard.press('j');
      await view.page.keyboard.press('a');
      assert.deepEqual(await view.waitFor('decide'), { id: records[0]!.id, state: 'accepted' });
      await view.page.keyboard.press('j');
      await view.page.keyboard.press('r');
      assert.deepEqual(await view.waitFor('decide', 2), { id: records[1]!.id, state: 'rejected' });

      await view.send('records', message(records, 'run valid is still collecting'));
      await view.waitFor('rendered', 2);
      assert.match((await view.page.locator('.readonly').textContent()) ?? '', /still collecting/);
      assert.equal(await view.page.locator('[data-action="accept"]:not(:disabled)').count(), 0);
      assert.equal(await view.page.locator('[data-action="reject"]:not(:disabled)').count(), 0);
    },
  ],
  [
    'review: a 700-character task type does not widen the page; the filter shows it cut, the full text on hover',
    async (context) => {
      const records = fixtureRecords();
      const long = `${'very-long-task-type-'.repeat(35)}`;
      const hostile = records.map((record, index) => (index === 0 ? { ...record, task: { ...record.task, type: long } } : record));
      const view = await context.open('review');
      await view.send('records', message(hostile));
      await view.waitFor('rendered');
      const widths = await view.page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));
      assert.ok(widths.page <= widths.viewport, `the page is ${widths.page} px wide in a ${widths.viewport} px viewport`);
      const option = view.page.locator(`[data-filter="taskType"] option[value="${long}"]`);
      assert.equal(await option.getAttribute('title'), long);
      assert.ok(((await option.textContent()) ?? '').endsWith('…'));
      await view.page.selectOption('[data-filter="taskType"]', long);
      assert.equal(await view.page.locator('[data-filter="taskType"]').getAttribute('title'), long);
    },
  ],
  [
    'review: bulk accept / reject of the filtered set in one message; identical skills grouped with their own bulk actions',
    async (context) => {
      const base = fixtureRecords();
      // 30 records: 3 skills written ten times each (with case / spacing / final-period variants), every 7th invalid.
      const skills = ['Take the mug first, then heat it.', 'Open the fridge before looking inside.', 'Go to the sinkbasin and clean the object.'];
      const records = Array.from({ length: 30 }, (_, i) => {
        const text = skills[i % 3]!;
        const variant = i % 2 ? text.toLowerCase().replace(/\.$/, '') : text;
        const valid = i % 7 !== 3;
        return { ...base[0]!, id: `r-${String(i).padStart(2, '0')}`, success: i % 2 === 0, skill: valid ? variant : null, valid, review: { state: 'pending' as const } };
      });
      const view = await context.open('review', { width: 1100, height: 900 });
      await view.send('records', message(records));
      await view.waitFor('rendered');
      await view.page.selectOption('[data-filter="outcome"]', 'failure');
      const failures = records.filter((r) => !r.success);
      const acceptShown = view.page.locator('[data-k="bulk"] [data-action="bulk-accept"]');
      assert.equal(await acceptShown.textContent(), `Accept shown (${failures.filter((r) => r.valid).length})`);
      await acceptShown.click();
      assert.deepEqual(await view.waitFor('decideMany'), { ids: failures.filter((r) => r.valid).map((r) => r.id), state: 'accepted' });
      await view.page.locator('[data-k="bulk"] [data-action="bulk-reject"]').click();
      assert.deepEqual(await view.waitFor('decideMany', 2), { ids: failures.map((r) => r.id), state: 'rejected' });
      await view.page.selectOption('[data-filter="outcome"]', 'all');
      await view.page.locator('[data-action="group"]').check();
      const sizes = await view.page.$$eval('section.group', (groups) => groups.map((g) => Number(g.getAttribute('data-size'))));
      const invalid = records.filter((r) => !r.valid).length;
      assert.equal(sizes.reduce((a, b) => a + b, 0), records.length);
      assert.equal(sizes.length, 4, `three skills (variants together) and the invalid ones: ${sizes.join(', ')}`);
      assert.ok(sizes.includes(invalid));
      const first = view.page.locator('section.group').first();
      const firstIds = await first.locator('.card[data-id]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id')));
      await first.locator('[data-action="bulk-reject"]').click();
      assert.deepEqual(await view.waitFor('decideMany', 3), { ids: firstIds, state: 'rejected' });
      await context.screenshot(view, 'review-grouped');
      assert.deepEqual(view.errors, []);
    },
  ],
];
