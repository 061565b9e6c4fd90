// Webview test of the dashboard's groups (issue 54: runs grouped by seed, as W&B does): six runs overlaid — GRPO with
// three seeds (one stopped at update 8), SEED with two, and one SEED run with another group size — "Group by: all but
// seed" draws one line per group: the mean at the steps all its runs reached with its 95 % t-interval as a band, a
// group of one drawn as its run (n=1); the evaluation chart's whiskers are the t-interval across seeds; the legend and
// the caption say what is drawn; ▸ draws a group's runs thin behind its mean; the before → after panel leads with each
// group's mean change; the grouped CSV; the choice kept in the page state. Screenshot:
// test-results/webview-dashboard-groups.png.
import assert from 'node:assert/strict';
import type { BeforeAfterView } from '../../src/dashboard/shared/protocol';
import type { SuccessChange } from '../../src/runs/shared/pairedChange';
import type { MetricRow } from '../../src/runs/shared/types';
import { chartState, evalRow, evaluation, run, updateRow } from './dashboardHelpers';
import type { WebviewPage } from './harness';
import type { TestCase } from './run';

/** Success at update s: base + s/100 (every seed of an arm rises alike: their spread is their bases'). */
function rows(base: number, updates: number, finalEval?: number): MetricRow[] {
  const out = Array.from({ length: updates }, (_, i) => updateRow(i + 1, base + (i + 1) / 100));
  out.push(evalRow(0, 'valid_seen', 0.3));
  if (finalEval !== undefined) out.push(evalRow(updates, 'valid_seen', finalEval));
  return out;
}

const config = (algorithm: string, seed: number, groupSize = 8) => ({ name: 'arms', seed, algorithm, rollout: { group_size: groupSize } }) as never;

const RUNS = [
  { key: '/runs/grpo-s0', algorithm: 'grpo', seed: 0, base: 0.4, updates: 10, eval: 0.6 },
  { key: '/runs/grpo-s1', algorithm: 'grpo', seed: 1, base: 0.5, updates: 10, eval: 0.7 },
  { key: '/runs/grpo-s2', algorithm: 'grpo', seed: 2, base: 0.6, updates: 8 }, // still running: no final evaluation
  { key: '/runs/seed-s0', algorithm: 'seed', seed: 0, base: 0.3, updates: 10, eval: 0.5 },
  { key: '/runs/seed-s1', algorithm: 'seed', seed: 1, base: 0.35, updates: 10, eval: 0.6 },
  { key: '/runs/odd', algorithm: 'seed', seed: 0, base: 0.2, updates: 10, eval: 0.4, groupSize: 4 },
];

function change(before: number, after: number): SuccessChange {
  return { before, after, change: after - before, low: after - before - 0.15, high: after - before + 0.15, paired: true, nAfter: 60, nBefore: 60, verdict: 'better' };
}

/** A CSV line's fields (a quoted field may hold commas). */
const fields = (line: string | undefined): string[] => (line ?? '').split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);

const strip = (text: string): string => text.replace(/[\u2068\u2069]/g, '').replace(/\s+/g, ' ').trim();

/** A chart's datasets as drawn: label, points, and the whiskers' intervals. */
async function drawn(view: WebviewPage, chart: string): Promise<Array<{ label: string; xs: number[]; ys: number[]; fill: unknown; width: number; intervals?: Array<{ low: number; high: number }> }>> {
  return view.page.evaluate((id) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`.card[data-chart="${id}"] canvas`)!;
    type Drawn = { label: string; data: Array<{ x: number; y: number }>; fill?: unknown; borderWidth: number; intervals?: Array<{ low: number; high: number }> };
    const chart = (window as unknown as { __seedCharts: Map<HTMLCanvasElement, { data: { datasets: Drawn[] } }> }).__seedCharts.get(canvas);
    return (chart?.data.datasets ?? []).map((d) => ({ label: d.label, xs: d.data.map((p) => p.x), ys: d.data.map((p) => p.y), fill: d.fill ?? null, width: d.borderWidth, ...(d.intervals ? { intervals: d.intervals } : {}) }));
  }, chart);
}

const near = (a: number | undefined, b: number, what: string): void => assert.ok(a !== undefined && Math.abs(a - b) < 1e-4, `${what}: ${a} ≠ ${b}`);

async function pick(view: WebviewPage, select: string, option: string): Promise<void> {
  await view.page.locator(`vscode-single-select#${select}`).click();
  await view.page.locator(`vscode-single-select#${select} [role="option"]`, { hasText: new RegExp(`^\\s*${option}\\s*$`) }).click();
}

export const dashboardGroupTests: TestCase[] = [
  [
    'dashboard: group by all but seed — a mean line and t-interval band per group, n=1 drawn as its run, seeds one click away',
    async (context) => {
      const view = await context.open('dashboard', { width: 1300, height: 1500 });
      const runs = RUNS.map((r) => run(r.key, { name: r.key.slice(6), algorithm: r.algorithm, config: config(r.algorithm, r.seed, r.groupSize) }));
      await view.send('runs', { overlaid: runs, available: runs });
      for (const r of RUNS) await view.send('metrics', { run: r.key, rows: rows(r.base, r.updates, r.eval), reset: true });
      const pairs = (after: number | undefined): BeforeAfterView[] => [{ split: 'valid_seen', baseRun: 'base', before: { success: 0.3, n: 60 }, ...(after ? { after: { success: after, n: 60 }, change: change(0.3, after) } : {}) }];
      for (const r of RUNS) await view.send('evaluations', { run: r.key, reports: r.eval ? [evaluation('valid_seen', r.updates, r.eval, 60)] : [], beforeAfter: pairs(r.eval) });
      await view.page.locator('.card[data-chart="success"] .legend-item').nth(5).waitFor();
      assert.equal((await chartState(view, 'success')).legend.length, 6, 'ungrouped: a line per run');
      assert.equal(await view.page.locator('.group-by').isVisible(), true, 'several runs: "Group by" is offered');

      await pick(view, 'group-by', 'all but seed');
      await view.page.locator('.card[data-chart="success"] .legend-expand').first().waitFor();
      const legend = (await chartState(view, 'success')).legend.map((e) => strip(e.label));
      assert.deepEqual(legend, [
        'algorithm=grpo, rollout.group_size=8 · overall — mean of 3 seeds, 95 % t-interval; steps all 3 reached',
        'algorithm=seed, rollout.group_size=4 · overall — 1 seed (n=1)',
        'algorithm=seed, rollout.group_size=8 · overall — mean of 2 seeds, 95 % t-interval; steps both reached',
      ]);
      assert.match(strip((await view.page.locator('.card[data-chart="success"] .chart-caption').textContent()) ?? ''), /^Grouped by all but seed: mean of each group's runs at the steps all of them reached; band: 95 % t-interval across the runs \(mean ± t\(n−1\)·sd\/√n\), each run smoothed first/);

      // GRPO: updates 1–8 (seed 2 stopped there); the seeds' successes differ by their bases 0.4, 0.5, 0.6 at every
      // update (smoothing shifts each alike), so sd = 0.1 and the band is 2 · 4.303 · 0.1 / √3 = 0.49688 wide.
      const success = await drawn(view, 'success');
      const grpo = success.filter((d) => d.label.includes('algorithm=grpo'));
      assert.deepEqual(grpo.map((d) => strip(d.label).replace(/^.* · overall — mean of 3 seeds, 95 % t-interval; steps all 3 reached/, '…')), ['…', '… (95 % t-interval, low)', '… (95 % t-interval, high)', '… (raw)']);
      const [mean, low, high, raw] = grpo;
      assert.deepEqual(mean?.xs, [1, 2, 3, 4, 5, 6, 7, 8]);
      assert.equal(high?.fill, '-1', 'the band is filled down to its low line');
      high!.ys.forEach((y, i) => near(y - low!.ys[i]!, 2 * 0.248434, `band width at update ${i + 1}`));
      raw!.ys.forEach((y, i) => near(y, 0.5 + (i + 1) / 100, `raw mean at update ${i + 1}`));
      // The group of one is its run: its own line, no band.
      const odd = success.filter((d) => d.label.includes('group_size=4'));
      assert.deepEqual(odd.map((d) => d.label.endsWith('(raw)')), [false, true]);
      assert.equal(odd[0]?.xs.length, 10);

      // Evaluations: the mean at the evaluations all seeds made (GRPO: only update 0, seed 2 has no final one), the
      // whiskers the t-interval across seeds — SEED at update 10: 0.5 and 0.6 → 0.55 ± 12.706 · 0.0707 / √2, in [0, 1].
      const evals = await drawn(view, 'eval');
      const seedEval = evals.find((d) => d.label.includes('algorithm=seed, rollout.group_size=8'))!;
      assert.deepEqual(seedEval.xs, [0, 10]);
      near(seedEval.ys[1], 0.55, 'SEED evaluation mean');
      near(seedEval.intervals?.[1]?.low, 0, 'low, kept inside [0, 1]');
      near(seedEval.intervals?.[1]?.high, 1, 'high, kept inside [0, 1]');
      assert.deepEqual(evals.find((d) => d.label.includes('algorithm=grpo'))?.xs, [0]);
      assert.match(strip((await view.page.locator('.card[data-chart="eval"] .chart-caption').textContent()) ?? ''), /whiskers: 95 % t-interval across the runs, not a run's Wilson interval/);

      // Before → after leads with each group's mean change across its seeds: SEED +25 [−39, +89] (t(1)), in the noise;
      // GRPO's is of the two seeds with a final evaluation.
      const groupRow = (await view.page.locator('.before-after-panel tr.group-row').allTextContents()).map(strip);
      assert.deepEqual(groupRow, [
        'algorithm=grpo, rollout.group_size=8 — mean of 2 of 3 seedsvalid_seen30%65%+35 pts [-29, +99] across seedsinside the noise',
        'algorithm=seed, rollout.group_size=4 — 1 seed (n=1)one run: its own change below',
        'algorithm=seed, rollout.group_size=8 — mean of 2 seedsvalid_seen30%55%+25 pts [-39, +89] across seedsinside the noise',
      ]);
      assert.equal(await view.page.locator('.before-after-panel tr.member-row').count(), 6, "each run's own row stays");
      assert.deepEqual((await view.page.locator('.comparison-panel tr.group-head th').allTextContents()).map(strip).slice(1), ['algorithm=grpo, rollout.group_size=8', 'algorithm=seed, rollout.group_size=4', 'algorithm=seed, rollout.group_size=8']);

      // ▸ draws the GRPO seeds thin behind the mean, each an entry of the legend.
      await view.page.locator('.card[data-chart="success"] .legend-expand').first().click();
      await view.page.locator('.card[data-chart="success"] .legend-item.member').nth(2).waitFor();
      assert.deepEqual((await view.page.locator('.card[data-chart="success"] .legend-item.member').allTextContents()).map(strip), ['grpo-s0 · overall', 'grpo-s1 · overall', 'grpo-s2 · overall']);
      const members = (await drawn(view, 'success')).filter((d) => /^grpo-s\d · overall$/.test(strip(d.label)));
      assert.deepEqual(members.map((d) => [d.xs.length, d.width]), [[10, 1], [10, 1], [8, 1]], 'thin, each as long as its run');
      assert.equal(await view.page.locator('.card[data-chart="success"] .legend-expand').first().getAttribute('aria-expanded'), 'true');
      await view.page.locator('.card[data-chart="success"]').scrollIntoViewIfNeeded();
      await context.screenshot(view, 'dashboard-groups');

      // The grouped CSV, and the choice kept with the page.
      await view.page.locator('.card[data-chart="success"] [data-action="csv"]').click();
      const csv = await view.waitFor<{ name: string; data: string }>('export');
      const lines = csv.data.trim().split('\n');
      assert.equal(csv.name, 'success-grouped.csv');
      assert.equal(lines[0], 'step,group,series,n,mean,low,high,smoothed_mean,smoothed_low,smoothed_high');
      const eight = fields(lines.find((l) => l.startsWith('8,"algorithm=grpo')));
      near(Number(eight[4]), 0.58, 'CSV mean at update 8');
      near(Number(eight[5]), 0.58 - 0.248434, 'CSV low');
      assert.equal(eight[3], '3');
      assert.ok(!lines.some((l) => l.startsWith('9,"algorithm=grpo')), 'no GRPO line past update 8');
      const one = fields(lines.find((l) => l.startsWith('1,"algorithm=seed, rollout.group_size=4"')));
      assert.deepEqual([one[3], one[5], one[6], one[8], one[9]], ['1', '', '', '', ''], 'the group of one: n=1, no interval');
      near(Number(one[4]), 0.21, 'its value');
      const state = (await view.page.evaluate(() => (window as unknown as { __state?: unknown }).__state)) as { group?: string; expanded?: string[] };
      assert.equal(state.group, 'all-but-seed');
      assert.equal(state.expanded?.length, 1);
      assert.equal(await view.page.locator('vscode-single-select#x-axis').getAttribute('disabled'), '', 'grouped: drawn against step');

      // Nothing again: a line per run.
      await pick(view, 'group-by', 'nothing');
      await view.page.waitForFunction(() => document.querySelectorAll('.card[data-chart="success"] .legend-expand').length === 0);
      assert.equal((await chartState(view, 'success')).legend.length, 6);
      assert.equal(await view.page.locator('.card[data-chart="success"] .chart-caption').isHidden(), true);
      // One run left: no "Group by" to offer.
      await pick(view, 'group-by', 'all but seed');
      await view.page.locator('.card[data-chart="success"] .legend-expand').first().waitFor();
      await view.send('runs', { overlaid: [runs[0]], available: runs });
      await view.page.locator('.group-by').waitFor({ state: 'hidden' });
      await view.page.waitForFunction(() => document.querySelectorAll('.card[data-chart="success"] .legend-item').length === 1);
      assert.equal(await view.page.locator('.card[data-chart="success"] .legend-expand').count(), 0);
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
];
