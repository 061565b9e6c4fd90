// Webview tests of the dashboard's panels and exports (issue 54 item 9): a live run linked to its base evaluation
// keeps the base out of its own "eval <split>" row (it is the before/after panel's "before" and the evaluation chart's
// update 0); the comparison lists only the config sections a run's stage reads; an exported PNG is at least 1200 px
// wide.
import assert from 'node:assert/strict';
import { baselineRows } from '../../src/dashboard/shared/evaluation';
import type { EvalReport } from '../../src/runs/shared/types';
import { evalRow, evaluation, run, updateRow } from './dashboardHelpers';
import type { WebviewPage } from './harness';
import type { TestCase } from './run';

/** The cells of the comparison table's row labelled `label` (none when the table has no such row). */
async function comparisonRow(view: WebviewPage, label: string): Promise<string[] | undefined> {
  return view.page.evaluate((wanted) => {
    const rows = [...document.querySelectorAll<HTMLTableRowElement>('.comparison-panel tbody tr')];
    const row = rows.find((tr) => tr.querySelector('th')?.textContent === wanted);
    return row ? [...row.querySelectorAll('td')].map((td) => td.textContent ?? '') : undefined;
  }, label);
}

const baseReport = { overall: { success: 0.4, n: 60, mean_length: 9 }, by_task_type: { pick_and_place: { success: 0.5, n: 10, mean_length: 8 } } } as Pick<EvalReport, 'overall' | 'by_task_type'>;

export const dashboardPanelTests: TestCase[] = [
  [
    'dashboard: a live run linked to its base evaluation shows the base as before, never as its own eval row',
    async (context) => {
      // Issue 54 item 9: while the run trained, its "eval valid_seen" row showed the base evaluation's 0.4.
      const view = await context.open('dashboard', { width: 1300, height: 1200 });
      const a = run('/runs/a', { status: 'running', name: 'demo · seed' });
      await view.send('runs', { overlaid: [a], available: [a] });
      // What the host sends (dashboardPanel.ts sendMetrics): the run's own rows, the base evaluations apart.
      const baseline = baselineRows([{ split: 'valid_seen', before: baseReport }], a.started);
      await view.send('metrics', { run: a.key, rows: [updateRow(1, 0.3), updateRow(2, 0.35)], reset: true, baseline });
      await view.send('evaluations', { run: a.key, reports: [], beforeAfter: [{ split: 'valid_seen', baseRun: 'demo-base-valid_seen', before: { success: 0.4, n: 60 } }] });
      // Wait for what the assertions read (the before/after row, the chart's update 0), not for a first redraw: on a
      // slow page (SEED_WEBVIEW_MESSAGE_DELAY_MS) that may come before the last messages.
      await view.page.locator('.before-after-panel td', { hasText: '40% (n=60)' }).waitFor();
      await view.page.locator('.comparison-panel th', { hasText: /^last step$/ }).waitFor();
      assert.equal(await comparisonRow(view, 'eval valid_seen'), undefined, 'no evaluation of its own yet: no eval row');
      const pair = await view.page.locator('.before-after-panel tbody tr td').allTextContents();
      assert.deepEqual(pair.slice(0, 3), ['valid_seen', '40% (n=60)', '…'], 'the base evaluation is the before');
      await view.page.waitForFunction(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('.card[data-chart="eval"] canvas');
        const chart = canvas && (window as unknown as { __seedCharts?: Map<HTMLCanvasElement, { data: { datasets: Array<{ data: Array<{ x: number }> }> } }> }).__seedCharts?.get(canvas);
        return chart?.data.datasets.some((d) => d.data.some((p) => p.x === 0)) === true;
      });
      // Its own end-of-run evaluation arrives: the row shows it, and only it.
      await view.send('metrics', { run: a.key, rows: [updateRow(3, 0.4), evalRow(3, 'valid_seen', 0.55)], reset: false });
      await view.send('evaluations', { run: a.key, reports: [evaluation('valid_seen', 3, 0.55, 60)] });
      await view.page.locator('.comparison-panel th', { hasText: /^eval valid_seen$/ }).waitFor();
      assert.deepEqual(await comparisonRow(view, 'eval valid_seen'), ['0.55']);
      // A rewritten metrics.jsonl (reset) keeps the base out too.
      await view.send('metrics', { run: a.key, rows: [updateRow(1, 0.3)], reset: true, baseline });
      await view.page.locator('.comparison-panel th', { hasText: /^eval valid_seen$/ }).waitFor({ state: 'detached' });
      assert.equal(await comparisonRow(view, 'eval valid_seen'), undefined);
      assert.deepEqual(await comparisonRow(view, 'last step'), ['1']);
      await context.screenshot(view, 'dashboard-live-baseline');
      assert.deepEqual(view.errors, []);
    },
  ],
];
