// Issue 41 item 10 in Chromium: run text reaches the dashboard's "Runs compared" table, evaluation panel and chart
// legends inert (a run named "\u202Egnp.exe" must not read "exe.png"; a zero-width space in a task type is shown), and
// the trajectory table keeps a long unbroken task id inside the page (wrapped, the whole id in its title).
import assert from 'node:assert/strict';
import { wilsonInterval } from '../../src/dashboard/shared/evaluation';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import type { MetricRow } from '../../src/runs/shared/types';
import type { TableRow } from '../../src/trajectoryTable/shared/trajectoryTable';
import type { TestCase } from './run';

const RLO_NAME = '\u202Egnp.exe';
const ZW_TYPE = 'pick\u200Band_place';

function run(key: string, name: string): DashboardRun {
  return { key, id: key, name, stage: 'train', algorithm: 'seed', status: 'completed', started: '2026-11-30T10:00:00Z', config: { rollout: { group_size: key.length } } };
}

function row(step: number, kind: 'update' | 'eval'): MetricRow {
  return { step, time: '2026-11-30T10:30:00Z', kind, ...(kind === 'eval' ? { split: 'valid_seen' } : {}), 'success/overall': 0.5, [`success/${ZW_TYPE}`]: 0.25 } as unknown as MetricRow;
}

export const inertTests: TestCase[] = [
  [
    'inert text: bidi and zero-width characters of run names and task types are shown as markers in the dashboard',
    async (context) => {
      const view = await context.open('dashboard', { width: 1300, height: 1000 });
      await view.page.locator('#per-task-type').click(); // per task type is off by default (issue 54 item 5)
      const a = run('/runs/a', RLO_NAME);
      const b = run('/runs/bb', 'plain');
      await view.send('runs', { overlaid: [a, b], available: [a, b] });
      for (const r of [a, b]) {
        await view.send('metrics', { run: r.key, rows: [row(1, 'update'), row(2, 'update'), row(2, 'eval')], reset: true });
        const cell = { success: 0.5, n: 4, interval: wilsonInterval(2, 4) };
        await view.send('evaluations', { run: r.key, reports: [{ split: 'valid_seen', step: 2, overall: cell, byType: { [ZW_TYPE]: cell } }] });
      }
      await view.page.waitForFunction(() => document.querySelector('.comparison-panel thead th:nth-child(2)') !== null);
      await view.page.waitForTimeout(500);
      const header = await view.page.locator('.comparison-panel thead th').nth(1).textContent();
      assert.equal(header, '\u27E6U+202E\u27E7gnp.exe', 'the "Runs compared" header shows the override, not "exe.png"');
      const typeRows = await view.page.locator('.evaluation-panel tr.type-row th').allTextContents();
      assert.ok(typeRows.some((text) => text.includes('pick\u27E6U+200B\u27E7and_place')), `task-type rows: ${JSON.stringify(typeRows)}`);
      const legends = await view.page.locator('.legend-item').allTextContents();
      assert.ok(legends.length > 0, 'legends are drawn');
      for (const text of legends) {
        assert.ok(!/[\u200B\u202A-\u202E]/.test(text), `a legend shows a raw control: ${JSON.stringify(text)}`);
      }
      assert.ok(legends.some((text) => text.includes('\u27E6U+202E\u27E7')), `legends: ${JSON.stringify(legends.slice(0, 6))}`);
      assert.ok(legends.some((text) => text.includes('\u27E6U+200B\u27E7')), `per-task legends: ${JSON.stringify(legends)}`);
      const all = await view.page.evaluate(() => document.body.innerText);
      assert.ok(!/[\u200B\u202A-\u202E]/.test(all.replace(/[\u2068\u2069]/g, '')), 'no raw bidi or zero-width character anywhere on the page');
      await context.screenshot(view, 'dashboard-inert-names');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'inert text: the dashboard\'s note for runs without metrics shows a run name\'s bidi override as a marker',
    async (context) => {
      const view = await context.open('dashboard', { width: 1000, height: 700 });
      const failed: DashboardRun = { ...run('/runs/f', RLO_NAME), status: 'failed', error: `model ${RLO_NAME} not found` };
      await view.send('runs', { overlaid: [failed], available: [failed] });
      const note = view.page.locator('.empty-note');
      // The note is there before the message ("Waiting for metrics…"): wait for the sentence about the failed run.
      await note.filter({ hasText: 'It wrote no metrics.' }).waitFor({ state: 'visible' });
      const shown = (await note.textContent()) ?? '';
      assert.ok(shown.startsWith('\u2068'), `the name is isolated from the sentence: ${JSON.stringify(shown)}`);
      const text = shown.replace(/[\u2068\u2069]/g, '');
      assert.ok(text.includes('\u27E6U+202E\u27E7gnp.exe: failed'), `the note: ${JSON.stringify(text)}`);
      assert.ok(text.endsWith('It wrote no metrics.'), `the product's own words keep their order: ${JSON.stringify(text)}`);
      assert.ok(!/[\u202A-\u202E]/.test(text), `a raw override in the note: ${JSON.stringify(text)}`);
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'inert text: a long unbroken task id stays inside the trajectory table (cut with an ellipsis, whole in its title)',
    async (context) => {
      const long = `household/${'pick_heat_then_place_in_recep-'.repeat(8)}Microwave-12`;
      const rows: TableRow[] = [
        { id: 'it-1', task: long, type: 'heat', success: false, length: 3, tokens: 40, skill: 'valid', meanGate: 0.5 },
        { id: 'it-2', task: 'household/short', type: 'heat', success: true, length: 2, tokens: 30, skill: 'valid', meanGate: 0.6 },
      ];
      const view = await context.open('trajectoryTable', { width: 700, height: 500 });
      await view.send('rows', { run: 'demo · seed', batch: 'Update 1', rows });
      await view.waitFor('rendered');
      const overflow = await view.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the table overflows the page by ${overflow} px`);
      assert.equal(await view.page.getAttribute('tr[data-id="it-1"] td[data-key="task"]', 'title'), long);
      const cell = await view.page.$eval('tr[data-id="it-1"] td[data-key="task"]', (td) => ({ client: td.clientWidth, scroll: td.scrollWidth, height: td.getBoundingClientRect().height, ellipsis: getComputedStyle(td).textOverflow }));
      assert.equal(cell.ellipsis, 'ellipsis');
      assert.ok(cell.height < 40, `the task cell is one line (${cell.height} px high)`);
      await context.screenshot(view, 'trajectory-table-long-task');
      assert.deepEqual(view.errors, []);
    },
  ],
];
