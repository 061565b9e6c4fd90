// Webview tests of the dashboard (webview/dashboard) in Chromium: 21 success series keep the plot its height (the
// legend scrolls and toggles series), evaluation has its own chart and panel with Wilson intervals, a run's first
// update is drawn as a point, x ticks are whole steps, a failed run says why it has no charts, the comparison table
// diffs configs, exports are posted, a failing host handler is shown on the page, quantile strips of g and Δ draw and
// "Robust y" leaves outliers out of the y range.
import assert from 'node:assert/strict';
import type { MetricRow } from '../../src/runs/shared/types';
import { TYPES, chartState, datasets, evalRow, evaluation, rendered, renders, run, updateRow } from './dashboardHelpers';
import { dashboardPanelTests } from './dashboardPanels';
import type { WebviewPage } from './harness';
import type { TestCase } from './run';

async function tickLabels(view: WebviewPage, chart: string, axis: 'x' | 'y' = 'x'): Promise<string[]> {
  return view.page.evaluate(
    ([id, which]) => {
      const canvas = document.querySelector<HTMLCanvasElement>(`.card[data-chart="${id}"] canvas`)!;
      const registry = (window as unknown as { __seedCharts?: Map<HTMLCanvasElement, { scales: Record<string, { ticks: Array<{ label: string }> }> }> }).__seedCharts;
      return (registry?.get(canvas)?.scales[which]?.ticks ?? []).map((t) => t.label);
    },
    [chart, axis] as const,
  );
}

async function xTickLabels(view: WebviewPage, chart: string): Promise<string[]> {
  return tickLabels(view, chart, 'x');
}

/** An update row with a policy-gradient loss and the quantiles of g and Δ (docs/run-format.md §6). */
function quantileRow(step: number, pg: number): MetricRow {
  const spread = (centre: number, width: number) => ({ min: centre - 2 * width, p05: centre - width, p25: centre - width / 3, p50: centre, p75: centre + width / 3, p95: centre + width, max: centre + 2 * width });
  const row: Record<string, unknown> = { step, time: new Date(Date.parse('2026-11-30T10:00:00Z') + step * 60_000).toISOString(), kind: 'update', 'loss/pg': pg };
  for (const [family, values] of [['gate', spread(0.5, 0.2)], ['delta', spread(-0.1 + step / 100, 0.4)]] as const) {
    for (const [key, value] of Object.entries(values)) row[`${family}/${key}`] = value;
    row[`${family}/count`] = 100 + step;
  }
  return row as unknown as MetricRow;
}

/** A chart's y axis bounds and the boxes its quantile strips painted in the last draw. */
async function chartDrawn(view: WebviewPage, chart: string): Promise<{ yMin: number; yMax: number; boxes: number | undefined }> {
  return view.page.evaluate((id) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`.card[data-chart="${id}"] canvas`)!;
    const registry = (window as unknown as { __seedCharts: Map<HTMLCanvasElement, { scales: { y: { min: number; max: number } }; $seedStrips?: number }> }).__seedCharts;
    const found = registry.get(canvas)!;
    return { yMin: found.scales.y.min, yMax: found.scales.y.max, boxes: found.$seedStrips };
  }, chart);
}

export const dashboardTests: TestCase[] = [
  [
    'dashboard defaults: overall success only (task types on demand); evaluations drawn as lines, before → after',
    async (context) => {
      // Issue 54 item 5: by default the success chart overlaid 14 series and the evaluation chart showed columns of dots.
      const view = await context.open('dashboard', { width: 900, height: 1200 });
      const a = run('/runs/a');
      await view.send('runs', { overlaid: [a], available: [a] });
      const rows = [...Array.from({ length: 10 }, (_, i) => updateRow(i + 1, 0.4 + i / 50)), evalRow(0, 'valid_seen', 0.4), evalRow(0, 'valid_unseen', 0.35), evalRow(10, 'valid_seen', 0.55), evalRow(10, 'valid_unseen', 0.45)];
      await view.send('metrics', { run: a.key, rows, reset: true });
      await rendered(view, 1);
      assert.deepEqual((await chartState(view, 'success')).legend.map((e) => e.label), ['overall']);
      const evaluation = await view.page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('.card[data-chart="eval"] canvas')!;
        const chart = (window as unknown as { __seedCharts: Map<HTMLCanvasElement, { data: { datasets: Array<{ label: string; showLine: boolean; data: unknown[] }> } }> }).__seedCharts.get(canvas)!;
        return chart.data.datasets.map((d) => [d.label, d.showLine, d.data.length]);
      });
      assert.equal(evaluation.length, 2, JSON.stringify(evaluation)); // one overall series per split
      for (const [label, line, points] of evaluation) assert.deepEqual([line, points], [true, 2], String(label));
      const before = await renders(view); // read before the click: its redraw may land before a read after it
      await view.page.locator('#per-task-type').click();
      await rendered(view, before + 1);
      assert.equal((await chartState(view, 'success')).legend.length, 1 + TYPES.length, 'the task types on demand');
      await context.screenshot(view, 'dashboard-defaults');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'dashboard: a run that writes skills but parsed none says so in its gate charts; a GRPO run shows no gate chart',
    async (context) => {
      // Issue 54 item 3: the SmolLM2 template's first runs parse no skill; the gate charts vanished without a word.
      const view = await context.open('dashboard', { width: 900, height: 1400 });
      const seed = run('/runs/seed');
      const rows = [1, 2, 3].map((step) => ({ ...updateRow(step, 0), 'skill/parse_rate': 0 }) as unknown as MetricRow);
      await view.send('runs', { overlaid: [seed], available: [seed] });
      await view.send('metrics', { run: seed.key, rows, reset: true });
      await rendered(view, 1);
      for (const chart of ['gate', 'gate-half', 'gate-quantiles', 'delta', 'opd']) {
        const card = view.page.locator(`.card[data-chart="${chart}"]`);
        assert.equal(await card.isHidden(), false, `${chart} is shown`);
        assert.match((await card.locator('.no-data').textContent()) ?? '', /No data yet: no skill has parsed/, chart);
        assert.equal(await card.locator('.canvas-holder').isHidden(), true);
      }
      assert.equal(await view.page.locator('.card[data-chart="parse"] .no-data').isHidden(), true, 'the parse-rate chart has its points');
      await context.screenshot(view, 'dashboard-no-skill-data');
      const grpo = run('/runs/grpo', { algorithm: 'grpo' });
      const before = await renders(view); // read before the sends: their redraw may land before a read after them
      await view.send('runs', { overlaid: [grpo], available: [seed, grpo] });
      await view.send('metrics', { run: grpo.key, rows: [updateRow(1, 0.5)], reset: true });
      await rendered(view, before + 1);
      assert.equal(await view.page.locator('.card[data-chart="gate"]').isHidden(), true, 'no skills, no gate chart');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'dashboard: quantile strips of g and Δ draw a box per update; "Robust y" leaves a loss spike out and is saved',
    async (context) => {
      const view = await context.open('dashboard', { width: 900, height: 1400 });
      const a = run('/runs/a');
      const b = run('/runs/b', { name: 'second run' });
      await view.send('runs', { overlaid: [a, b], available: [a, b] });
      // 30 updates; update 7's loss spikes to 50 (the others lie between −0.3 and 0)
      const rows = Array.from({ length: 30 }, (_, i) => quantileRow(i + 1, i === 6 ? 50 : -0.01 * (i + 1)));
      await view.send('metrics', { run: a.key, rows, reset: true });
      await view.send('metrics', { run: b.key, rows: rows.slice(0, 10), reset: true });
      // Wait for both runs' boxes, not for a first redraw (it may come before the second run's rows arrive).
      for (let tries = 0; (await chartDrawn(view, 'delta-quantiles').catch(() => ({ boxes: 0 }))).boxes !== 40 && tries < 100; tries += 1) {
        await view.page.waitForTimeout(100); // redraws are throttled to 4 a second
      }
      await rendered(view, 1);
      for (const chart of ['gate-quantiles', 'delta-quantiles']) {
        assert.equal((await chartState(view, chart)).hidden, false, chart);
        assert.equal((await chartDrawn(view, chart)).boxes, 40, `${chart}: one box per update of each run`);
        const medians = (await datasets(view, chart)).map((d) => d.points);
        assert.deepEqual(medians, [30, 10], `${chart}: the medians, unsmoothed and undecimated`);
      }
      const gate = await chartDrawn(view, 'gate-quantiles');
      assert.deepEqual([gate.yMin, gate.yMax], [0, 1], 'g is a fraction');
      const delta = await chartDrawn(view, 'delta-quantiles');
      // Δ's boxes reach from p05 = −0.49 (update 1) to p95 = 0.6 (update 30): the axis holds them, not only the medians
      assert.ok(delta.yMin <= -0.49 && delta.yMax >= 0.6, JSON.stringify(delta));
      const spiky = await chartDrawn(view, 'pg');
      assert.ok(spiky.yMax >= 50, `without Robust y the spike sets the range: ${JSON.stringify(spiky)}`);
      await context.screenshot(view, 'dashboard-strips');

      const before = await renders(view);
      await view.page.locator('#robust-y').click();
      await rendered(view, before + 1);
      const robust = await chartDrawn(view, 'pg');
      assert.ok(robust.yMax < 1 && robust.yMin < -0.29, `Robust y: the bulk (−0.3 to 0) fills the plot: ${JSON.stringify(robust)}`);
      assert.ok((await datasets(view, 'pg')).some((d) => d.points === 30), 'the spike is still drawn (off the plot), not dropped from the data');
      assert.equal((await view.page.evaluate(() => (window as unknown as { __state: { robustY: boolean } }).__state)).robustY, true, 'saved with the webview state');
      assert.deepEqual((await chartDrawn(view, 'gate-quantiles')).yMax, 1, 'fractions keep 0–1');
      await context.screenshot(view, 'dashboard-robust-y');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'dashboard: 21 success series leave the plot its height; the legend scrolls and toggles a series; ticks are whole steps',
    async (context) => {
      const view = await context.open('dashboard', { width: 900, height: 900 });
      await view.page.locator('#per-task-type').click(); // per task type is off by default (issue 54 item 5)
      const a = run('/runs/a', { name: 'household-demo · seed' });
      const b = run('/runs/b', { name: 'household-demo · grpo' });
      const c = run('/runs/c', { name: 'household-demo · grpo_opsd' });
      await view.send('runs', { overlaid: [a, b, c], available: [a, b, c] });
      for (const r of [a, b, c]) await view.send('metrics', { run: r.key, rows: [1, 2, 3, 4, 5].map((s) => updateRow(s, s / 10)), reset: true });
      await rendered(view, 1);
      await view.page.waitForFunction(() => document.querySelectorAll('.card[data-chart="success"] .legend-item').length === 21);
      const success = await chartState(view, 'success');
      assert.equal(success.hidden, false);
      assert.equal(success.legend.length, 21, 'three runs × (overall + six task types)');
      assert.equal(Math.round(success.canvasHeight), 220, `the plot keeps its height (was squeezed to 40–50 px): ${success.canvasHeight}`);
      assert.ok(success.legendHeight < 70, `the legend scrolls in a fixed height: ${success.legendHeight}`);
      assert.ok((await datasets(view, 'success')).every((d) => !d.label.startsWith('eval')), 'no evaluation series in the training success chart');
      // Toggle the first series off: one dataset fewer, its legend entry says so.
      const shown = (await datasets(view, 'success')).filter((d) => !d.label.endsWith('(raw)')).length;
      const before = await renders(view);
      await view.page.locator('.card[data-chart="success"] .legend-item').first().click();
      await rendered(view, before + 1);
      const after = (await datasets(view, 'success')).filter((d) => !d.label.endsWith('(raw)')).length;
      assert.equal(after, shown - 1);
      assert.equal((await chartState(view, 'success')).legend[0]?.pressed, 'false');
      const labels = (await xTickLabels(view, 'success')).filter(Boolean);
      assert.ok(labels.length > 0 && labels.every((label) => /^\d+$/.test(label)), `x ticks: ${labels.join(', ')}`);
      await context.screenshot(view, 'dashboard-legend');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'dashboard: a run’s first update is drawn as a point on a padded axis with clean ticks',
    async (context) => {
      const view = await context.open('dashboard');
      const a = run('/runs/a', { status: 'running' });
      await view.send('runs', { overlaid: [a], available: [a] });
      await view.send('metrics', { run: a.key, rows: [updateRow(1, 0.5)], reset: true });
      await rendered(view, 1);
      const overall = (await datasets(view, 'success')).find((d) => d.label === 'overall');
      assert.ok(overall && overall.points === 1 && overall.radius > 0, JSON.stringify(overall));
      const labels = (await xTickLabels(view, 'success')).filter(Boolean);
      assert.ok(labels.includes('1') && labels.every((label) => /^\d+$/.test(label)), `x ticks: ${labels.join(', ')}`);
      // A flat series of 3.0000000000000004 (a mean of floats): y ticks without the noise.
      await view.send('metrics', { run: a.key, rows: [{ step: 2, time: '2026-11-30T10:02:00Z', kind: 'update', 'episode/length': 3.0000000000000004 }], reset: false });
      await view.page.waitForFunction(() => !document.querySelector('.card[data-chart="length"]')?.hasAttribute('hidden'));
      await view.page.waitForTimeout(400);
      const yLabels = await tickLabels(view, 'length', 'y');
      assert.ok(yLabels.length > 0 && yLabels.every((label) => !/\d{6,}/.test(label)), `y ticks: ${yLabels.join(', ')}`);
      // A flat series with float noise (issue 41 item 6) is drawn flat: its y axis spans at least a tenth of its size.
      await view.send('metrics', { run: a.key, rows: [3, 4, 5].map((step, i) => ({ step, time: '2026-11-30T10:05:00Z', kind: 'update', 'loss/kl': 0.0004 + i * 1e-12 }) as unknown as MetricRow), reset: false });
      await view.page.waitForFunction(() => !document.querySelector('.card[data-chart="kl"]')?.hasAttribute('hidden'));
      await view.page.waitForTimeout(400);
      const span = await view.page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('.card[data-chart="kl"] canvas')!;
        const registry = (window as unknown as { __seedCharts?: Map<HTMLCanvasElement, { scales: Record<string, { min: number; max: number }> }> }).__seedCharts;
        const y = registry?.get(canvas)?.scales.y;
        return y ? y.max - y.min : 0;
      });
      assert.ok(span >= 0.00004 - 1e-12, `y span of a flat series: ${span}`);
    },
  ],
  [
    'dashboard: evaluation in its own chart with Wilson whiskers and a panel per split and task type; two runs compared',
    async (context) => {
      const view = await context.open('dashboard', { width: 1300, height: 1000 });
      await view.page.locator('#per-task-type').click(); // per task type is off by default (issue 54 item 5)
      const a = run('/runs/a', { name: 'demo · seed', config: { algorithm: 'seed', opd: { beta: 5 }, rollout: { group_size: 8 } } });
      const b = run('/runs/b', { name: 'demo · grpo', algorithm: 'grpo', config: { algorithm: 'grpo', opd: { beta: 5 }, rollout: { group_size: 4 } } });
      await view.send('runs', { overlaid: [a, b], available: [a, b] });
      await view.send('metrics', { run: a.key, rows: [updateRow(1, 0.2), updateRow(2, 0.4), evalRow(2, 'valid_seen', 0.75)], reset: true });
      await view.send('metrics', { run: b.key, rows: [updateRow(1, 0.1), updateRow(2, 0.3), evalRow(2, 'valid_seen', 0.5)], reset: true });
      await view.send('evaluations', { run: a.key, reports: [evaluation('valid_seen', 2, 0.75, 24)] });
      await view.send('evaluations', { run: b.key, reports: [evaluation('valid_seen', 2, 0.5, 24)] });
      // Wait for what the assertions read — both runs' evaluations drawn and in the panels — not for a first redraw,
      // which may come before the last messages (a slow page: SEED_WEBVIEW_MESSAGE_DELAY_MS).
      await view.page.waitForFunction(() => document.querySelectorAll('.comparison-panel td').length > 0 && document.querySelectorAll('.evaluation-panel tr.type-row').length === 6);
      await view.page.locator('.comparison-panel tr', { hasText: /^eval valid_seen/ }).filter({ hasText: '0.5' }).waitFor();
      let evalSets = await datasets(view, 'eval');
      for (let tries = 0; evalSets.length < 2 && tries < 100; tries += 1) {
        await view.page.waitForTimeout(100); // the chart redraws at most 4 times a second
        evalSets = await datasets(view, 'eval');
      }
      assert.ok(evalSets.length >= 2 && evalSets.every((d) => d.label.includes('eval valid_seen')), JSON.stringify(evalSets.map((d) => d.label)));
      const panel = view.page.locator('.evaluation-panel');
      assert.equal(await panel.locator('thead th').nth(1).textContent(), 'demo · seed');
      assert.equal(await panel.locator('tr.split-row td').first().textContent(), '75% [55–88] n=24');
      assert.equal(await panel.locator('tr.type-row').count(), 6, 'one row per task type');
      const table = view.page.locator('.comparison-panel');
      const rowText = async (label: string) => table.locator('tr', { has: view.page.locator('th', { hasText: new RegExp(`^${label}$`) }) }).locator('td').allTextContents();
      assert.deepEqual(await rowText('rollout.group_size'), ['8', '4']);
      assert.deepEqual(await rowText('algorithm'), ['seed', 'grpo']);
      assert.equal(await table.locator('th', { hasText: /^opd\.beta$/ }).count(), 0, 'equal config values are not listed');
      assert.deepEqual(await rowText('eval valid_seen'), ['0.75', '0.5']);
      // "Per task type" off hides the per-type rows of the evaluation panel too.
      const before = await renders(view);
      await view.page.locator('#per-task-type').click();
      await rendered(view, before + 1);
      assert.equal(await panel.locator('tr.type-row').count(), 0);
      await context.screenshot(view, 'dashboard-evaluation');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'dashboard: after a failed run without metrics it says why, not "Waiting for metrics…"',
    async (context) => {
      const view = await context.open('dashboard');
      const a = run('/runs/a', { status: 'running' });
      await view.send('runs', { overlaid: [a], available: [a] });
      await rendered(view, 1);
      assert.equal(await view.page.locator('.empty-note').textContent(), 'Waiting for metrics…');
      await view.send('status', { run: a.key, status: 'failed', error: 'model.path: no folder models/tiny' });
      await view.page.waitForFunction(() => document.querySelector('.empty-note')?.textContent?.includes('failed'));
      // the run's name and error are its text, isolated (U+2068 … U+2069) from the sentence around them
      assert.equal(await view.page.locator('.empty-note').textContent(), '\u2068/runs/a\u2069: failed — \u2068model.path: no folder models/tiny\u2069. It wrote no metrics.');
    },
  ],
  [
    'dashboard: PNG and CSV exports are posted; wall-time axis; a failed host handler is shown on the page',
    async (context) => {
      const view = await context.open('dashboard');
      const a = run('/runs/a', { name: 'demo, "v2"' });
      await view.send('runs', { overlaid: [a], available: [a] });
      await view.send('metrics', { run: a.key, rows: [updateRow(1, 0.2), updateRow(2, 0.4), updateRow(3, 0.6)], reset: true });
      await rendered(view, 1);
      await view.page.locator('.card[data-chart="pg"] [data-action="csv"]').click();
      const csv = await view.waitFor<{ format: string; name: string; data: string }>('export');
      assert.equal(csv.format, 'csv');
      assert.equal(csv.name, 'pg.csv');
      assert.equal(csv.data.split('\n')[1], '"demo, ""v2""",pg,1,-0.01,-0.01');
      await view.page.locator('.card[data-chart="pg"] [data-action="png"]').click();
      const png = await view.waitFor<{ format: string; data: string }>('export', 2);
      assert.ok(png.format === 'png' && png.data.startsWith('data:image/png;base64,') && png.data.length > 1000);
      // The image stands alone (issue 41 item 6): a title band above the plot and the legend below it, so it is taller
      // than the chart's canvas, with text drawn in both bands. It is drawn at a whole multiple of the canvas' pixel
      // ratio, at least 1200 px wide (issue 54 item 9: it was the on-screen 383 px), and the chart is back at its own size.
      const image = await view.page.evaluate(async (url) => {
        const img = new Image();
        img.src = url;
        await img.decode();
        const canvas = document.querySelector<HTMLCanvasElement>('.card[data-chart="pg"] canvas')!;
        const c = document.createElement('canvas');
        [c.width, c.height] = [img.width, img.height];
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        const inked = (y0: number, y1: number): number => {
          const data = g.getImageData(0, y0, img.width, y1 - y0).data;
          const [r, gr, b] = [data[0], data[1], data[2]];
          let count = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i] !== r || data[i + 1] !== gr || data[i + 2] !== b) count += 1;
          return count;
        };
        const factor = img.width / canvas.width;
        const titleBand = Math.round(26 * factor);
        const plotBottom = titleBand + canvas.height * factor;
        return { width: img.width, height: img.height, canvasWidth: canvas.width, canvasHeight: canvas.height, cssWidth: canvas.clientWidth, factor, title: inked(0, titleBand), legend: inked(plotBottom, img.height) };
      }, png.data);
      assert.ok(image.width >= 1200, `the PNG is at least 1200 px wide: ${JSON.stringify(image)}`);
      assert.ok(Number.isInteger(image.factor) && image.factor > 1, `a whole multiple of the chart's canvas: ${JSON.stringify(image)}`);
      assert.equal(image.canvasWidth, image.cssWidth, 'the chart on screen is back at its pixel ratio (1 in this page)');
      assert.ok(image.height > (image.canvasHeight + 30) * image.factor, JSON.stringify(image));
      assert.ok(image.title > 20 * image.factor && image.legend > 20 * image.factor, `title and legend drawn: ${JSON.stringify(image)}`);
      await view.page.evaluate((url) => {
        const img = document.createElement('img');
        img.id = 'exported-png';
        img.src = url;
        img.style.cssText = 'position:fixed;left:0;top:0;z-index:99;border:2px solid red;background:white;max-width:calc(100% - 4px)';
        document.body.append(img);
      }, png.data);
      await context.screenshot(view, 'dashboard-exported-png');
      await view.page.evaluate(() => document.getElementById('exported-png')?.remove());
      // Wall time: minutes since the run's start (rows are one minute apart).
      const before = await renders(view);
      await view.page.evaluate(() => {
        const select = document.getElementById('x-axis') as HTMLElement & { value: string };
        select.value = 'time';
        select.dispatchEvent(new Event('change'));
      });
      await rendered(view, before + 1);
      const pg = (await datasets(view, 'pg'))[0];
      assert.deepEqual(pg?.xs, [1, 2, 3]);
      // The host answers the export with an error: the page shows it.
      await view.reply('export', 1, { error: 'EACCES: permission denied' });
      await view.page.waitForSelector('#host-error');
      assert.equal(await view.page.locator('#host-error').textContent(), 'export failed: \u2068EACCES: permission denied\u2069 (click to dismiss)');
      assert.deepEqual(view.errors, []);
    },
  ],
  ...dashboardPanelTests,
];
