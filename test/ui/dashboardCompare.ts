// End to end in code-server, like a user: two runs of one experiment in the workspace (a SEED run and a GRPO run
// with a different group size, both with an evaluation) and a real household run of the shipped tiny policy (SDAR,
// one update: real teacher log-probs and gates). The Runs tree tells the runs apart; both selected → Open Dashboard
// overlays them with the comparison table and the evaluation panel; the household trajectory opens in the viewer with
// the colour scale fitted to it, and "a" switches to the absolute scale. The dashboard draws the runs' quantile strips
// of g and Δ and turns "Robust y" on; the household run's quantiles of g are those of its trajectories' gates.
//
//   npm run build && node out/test/ui/dashboardCompare.js
//
// Writes test-results/ui-runs-tree-default-width.png (the Runs tree and the TRAINER view at the default sidebar width,
// where no label, run description or before → after row may be cut), ui-dashboard-compare.png and
// ui-heatmap-fitted.png (and -absolute); a train run linked to its base evaluation shows its before/after
// (ui-before-after-tree.png, ui-before-after-dashboard.png) and its dashboard's defaults (ui-dashboard-defaults.png); two
// arms × three seeds selected in the Runs tree and grouped "all but seed" in their dashboard draw a mean per arm
// (dashboardGroups.ts, ui-dashboard-groups.png); a run that parsed no skill says so in its gate charts
// (ui-dashboard-no-skill-data.png); its parse-rate chart saved as PNG says where (ui-dashboard-export-saved.png).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { RunReader, RunSchemas, decodeTokenArrays, findSchemasDir, quantileSummary, type TrajectoryIndexRow } from '../../src/runs/core';
import { quantileOfSorted } from '../../src/dashboard/shared/robustRange';
import { CENTER_BIN, binOf, colorOf, fittedScale, heatScale } from '../../src/trajectory/shared/colorScale';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { dashboardGroupedBySeed } from './dashboardGroups';
import { type DrawnLabel, fail, inSeedSidebar, runUiSteps, treeRow, webview, wholeSidebarLabels } from './workbench';
import { dashboardDefaults, noSkillData, pngExportSaved, prepareNoSkillRun } from './dashboardChecks';

const LABEL = 'dashboard compare & fitted heatmap ui (code-server)';
const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');

/** Two runs of experiment household-seed: the fixture (SEED), and a copy made a GRPO run with group size 4 whose
 * recorded Stage-1 and collection sections differ too (which a Stage-2 run never reads: no rows of them). */
function prepareComparedRuns(session: CodeServerSession): void {
  const seedRun = path.join(session.workspace, 'runs', '20260301-120000-train-household-seed');
  const grpoRun = path.join(session.workspace, 'runs', '20260302-120000-train-household-seed');
  cpSync(fixtureRun, seedRun, { recursive: true });
  cpSync(fixtureRun, grpoRun, { recursive: true });
  const manifestFile = path.join(grpoRun, 'run.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown> & { config: Record<string, unknown> };
  const rollout = { ...(manifest.config.rollout as Record<string, unknown>), group_size: 4 };
  writeFileSync(
    manifestFile,
    JSON.stringify({ ...manifest, id: path.basename(grpoRun), algorithm: 'grpo', started: '2026-03-02T12:00:00.000Z', config: { ...manifest.config, algorithm: 'grpo', rollout, sft: { lr: 3e-5 }, collect: { split: 'valid_seen' } } }, null, 2),
  );
  // Lower successes for the GRPO run, so the two overlaid lines differ.
  const metricsFile = path.join(grpoRun, 'metrics.jsonl');
  const rows = readFileSync(metricsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const row of rows) if (typeof row['success/overall'] === 'number') row['success/overall'] = (row['success/overall'] as number) / 2;
  writeFileSync(metricsFile, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
}

/** Ten evaluation episodes of split test_seen, won where `outcomes` has a 1 (the same ten tasks in each report). */
function evalReport(outcomes: string, step: number | null): Record<string, unknown> {
  const episodes = [...outcomes].map((c, i) => ({ task: { id: `household/task-${i}`, type: i % 2 ? 'heat' : 'clean' }, success: c === '1', reward: Number(c), length: 5 }));
  const rate = (list: typeof episodes) => ({ success: list.filter((e) => e.success).length / list.length, n: list.length });
  return {
    split: 'test_seen', step, time: '2026-03-03T12:00:30.000Z', overall: rate(episodes),
    by_task_type: { clean: rate(episodes.filter((e) => e.task.type === 'clean')), heat: rate(episodes.filter((e) => e.task.type === 'heat')) },
    episodes,
  };
}

/** A train run linked to its base evaluation (run.json `baseline_evals`, as npm run demo and SEED: Train write it):
 * test_seen 40 % before, 60 % after on the same ten tasks. */
function prepareBeforeAfterRuns(session: CodeServerSession): void {
  const train = path.join(session.workspace, 'runs', '20260303-120000-train-before-after');
  const base = path.join(session.workspace, 'runs', '20260303-110000-eval-before-after');
  for (const [dir, fields] of [
    [base, { id: path.basename(base), stage: 'eval', started: '2026-03-03T11:00:00.000Z' }],
    [train, { id: path.basename(train), baseline_evals: { test_seen: `../${path.basename(base)}` } }],
  ] as const) {
    cpSync(fixtureRun, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...manifest, name: 'before-after', status: 'completed', ...fields }, null, 2));
  }
  writeFileSync(path.join(base, 'eval', 'test_seen.json'), JSON.stringify(evalReport('0101000011', null)));
  writeFileSync(path.join(base, 'metrics.jsonl'), `${JSON.stringify({ step: 0, time: '2026-03-03T11:00:20.000Z', kind: 'eval', split: 'test_seen', 'success/overall': 0.4 })}\n`);
  writeFileSync(path.join(train, 'eval', 'test_seen.json'), JSON.stringify(evalReport('1101010011', 2)));
  const metricsFile = path.join(train, 'metrics.jsonl');
  const rows = readFileSync(metricsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const row of rows) if (row.kind === 'eval') Object.assign(row, { 'success/overall': 0.6, 'success/heat': 0.8, 'success/clean': 0.4 });
  writeFileSync(metricsFile, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
}

/** The Runs tree and the dashboard of a run linked to its base evaluation (issue 41 item 3). */
async function beforeAfter(page: Page): Promise<string[]> {
  await page.keyboard.press('Escape');
  // Collapse what the steps before expanded (the header's actions show on hover), so that the run's row is in view.
  const collapse = page.locator('.pane-header .action-label[aria-label="Collapse All"]').first();
  await collapse.locator('xpath=ancestor::div[contains(@class,"pane-header")]').hover().catch(() => undefined);
  await collapse.click({ timeout: 5_000 }).catch(() => undefined);
  // The run's description is its end-of-run evaluation, not its last training batch (1.0 at update 2).
  const runRow = page.locator('.monaco-list-row[aria-level="1"]', { hasText: 'before-after · seed' }).first();
  await runRow.waitFor({ state: 'visible', timeout: 30_000 });
  const description = (await runRow.locator('.label-description').textContent())?.trim() ?? '';
  if (description !== '60%') fail(`the run's description is "${description}", not its evaluation (60%)`);
  if ((await runRow.getAttribute('aria-expanded')) !== 'true') await runRow.click();
  // The split's before → after row: its icon an arrow, its description the change with its interval.
  const change = page.locator('.monaco-list-row[aria-level="2"]', { hasText: 'test_seen' }).filter({ has: page.locator('.codicon-arrow-both') }).first();
  await change.waitFor({ state: 'visible', timeout: 30_000 });
  const changeText = (await change.locator('.label-description').textContent())?.trim() ?? '';
  if (!/^40→60% \+20 \[-?\d+, \+\d+\]$/.test(changeText)) fail(`before/after row: "${changeText}"`);
  // The TRAINER view shows the trainer's status (issue 41 item 6), probed when it was first shown: not only its
  // welcome button.
  const trainerRow = page.locator('.monaco-list-row', { hasText: 'Trainer:' }).filter({ hasText: 'seed_trainer' }).first();
  await trainerRow.waitFor({ state: 'visible', timeout: 60_000 });
  const trainerText = ((await trainerRow.textContent()) ?? '').trim();
  await page.screenshot({ path: path.join(resultsDir, 'ui-before-after-tree.png') });
  await runRow.hover();
  await runRow.locator('.action-label[aria-label="Open Dashboard"]').click();
  const frame = webview(page);
  const panel = frame.locator('.before-after-panel table');
  await panel.waitFor({ state: 'visible', timeout: 30_000 });
  const cells = (await panel.locator('tbody tr').first().locator('th, td').allTextContents()).map((t) => t.trim());
  if (cells[1] !== 'test_seen' || cells[2] !== '40% (n=10)' || cells[3] !== '60% (n=10)' || !/^\+20 pts \[.*\] paired$/.test(cells[4] ?? '') || cells[5] !== 'inside the noise') {
    fail(`before/after panel row: ${cells.join(' | ')}`);
  }
  await frame.locator('.card[data-chart="eval"]:not([hidden]) canvas').waitFor({ timeout: 15_000 });
  // The evaluation chart starts at update 0 with the base evaluation, then the run's own (issue 41 item 3): the
  // host sends the base as update 0 (src/dashboard/dashboardPanel.ts), which only this drawn chart shows.
  const series = await frame.locator('.card[data-chart="eval"] canvas').evaluate((canvas) => {
    // runs in the page (this file is compiled without the DOM's types)
    const registry = (globalThis as unknown as { __seedCharts: Map<unknown, { data: { datasets: Array<{ label: string; data: Array<{ x: number; y: number }> }> } }> }).__seedCharts;
    return (registry.get(canvas)?.data.datasets ?? []).map((d) => ({ label: d.label, points: d.data.map((p) => [p.x, p.y]) }));
  });
  const overall = series.find((d) => d.label.includes('eval test_seen · overall'));
  const points = overall?.points ?? [];
  const near = (a: number | undefined, b: number): boolean => a !== undefined && Math.abs(a - b) < 1e-9;
  if (!near(points[0]?.[0], 0) || !near(points[0]?.[1], 0.4) || !points.some(([x, y]) => (x ?? 0) > 0 && near(y, 0.6))) {
    fail(`the evaluation chart does not start at update 0 with the base 40 %: ${JSON.stringify(series.map((d) => `${d.label}: ${JSON.stringify(d.points)}`))}`);
  }
  await page.screenshot({ path: path.join(resultsDir, 'ui-before-after-dashboard.png') });
  return [
    `tree: ${description}; test_seen: ${changeText}`,
    `TRAINER view: ${trainerText}`,
    `dashboard: ${cells.join(' | ')}`,
    `evaluation chart: ${overall?.label}: ${JSON.stringify(points)}`,
  ];
}

/** One SDAR update of the shipped tiny policy on the household environment (real teacher pass, ~20 s on a CPU). */
function trainHouseholdRun(session: CodeServerSession, python: string): string {
  cpSync(path.join(repoRoot, 'examples', 'household-skills'), path.join(session.workspace, 'household-skills'), { recursive: true });
  const experiment = path.join(session.workspace, 'heatmap-demo.seed.yaml');
  writeFileSync(
    experiment,
    [
      'name: heatmap-demo',
      'seed: 0',
      'algorithm: sdar',
      'updates: 1',
      'model:',
      '  path: builtin:household-tiny',
      '  device: cpu',
      'environment:',
      '  name: household',
      'sdar:',
      '  skill_bank: household-skills',
      'rollout:',
      '  tasks_per_update: 2',
      '  group_size: 2',
      '  max_steps: 4',
      '  history: 2',
      '  max_prompt_tokens: 512',
      '  max_response_tokens: 32',
      'rl:',
      '  mini_batch_size: 8',
      '  micro_batch_size: 4',
      '',
    ].join('\n'),
  );
  execFileSync(python, ['-m', 'seed_trainer', 'train', experiment], { cwd: session.workspace, stdio: 'pipe', timeout: 240_000, env: { ...process.env, OMP_NUM_THREADS: '1' } });
  const runs = readdirSync(path.join(session.workspace, 'runs')).filter((name) => name.includes('heatmap-demo'));
  if (runs.length !== 1) fail(`the household run did not leave one run folder: ${runs.join(', ')}`);
  return path.join(session.workspace, 'runs', runs[0]!);
}

/** A before → after row under a run: its icon is an arrow (up, down or both ways). */
const isChangeRow = (row: DrawnLabel): boolean => /^arrow-(up|down|both)$/.test(row.icon);

/** The Runs tree and the TRAINER view at the default sidebar width: every run's label and description, every trainer
 * line's label, and the before → after row of the run linked to its base evaluation drawn whole (issue 41: labels were
 * cut; issue 54 item 5: the descriptions, where the result and the change's interval are, were cut). The trainer's
 * lines' descriptions (paths) may be cut. */
async function labelsAtDefaultWidth(page: Page): Promise<string[]> {
  return inSeedSidebar(page, async () => {
    // All five runs listed (two of household-seed, the before/after pair, the household run), the trainer probed.
    await page.locator('.monaco-list-row', { hasText: 'heatmap-demo' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.monaco-list-row', { hasText: 'Trainer:' }).filter({ hasText: 'seed_trainer' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    const linked = page.locator('.monaco-list-row[aria-level="1"]', { hasText: 'before-after · seed' }).first();
    await linked.click();
    await page.locator('.monaco-list-row[aria-level="2"]').filter({ has: page.locator('.codicon-arrow-both') }).first().waitFor({ state: 'visible', timeout: 30_000 });
    // A selected row shows its inline actions over its text, as a hovered one does: nothing selected.
    await page.keyboard.press('Escape');
    await page.locator('.part.sidebar .monaco-list-row.selected').first().waitFor({ state: 'detached', timeout: 5_000 });
    const runs = { pane: 'Runs', levels: [1, 2], descriptions: (row: DrawnLabel) => row.level === 1 || isChangeRow(row) };
    const { notes, labels, rows } = await wholeSidebarLabels(page, [runs, 'Trainer'], path.join(resultsDir, 'ui-runs-tree-default-width.png'));
    // Collapsed again for the steps after, which expect the runs' rows alone.
    await linked.click();
    await page.keyboard.press('Escape');
    for (const word of ['household-seed · seed', 'household-seed · grpo', 'heatmap-demo · sdar', 'before-after · seed']) {
      if (!labels.some((label) => label.includes(word))) fail(`no run labelled "${word}": ${labels.join(' | ')}`);
    }
    if (!rows.some(isChangeRow)) fail('no before → after row drawn');
    return notes;
  });
}

async function dashboardOfTwoRuns(page: Page): Promise<string[]> {
  await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  // Titles tell the two runs apart (same experiment name): algorithm, then the start time.
  await treeRow(page, 'household-seed · seed');
  await treeRow(page, 'household-seed · grpo', ['Control']);
  const row = page.locator('.monaco-list-row', { hasText: 'household-seed · grpo' }).first();
  await row.hover();
  await row.locator('.action-label[aria-label="Open Dashboard"]').click();

  const frame = webview(page);
  const table = frame.locator('.comparison-panel table');
  await table.waitFor({ state: 'visible', timeout: 30_000 });
  const heads = await table.locator('thead th').allTextContents();
  if (heads.length !== 3 || !heads[1]?.includes('household-seed · seed') || !heads[2]?.includes('household-seed · grpo')) fail(`comparison table columns: ${heads.join(' | ')}`);
  const cells = async (label: string) => table.locator('tr', { has: frame.locator('th', { hasText: new RegExp(`^${label.replace('.', '\\.')}$`) }) }).locator('td').allTextContents();
  const groupSize = await cells('rollout.group_size');
  if (groupSize.length !== 2 || groupSize[1] !== '4' || groupSize[0] === '4') fail(`rollout.group_size row: ${groupSize.join(' | ')}`);
  const algorithm = await cells('algorithm');
  if (algorithm.join(',') !== 'seed,grpo') fail(`algorithm row: ${algorithm.join(' | ')}`);
  const keys = (await table.locator('tbody th').allTextContents()).map((text) => text.trim());
  if (keys.some((key) => /^(sft|collect)\./.test(key))) fail(`Stage-2 runs compared by keys they never read: ${keys.join(' | ')}`);
  const evaluation = frame.locator('.evaluation-panel table');
  await evaluation.waitFor({ state: 'visible', timeout: 15_000 });
  const split = (await evaluation.locator('tr.split-row td').allTextContents()).map((t) => t.trim());
  if (split.length !== 2 || !split.every((t) => /^\d+% \[\d+–\d+\] n=\d+$/.test(t))) fail(`evaluation panel row: ${split.join(' | ')}`);
  // Both runs overlaid in the training success chart: one legend entry per run for "overall".
  const legend = await frame.locator('.card[data-chart="success"] .legend-item').allTextContents();
  const overall = legend.filter((text) => text.endsWith('overall'));
  if (overall.length !== 2) fail(`success legend: ${legend.join(' | ')}`);
  await frame.locator('.card[data-chart="eval"]:not([hidden]) canvas').waitFor({ timeout: 15_000 });
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-compare.png') });
  const strips = await quantileStripsAndRobustY(page);
  return [`comparison table: ${heads.slice(1).join(' vs ')}; rows ${keys.join(', ')}`, `evaluation panel: ${split.join(' vs ')}`, `success legend: ${overall.join(', ')}`, strips];
}

/** The fixture runs' quantiles of g and Δ (2 updates each) as strips: a box per update and run, before and after
 * "Robust y" is turned on. */
async function quantileStripsAndRobustY(page: Page): Promise<string> {
  const frame = webview(page);
  const drawn = async (chart: string): Promise<{ boxes: number; yMin: number; yMax: number }> =>
    frame.locator(`.card[data-chart="${chart}"] canvas`).evaluate((canvas) => {
      // runs in the page (this file is compiled without the DOM's types)
      const registry = (globalThis as unknown as { __seedCharts: Map<unknown, { $seedStrips?: number; scales: { y: { min: number; max: number } } }> }).__seedCharts;
      const chart = registry.get(canvas);
      return { boxes: chart?.$seedStrips ?? 0, yMin: chart?.scales.y.min ?? NaN, yMax: chart?.scales.y.max ?? NaN };
    });
  const renders = async (): Promise<number> => frame.locator('body').evaluate(() => (globalThis as unknown as { __seedDashboard: { renders: number } }).__seedDashboard.renders);
  const seen: string[] = [];
  for (const chart of ['gate-quantiles', 'delta-quantiles']) {
    await frame.locator(`.card[data-chart="${chart}"]:not([hidden]) canvas`).waitFor({ timeout: 15_000 });
    const { boxes } = await drawn(chart);
    if (boxes !== 4) fail(`${chart}: ${boxes} boxes drawn, expected one per update of each run (4)`);
  }
  const before = await drawn('delta-quantiles');
  const count = await renders();
  await frame.locator('#robust-y').click();
  for (let i = 0; i < 40 && (await renders()) <= count; i += 1) await page.waitForTimeout(250);
  if ((await renders()) <= count) fail('"Robust y" did not redraw the charts');
  const after = await drawn('delta-quantiles');
  if (after.boxes !== 4) fail(`delta-quantiles after "Robust y": ${after.boxes} boxes drawn`);
  if ((await frame.locator('#robust-y').getAttribute('aria-checked')) === 'false') fail('"Robust y" is not checked after the click');
  await frame.locator('.card[data-chart="delta-quantiles"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-strips.png') });
  seen.push(`strips: 4 boxes per chart; Δ axis ${before.yMin.toFixed(3)}…${before.yMax.toFixed(3)}, robust ${after.yMin.toFixed(3)}…${after.yMax.toFixed(3)}`);
  return seen.join('; ');
}

async function fittedHeatmap(page: Page, runDir: string): Promise<string[]> {
  const reader = new RunReader(runDir, RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot })));
  const rows: TrajectoryIndexRow[] = (await reader.readTrajectoryIndex()).records.map((r) => r.value);
  const row = rows.find((r) => r.teacher) ?? fail('the household run wrote no trajectory with gates');
  const trajectory = await reader.findTrajectory(row.id);
  const gates = trajectory.steps.map((step) => (step.tokens ? decodeTokenArrays(step.tokens).gate : undefined));
  const scale = fittedScale('gate', gates);
  const first = decodeTokenArrays(trajectory.steps[0]!.tokens!);
  const quantiles = await trainerQuantiles(reader, rows);

  await page.keyboard.press('Escape');
  // Only this run's rows may match "Update 1", "group 0 ·" and "#0 …": collapse what the first step expanded.
  // The header's actions show on hover or while the view has focus (the dashboard step last clicked in the webview).
  const collapse = page.locator('.pane-header .action-label[aria-label="Collapse All"]').first();
  await collapse.locator('xpath=ancestor::div[contains(@class,"pane-header")]').hover();
  await collapse.click();
  await page.locator('.monaco-list-row', { hasText: 'Update 1' }).first().waitFor({ state: 'hidden', timeout: 10_000 });
  await treeRow(page, 'heatmap-demo · sdar');
  await treeRow(page, 'Update 1');
  await treeRow(page, `group ${row.group} ·`);
  await treeRow(page, `#${row.sample} ${row.success ? 'success' : 'failure'}`);

  const frame = webview(page);
  const tokens = frame.locator('.turn[data-turn="0"] .tok');
  await tokens.nth(first.count - 1).waitFor({ state: 'visible', timeout: 30_000 });
  if ((await frame.locator('.legend').getAttribute('data-scale')) !== 'fitted') fail('the viewer does not start on the fitted scale');
  const seen = await tokens.evaluateAll((spans) => spans.map((s) => [Number(s.getAttribute('data-i')), s.ownerDocument.defaultView!.getComputedStyle(s).backgroundColor] as [number, string]));
  for (const [index, background] of seen) {
    const expected = colorOf('gate', first.gate![index]!, scale);
    if (background !== expected) fail(`token ${index}: ${background}, expected ${expected} for g = ${first.gate![index]}`);
  }
  const all = gates.flatMap((g) => (g ? [...g] : []));
  const blank = (s: ReturnType<typeof heatScale>) => all.filter((g) => binOf(s, g) === CENTER_BIN).length / all.length;
  const coloured = seen.filter(([, background]) => background !== 'rgba(0, 0, 0, 0)').length;
  await page.screenshot({ path: path.join(resultsDir, 'ui-heatmap-fitted.png') });
  await frame.locator('[data-action="scale"]').click();
  await frame.locator('.legend[data-scale="absolute"]').waitFor({ timeout: 10_000 });
  const absolute = await tokens.evaluateAll((spans) => spans.filter((s) => s.ownerDocument.defaultView!.getComputedStyle(s).backgroundColor !== 'rgba(0, 0, 0, 0)').length);
  await page.screenshot({ path: path.join(resultsDir, 'ui-heatmap-absolute.png') });
  if (absolute > coloured) fail(`the absolute scale colours more tokens (${absolute}) than the fitted one (${coloured})`);
  return [
    `${row.id}: ${all.length} tokens; blank under the absolute scale ${(100 * blank(heatScale('gate'))).toFixed(0)} %, under the fitted scale ${(100 * blank(scale)).toFixed(0)} % (domain g ∈ [${scale.low.toFixed(3)}, ${scale.high.toFixed(3)}])`,
    `turn 1: ${coloured} of ${seen.length} tokens coloured (fitted), ${absolute} (absolute)`,
    quantiles,
  ];
}

/** The real trainer's metrics row of its one update: the quantiles of g are those of every gate its trajectories hold. */
async function trainerQuantiles(reader: RunReader, rows: TrajectoryIndexRow[]): Promise<string> {
  const row = (await reader.readMetrics()).records.map((r) => r.value).find((r) => r.kind === 'update') ?? fail('the household run wrote no update row');
  const summary = quantileSummary(row, 'gate') ?? fail(`the household run's update row has no quantiles of g: ${Object.keys(row).join(', ')}`);
  const gates: number[] = [];
  for (const entry of rows.filter((r) => r.teacher)) {
    for (const step of (await reader.findTrajectory(entry.id)).steps) gates.push(...(step.tokens ? (decodeTokenArrays(step.tokens).gate ?? []) : []));
  }
  const sorted = Float64Array.from(gates).sort();
  if (summary.count !== sorted.length) fail(`gate/count ${summary.count}, but the trajectories hold ${sorted.length} gates`);
  if (Math.abs(summary.p50 - quantileOfSorted(sorted, 0.5)) > 1e-6) fail(`gate/p50 ${summary.p50} is not the median of the trajectories' gates`);
  return `trainer's quantiles of g over ${summary.count} tokens: p05 ${summary.p05.toFixed(3)}, p50 ${summary.p50.toFixed(3)}, p95 ${summary.p95.toFixed(3)}`;
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/dashboard.js', 'dist/webview/trajectory.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-dashboard-compare', timeoutSeconds: 300, session: { label: 'ui-compare', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      mkdirSync(resultsDir, { recursive: true });
      prepareComparedRuns(session);
      prepareBeforeAfterRuns(session);
      prepareNoSkillRun(session);
      const householdRun = trainHouseholdRun(session, python);
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      return runUiSteps(page, LABEL, 'ui-dashboard-compare', [
        ['the Runs tree and the TRAINER view at the default sidebar width: no label, run description or before → after cut', () => labelsAtDefaultWidth(page)],
        ['two runs selected in the Runs tree → dashboard overlay, comparison table, evaluation panel', () => dashboardOfTwoRuns(page)],
        ['household trajectory → heatmap on the fitted scale, "absolute" one click away', () => fittedHeatmap(page, householdRun)],
        ['a train run linked to its base evaluation → before/after in the Runs tree and the dashboard', () => beforeAfter(page)],
        ['its dashboard by default: the evaluation a line from the base, training success overall, task types on demand', () => dashboardDefaults(page)],
        ['two arms × three seeds selected → one dashboard, "Group by: all but seed" → a mean per arm, n = 3', () => dashboardGroupedBySeed(page, session)],
        ['a run that writes skills but parsed none → its gate charts say "No data yet"', () => noSkillData(page)],
        ['its parse-rate chart → PNG → save dialog → ≥ 1200 px on disk, "SEED: saved …" with Open and Reveal', () => pngExportSaved(page, session)],
      ]);
    },
  );
}

main();
