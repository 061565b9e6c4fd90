// Webview test of the runs table's groups (issue 54: runs grouped by seed, as W&B does): 7 runs (two arms × 3 seeds
// and one odd run), "Group by: all but seed" gives three group rows with each arm's mean success and its t-interval
// across runs in the evaluation column, the Δ cell of a group row empty (its title says why), a disclosure button shows
// a group's runs and hides them again; the grouping is kept in the page state. Screenshot:
// test-results/webview-runs-table-groups.png.
import assert from 'node:assert/strict';
import { wilsonInterval } from '../../src/dashboard/shared/evaluation';
import type { SuccessChange } from '../../src/runs/shared/pairedChange';
import type { RunsTableRow } from '../../src/runsTable/shared/runsTable';
import type { TestCase } from './run';

function run(id: string, config: Record<string, string>, success: number, change?: SuccessChange): RunsTableRow {
  return {
    key: `/runs/${id}`,
    id,
    title: id,
    stage: 'train',
    algorithm: config['algorithm'] ?? '?',
    status: 'completed',
    step: 100,
    tags: [],
    config: { name: id, runs_dir: 'runs', 'model.path': 'builtin:household-tiny', ...config },
    metrics: { 'success/overall': success - 0.05 },
    evals: { valid_seen: { success, n: 120, interval: wilsonInterval(Math.round(success * 120), 120) } },
    changes: change ? { valid_seen: change } : {},
  };
}

const change: SuccessChange = { before: 0.3, after: 0.5, change: 0.2, low: 0.1, high: 0.3, paired: true, nAfter: 120, nBefore: 120, verdict: 'better' };
const grpo = { algorithm: 'grpo', 'opd.estimator': 'sampled', 'rollout.group_size': '8' };
const seed = { algorithm: 'seed', 'opd.estimator': 'expected', 'rollout.group_size': '8' };

function rows(): RunsTableRow[] {
  return [
    run('grpo-s0', { ...grpo, seed: '0' }, 0.5, change),
    run('grpo-s1', { ...grpo, seed: '1' }, 0.6, change),
    run('grpo-s2', { ...grpo, seed: '2' }, 0.7, change),
    run('seed-s0', { ...seed, seed: '0' }, 0.4, change),
    run('seed-s1', { ...seed, seed: '1' }, 0.45, change),
    run('seed-s2', { ...seed, seed: '2' }, 0.5, change),
    run('odd', { ...seed, 'rollout.group_size': '4', seed: '0' }, 0.3),
  ];
}

const strip = (text: string): string => text.replace(/[\u2068\u2069]/g, '').replace(/\s+/g, ' ').trim();

export const runsTableGroupsTests: TestCase[] = [
  [
    'runs table: group by all but seed, mean and t-interval across runs per group, expand and collapse a group',
    async (context) => {
      const view = await context.open('runsTable', { width: 1300, height: 600 });
      await view.send('rows', { rows: rows(), baselines: { valid_seen: '/runs/odd' }, readOnly: false });
      await view.waitFor('rendered');
      assert.equal(await view.page.locator('tbody tr').count(), 7, 'no grouping: a row per run');
      const options = await view.page.$$eval('#group-by vscode-option', (o) => o.map((x) => x.getAttribute('value')));
      assert.deepEqual(options.slice(0, 3), ['', 'all-but-seed', 'config:algorithm']);
      await view.page.evaluate(() => {
        const select = document.querySelector('#group-by') as HTMLElement & { value: string };
        select.value = 'all-but-seed';
        select.dispatchEvent(new Event('change'));
      });
      await view.page.locator('tr.group').first().waitFor();
      // Sorted by run (the label), ascending; collapsed by default.
      const groups = view.page.locator('tr.group');
      assert.equal(await groups.count(), 3);
      assert.equal(await view.page.locator('tr.member').count(), 0, 'collapsed by default');
      const labels = (await view.page.$$eval('tr.group td[data-col="run"] .group-label', (c) => c.map((x) => x.textContent ?? ''))).map(strip);
      assert.deepEqual(labels, [
        'algorithm=grpo, opd.estimator=sampled, rollout.group_size=8',
        'algorithm=seed, opd.estimator=expected, rollout.group_size=4',
        'algorithm=seed, opd.estimator=expected, rollout.group_size=8',
      ]);
      const evals = (await view.page.$$eval('tr.group td[data-col="eval:valid_seen"]', (c) => c.map((x) => x.textContent ?? ''))).map(strip);
      assert.deepEqual(evals, ['60% [35, 85] n=3', '30% n=1', '45% [33, 57] n=3'], 'mean success with its t-interval across runs');
      const evalTitle = await view.page.locator('tr.group td[data-col="eval:valid_seen"]').first().getAttribute('title');
      assert.match(evalTitle ?? '', /t-interval across runs.*not the pooled-episode Wilson interval/);
      assert.match((await view.page.locator('th[data-col="eval:valid_seen"]').getAttribute('title')) ?? '', /t-interval across runs/);
      const delta = view.page.locator('tr.group td[data-delta="eval:valid_seen"]').first();
      assert.equal(strip((await delta.textContent()) ?? ''), '');
      assert.match((await delta.getAttribute('title')) ?? '', /paired comparison between groups is out of scope/);
      assert.match(strip((await view.page.locator('.count').textContent()) ?? ''), /^7 of 7 runs in 3 groups/);

      // Expand the first group: its three runs appear, indented, each with its own Δ.
      const first = groups.first();
      await first.locator('button.disclosure').click();
      await view.page.locator('tr.member').first().waitFor();
      assert.deepEqual(await view.page.$$eval('tr.member', (r) => r.map((x) => x.getAttribute('data-id'))), ['grpo-s0', 'grpo-s1', 'grpo-s2']);
      assert.equal(await view.page.locator('tr.group').first().getAttribute('aria-expanded'), 'true');
      assert.equal(strip((await view.page.locator('tr.member td[data-delta="eval:valid_seen"]').first().textContent()) ?? ''), '+20 [+10, +30]');
      await context.screenshot(view, 'runs-table-groups');
      const state = (await view.page.evaluate(() => (window as unknown as { __state?: unknown }).__state)) as { group?: string; expanded?: string[] };
      assert.equal(state.group, 'all-but-seed', 'the grouping is kept with the page state');
      assert.equal(state.expanded?.length, 1, 'and which groups are expanded');

      // Collapse it again.
      await view.page.locator('tr.group').first().locator('button.disclosure').click();
      await view.page.waitForFunction(() => document.querySelectorAll('tr.member').length === 0);
      assert.equal(await view.page.locator('tr.group').first().getAttribute('aria-expanded'), 'false');
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
];
