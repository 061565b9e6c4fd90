// Webview test of the evaluation samples' paired comparison (issue 54: Inspect-style, base against trained): "compare
// with" the linked base evaluation pairs the tasks, says what flipped each way with the paired change, filters to
// `lost`, and a row asks the host to open both episodes in the diff viewer. Screenshot:
// test-results/webview-eval-compare.png.
import assert from 'node:assert/strict';
import type { SampleRow } from '../../src/evalSamples/shared/evalSamples';
import { pairEvaluations } from '../../src/evalSamples/shared/pairedEvaluations';
import type { TestCase } from './run';

const TYPES = ['heat', 'cool', 'clean', 'look'];

function rows(): SampleRow[] {
  const base = { runDir: '/runs/base-eval-valid_seen', title: 'base-eval · valid_seen' };
  const out: SampleRow[] = [];
  for (let i = 0; i < 24; i += 1) {
    const task = `household-valid_seen-${i}-${TYPES[i % 4]}`;
    const before = i % 3 === 0;
    const after = i % 3 === 0 ? i !== 9 : i % 4 === 1; // one lost (task 9), several gained
    out.push({ trajectory: `eval-valid_seen-${String(i + 1).padStart(4, '0')}`, task, type: TYPES[i % 4]!, split: 'valid_seen', step: null, success: before, length: 12, reward: Number(before), source: base });
    out.push({ trajectory: `eval-000030-${String(i + 1).padStart(4, '0')}`, task, type: TYPES[i % 4]!, split: 'valid_seen', step: 30, success: after, length: after ? 8 : 20, reward: Number(after), ...(after ? {} : { why: 'ran out of steps (20/20) · 3 without effect' }) });
  }
  return out;
}

export const evalSamplesCompareTests: TestCase[] = [
  [
    'evaluation samples: compare with the base evaluation task by task, flips each way, filter, open both in the diff',
    async (context) => {
      const view = await context.open('evalSamples', { width: 1100, height: 800 });
      const all = rows();
      await view.send('samples', { run: 'demo · seed', rows: all, initial: 'valid_seen' });
      await view.waitFor('rendered');
      const options = (await view.page.$$eval('#compare vscode-option', (o) => o.map((x) => x.textContent ?? ''))).map((t) => t.replace(/[\u2068\u2069]/g, ''));
      assert.deepEqual(options, ['nothing', 'valid_seen · base evaluation (base-eval · valid_seen) (24)']);
      await view.page.evaluate(() => {
        const select = document.querySelector('#compare') as HTMLElement & { value: string };
        select.value = 'valid_seen@run:/runs/base-eval-valid_seen';
        select.dispatchEvent(new Event('change'));
      });
      const summary = view.page.locator('[data-k="compare-summary"]');
      await summary.waitFor();
      const expected = pairEvaluations(all.filter((r) => r.source), all.filter((r) => !r.source));
      assert.match((await summary.textContent()) ?? '', new RegExp(`on 24 paired tasks: ${expected.gained} gained, ${expected.lost} lost`));
      assert.equal(await view.page.locator('tr.pair').count(), 24);
      await view.page.locator('vscode-textfield#filter input').fill('lost');
      await view.page.locator('tr.pair').first().waitFor();
      assert.deepEqual(await view.page.$$eval('tr.pair', (r) => r.map((x) => x.getAttribute('data-task'))), ['household-valid_seen-9-cool']);
      await context.screenshot(view, 'eval-compare');
      await view.page.locator('tr.pair').first().click();
      const asked = await view.waitFor<{ a: { trajectory: string; runDir?: string }; b: { trajectory: string; runDir?: string } }>('compare');
      assert.deepEqual(asked, { a: { trajectory: 'eval-valid_seen-0010', runDir: '/runs/base-eval-valid_seen' }, b: { trajectory: 'eval-000030-0010' } });
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
];
