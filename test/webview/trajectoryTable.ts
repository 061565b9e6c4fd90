// Webview tests of the trajectory table (webview/trajectoryTable): sortable columns, a row opens the viewer, two checked rows
// are compared.
import assert from 'node:assert/strict';
import type { TableRow } from '../../src/trajectoryTable/shared/trajectoryTable';
import type { TestCase } from './run';

function row(id: string, fields: Partial<TableRow>): TableRow {
  return { id, task: `household/${id}`, type: 'heat', success: false, length: 3, tokens: 40, skill: 'valid', meanGate: 0.5, ...fields };
}

export const tableTests: TestCase[] = [
  [
    'trajectory table: sort by mean g and by steps, open a row, compare two checked rows',
    async (context) => {
      const rows = [row('it-1', { meanGate: 0.52, length: 7, success: true }), row('it-2', { meanGate: 0.61, length: 2 }), row('it-3', { meanGate: null, length: 4, skill: 'none' })];
      const view = await context.open('trajectoryTable');
      await view.send('rows', { run: 'demo · seed', batch: 'Update 1', rows });
      await view.waitFor('rendered');
      const ids = () => view.page.$$eval('tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')));
      assert.deepEqual(await ids(), ['it-1', 'it-2', 'it-3']);
      await view.page.click('th[data-key="meanGate"]');
      await view.page.click('th[data-key="meanGate"]');
      assert.equal(await view.page.getAttribute('th[data-key="meanGate"]', 'aria-sort'), 'descending');
      assert.deepEqual(await ids(), ['it-2', 'it-1', 'it-3']);
      assert.equal(await view.page.textContent('tr[data-id="it-3"] td[data-key="meanGate"]'), '—');
      await view.page.click('th[data-key="length"]');
      assert.deepEqual(await ids(), ['it-2', 'it-3', 'it-1']);
      await view.page.click('tr[data-id="it-3"] td[data-key="task"]');
      assert.deepEqual(await view.waitFor('open'), { id: 'it-3' });
      assert.equal(await view.page.isDisabled('[data-action="compare"]'), true);
      await view.page.check('tr[data-id="it-1"] input[type="checkbox"]');
      await view.page.check('tr[data-id="it-2"] input[type="checkbox"]');
      await view.page.click('[data-action="compare"]');
      assert.deepEqual(await view.waitFor('compare'), { a: 'it-1', b: 'it-2' });
      await context.screenshot(view, 'trajectory-table');
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
];
