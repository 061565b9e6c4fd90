// End to end in code-server, like a user: the learning benchmark's 19 runs (test/ui/benchmarkRuns.ts, written in
// setup), the valid fixture run, and a train run linked to its base evaluation (test/fixtures/runs/valid-eval-*) in a
// workspace. The Runs tree draws every row whole at the default sidebar width, the linked run's before → after too.
// SEED: Open Runs Table lists them; a header sorts, the filter narrows, a pinned baseline adds a Δ column after each
// evaluation (the paired change with its interval), a tag is written to the run's tags.json, the CSV is saved, two
// selected runs open in the dashboard; the evaluation sample table of a run shows the summary per task type with
// Wilson intervals, sorts and filters. The linked run's evaluation samples say why each failed episode failed and a row
// opens its trajectory; compared with the base evaluation, its tasks pair up with the flips each way, and a pair opens
// both transcripts side by side in the diff viewer.
//
//   npm run build && node out/test/ui/runsTables.js
//
// Writes test-results/ui-runs-tree-benchmark.png (the Runs tree at the default sidebar width, where no run's label or
// description may be cut), ui-runs-table.png, ui-runs-table-baseline.png, ui-eval-samples.png, ui-eval-samples-why.png
// (the "why it failed" column filled), ui-eval-compare.png (the paired comparison) and ui-eval-compare-diff.png.
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { wilsonInterval } from '../../src/dashboard/shared/evaluation';
import { points, successChange } from '../../src/runs/shared/pairedChange';
import type { EvalReport } from '../../src/runs/shared/types';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { writeBenchmarkRuns, type WrittenRun } from './benchmarkRuns';
import { type DrawnLabel, fail, inSeedSidebar, palette, runUiSteps, webview, wholeSidebarLabels } from './workbench';

const LABEL = 'runs table & evaluation samples ui (code-server)';
const FIXTURE_RUN = '20260301-120000-train-household-seed';
/** test/fixtures/runs: the base evaluation first, then the train run whose run.json links it (`../valid-eval-base`). */
const PAIR_RUNS = ['valid-eval-base', 'valid-eval-trained'];

const shownRows = (frame: FrameLocator) => frame.locator('table.runs tbody tr');
const rowOf = (frame: FrameLocator, suffix: string) => frame.locator(`table.runs tbody tr[data-id$="${suffix}"]`);

async function waitForCount(frame: FrameLocator, expected: number, what: string): Promise<void> {
  const count = frame.locator('.count');
  try {
    await count.filter({ hasText: new RegExp(`^${expected} of `) }).waitFor({ timeout: 15_000 });
  } catch {
    fail(`${what}: the table says "${await count.textContent()}", expected ${expected} rows`);
  }
}

async function fillField(frame: FrameLocator, id: string, text: string): Promise<void> {
  const input = frame.locator(`vscode-textfield#${id} input`);
  await input.fill(text);
}

/** A before → after row under a run: its icon is an arrow (up, down or both ways). */
const isChangeRow = (row: DrawnLabel): boolean => /^arrow-(up|down|both)$/.test(row.icon);

/** The benchmark's runs and the fixture runs in the Runs tree at the default sidebar width: every run's label and
 * description drawn whole (issue 41, issue 54 item 5: the description, where the result is, was cut), and so is the
 * before → after row of the run linked to its base evaluation, its change and interval (issue 54 item 5). */
async function runsTreeLabels(page: Page): Promise<string[]> {
  return inSeedSidebar(page, async () => {
    // The TRAINER view collapsed, the Runs view has the height to draw every run (a tree draws only the rows in view).
    const trainer = page.locator('.part.sidebar .pane-header', { has: page.locator('.title', { hasText: /^trainer$/i }) }).first();
    if ((await trainer.getAttribute('aria-expanded')) === 'true') await trainer.click();
    await page.locator('.part.sidebar .pane-header[aria-expanded="false"]', { has: page.locator('.title', { hasText: /^trainer$/i }) }).first().waitFor({ timeout: 5_000 });
    // Rows by their tooltip (the row's accessible name), whose first line is the run's whole title: a label may be
    // shortened.
    const first = page.locator('.part.sidebar .monaco-list-row[aria-level="1"][aria-label^="bench-seed-oracle-s2 · seed"]').first();
    try {
      await first.waitFor({ state: 'visible', timeout: 30_000 });
    } catch {
      fail(`no run row named "bench-seed-oracle-s2 · seed": ${JSON.stringify(await page.locator('.part.sidebar .monaco-list-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('aria-label'))))}`);
    }
    const linked = page.locator('.part.sidebar .monaco-list-row[aria-level="1"][aria-label^="household-pair · seed"]').first();
    await linked.click();
    await page.locator('.part.sidebar .monaco-list-row[aria-level="2"]').filter({ has: page.locator('.codicon-arrow-both') }).first().waitFor({ state: 'visible', timeout: 30_000 });
    // A selected row shows its inline actions over its text, as a hovered one does: nothing selected.
    await page.keyboard.press('Escape');
    await page.locator('.part.sidebar .monaco-list-row.selected').first().waitFor({ state: 'detached', timeout: 5_000 });
    const runs = { pane: 'Runs', levels: [1, 2], descriptions: (row: DrawnLabel) => row.level === 1 || isChangeRow(row) };
    const { notes, rows } = await wholeSidebarLabels(page, [runs], path.join(resultsDir, 'ui-runs-tree-benchmark.png'));
    const top = rows.filter((row) => row.level === 1);
    if (top.length !== 19 + 1 + PAIR_RUNS.length) fail(`the Runs tree draws ${top.length} runs: ${top.map((row) => row.label).join(' | ')}`);
    const change = rows.find(isChangeRow);
    const clean = (text: string | undefined): string => (text ?? '').replace(/[\u2068\u2069]/g, '');
    // Four tasks, one gained and one lost: the paired interval, ±130 points as computed, is printed cut at ±100.
    if (clean(change?.label) !== 'valid_unseen' || !/^(50→50% )?\+0 \[-100, \+100\]$/.test(change?.description ?? '')) fail(`the before → after row reads "${clean(change?.label)}" "${change?.description}"`);
    return notes;
  });
}

async function runsTable(page: Page, session: CodeServerSession, runs: WrittenRun[]): Promise<string[]> {
  await palette(page, 'SEED: Open Runs Table');
  const frame = webview(page);
  await waitForCount(frame, runs.length + 1 + PAIR_RUNS.length, 'all runs');
  const heads = (await frame.locator('table.runs thead th[data-col]').allTextContents()).map((t) => t.trim());
  for (const wanted of ['run', 'tags', 'status', 'eval valid_seen', 'eval valid_unseen', 'algorithm', 'seed']) {
    if (!heads.includes(wanted)) fail(`default columns: ${heads.join(' | ')} (no ${wanted})`);
  }
  // The benchmark's runs only.
  await fillField(frame, 'filter', 'bench-');
  await waitForCount(frame, runs.length, 'filter bench-');
  // Best valid_seen first: a click sorts a number column descending.
  await frame.locator('th[data-col="eval:valid_seen"]').click();
  await frame.locator('th[data-col="eval:valid_seen"][aria-sort="descending"]').waitFor({ timeout: 5_000 });
  const best = [...runs].sort((a, b) => b.final['valid_seen']!.successes - a.final['valid_seen']!.successes)[0]!;
  const first = await shownRows(frame).first().getAttribute('data-key');
  if (first !== best.dir) fail(`sorted by valid_seen, the first row is ${first}, expected ${best.dir}`);
  const cell = ((await shownRows(frame).first().locator('td[data-col="eval:valid_seen"]').textContent()) ?? '').trim();
  const interval = wilsonInterval(best.final['valid_seen']!.successes, 120);
  const expectedCell = `${Math.round((100 * best.final['valid_seen']!.successes) / 120)}% [${Math.round(100 * interval.low)}–${Math.round(100 * interval.high)}] n=120`;
  if (cell !== expectedCell) fail(`valid_seen cell "${cell}", expected "${expectedCell}"`);
  // The filter language: a config key's value.
  await fillField(frame, 'filter', 'bench- algorithm=grpo');
  await waitForCount(frame, 5, 'algorithm=grpo');
  await fillField(frame, 'filter', 'bench-');
  await waitForCount(frame, runs.length, 'filter bench-');

  // A tag, written to the run's tags.json.
  const tagged = runs.find((r) => r.variant === 'seed' && r.seed === 4)!;
  await rowOf(frame, path.basename(tagged.dir)).click();
  await fillField(frame, 'tag-input', 'promising');
  await frame.locator('vscode-button[data-action="add-tag"]').click();
  await rowOf(frame, path.basename(tagged.dir)).locator('.tag[data-tag="promising"]').waitFor({ timeout: 15_000 });
  const tagsFile = path.join(tagged.dir, 'tags.json');
  const tags = (JSON.parse(readFileSync(tagsFile, 'utf8')) as { tags: string[] }).tags;
  if (tags.join() !== 'promising') fail(`tags.json holds ${JSON.stringify(tags)}`);
  await fillField(frame, 'filter', 'tag:promising');
  await waitForCount(frame, 1, 'tag:promising');
  await page.screenshot({ path: path.join(resultsDir, 'ui-runs-table.png') });
  await fillField(frame, 'filter', 'bench-');
  await waitForCount(frame, runs.length, 'filter bench-');

  // A pinned baseline (a train run: the baseline of both splits): a Δ column after each evaluation, the baseline row
  // says so; another run's cell is the paired change of the two eval/valid_seen.json reports with its interval,
  // coloured only when the interval excludes 0.
  const baseline = runs.find((r) => r.variant === 'grpo' && r.seed === 0)!;
  await rowOf(frame, path.basename(baseline.dir)).click();
  await frame.locator('vscode-button[data-action="pin"]').click();
  await frame.locator('th[data-delta="eval:valid_seen"]').waitFor({ timeout: 15_000 });
  await frame.locator('th[data-delta="eval:valid_unseen"]').waitFor({ timeout: 5_000 });
  if ((await frame.locator('th[data-delta^="metric:"], th[data-delta^="config:"]').count()) !== 0) fail('a Δ column after a metric or config column');
  const baselineDelta = ((await rowOf(frame, path.basename(baseline.dir)).locator('td[data-delta="eval:valid_seen"]').textContent()) ?? '').trim();
  if (baselineDelta !== 'baseline') fail(`the baseline row's Δ cell says "${baselineDelta}"`);
  const report = (dir: string): EvalReport => JSON.parse(readFileSync(path.join(dir, 'eval', 'valid_seen.json'), 'utf8')) as EvalReport;
  const change = successChange(report(tagged.dir), report(baseline.dir));
  const deltaCell = rowOf(frame, path.basename(tagged.dir)).locator('td[data-delta="eval:valid_seen"]');
  const taggedDelta = ((await deltaCell.textContent()) ?? '').trim();
  const expectedDelta = `${points(change.change)} [${points(change.low)}, ${points(change.high)}]`;
  if (taggedDelta !== expectedDelta) fail(`Δ valid_seen of ${path.basename(tagged.dir)}: "${taggedDelta}", expected ${expectedDelta}`);
  const deltaClass = ((await deltaCell.getAttribute('class')) ?? '').split(/\s+/);
  const expectedClass = change.verdict === 'better' ? 'up' : change.verdict === 'worse' ? 'down' : undefined;
  if (expectedClass ? !deltaClass.includes(expectedClass) : deltaClass.includes('up') || deltaClass.includes('down')) fail(`Δ valid_seen (${change.verdict}) has the classes "${deltaClass.join(' ')}"`);
  const deltaTitle = (await deltaCell.getAttribute('title')) ?? '';
  if (!deltaTitle.includes(change.paired ? 'paired task by task over 120 tasks' : 'unpaired: different tasks')) fail(`Δ valid_seen title: "${deltaTitle}"`);
  const countText = ((await frame.locator('.count').textContent()) ?? '').trim();
  if (!countText.includes('baselines: valid_seen ← ') || !countText.includes('valid_unseen ← ')) fail(`the count line says "${countText}"`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-runs-table-baseline.png') });
  return [`${runs.length} benchmark runs + the fixture run; best valid_seen ${path.basename(best.dir)}: ${cell}`, `tag "promising" in ${path.relative(session.workspace, tagsFile)}; Δ valid_seen of ${path.basename(tagged.dir)} against ${path.basename(baseline.dir)}: ${taggedDelta} (${change.verdict})`];
}

async function exportCsv(page: Page, session: CodeServerSession, runs: WrittenRun[]): Promise<string[]> {
  const frame = webview(page);
  await frame.locator('vscode-button[data-action="csv"]').click();
  // code-server's save dialog is a quick input holding the default path (runs.csv in the workspace).
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog lists its folder after it opens and writes that folder's path into the input as it does: a path typed
  // before is overwritten (under load it was: runs.csv was never written). The listed entries say it has.
  await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
  const target = path.join(session.workspace, 'runs.csv');
  await input.fill(target);
  await page.keyboard.press('Enter');
  const started = Date.now();
  while (!existsSync(target) && Date.now() - started < 15_000) await new Promise((resolve) => setTimeout(resolve, 200));
  if (!existsSync(target)) fail('runs.csv was not written');
  const lines = readFileSync(target, 'utf8').trim().split('\n');
  if (lines.length !== runs.length + 1) fail(`runs.csv has ${lines.length} lines`);
  if (!lines[0]!.includes('eval valid_seen low') || !lines[0]!.includes('Δ eval valid_seen (pp)') || !lines[0]!.includes('Δ eval valid_seen paired')) fail(`runs.csv header: ${lines[0]}`);
  if (lines[0]!.includes('Δ seed') || lines[0]!.includes('Δ algorithm')) fail(`runs.csv: a Δ of a config column: ${lines[0]}`);
  return [`runs.csv: ${lines.length - 1} rows; header ${lines[0]!.slice(0, 100)}…`];
}

async function openInDashboard(page: Page, runs: WrittenRun[]): Promise<string[]> {
  const frame = webview(page);
  const a = runs.find((r) => r.variant === 'sdar' && r.seed === 1)!;
  const b = runs.find((r) => r.variant === 'grpo_opsd' && r.seed === 1)!;
  await rowOf(frame, path.basename(a.dir)).click();
  await rowOf(frame, path.basename(b.dir)).click({ modifiers: ['Control'] });
  await frame.locator('vscode-button[data-action="dashboard"]').click();
  const dashboard = webview(page);
  const table = dashboard.locator('.comparison-panel table');
  await table.waitFor({ state: 'visible', timeout: 30_000 });
  const heads = (await table.locator('thead th').allTextContents()).map((t) => t.trim());
  if (heads.length !== 3 || !heads.some((h) => h.includes('bench-sdar-s1')) || !heads.some((h) => h.includes('bench-grpo-opsd-s1'))) fail(`dashboard comparison columns: ${heads.join(' | ')}`);
  return [`dashboard: ${heads.slice(1).join(' vs ')}`];
}

async function evalSamples(page: Page, runs: WrittenRun[]): Promise<string[]> {
  // Back to the runs table (its tab), one run selected → Evaluation Samples.
  await page.locator('.tab', { hasText: 'SEED Runs' }).first().click();
  const frame = webview(page);
  const run = runs.find((r) => r.variant === 'seed' && r.seed === 0)!;
  await rowOf(frame, path.basename(run.dir)).waitFor({ timeout: 15_000 });
  await rowOf(frame, path.basename(run.dir)).click();
  await frame.locator('vscode-button[data-action="samples"]').click();
  const samples = webview(page);
  const summary = samples.locator('.summary-table tbody tr');
  await summary.first().waitFor({ timeout: 30_000 });
  const count = samples.locator('.count');
  await count.filter({ hasText: /^120 of 120 episodes$/ }).waitFor({ timeout: 10_000 });
  const overall = ((await summary.first().locator('td').first().textContent()) ?? '').trim();
  const interval = wilsonInterval(run.final['valid_seen']!.successes, 120);
  const expected = `${Math.round((100 * run.final['valid_seen']!.successes) / 120)}% [${Math.round(100 * interval.low)}–${Math.round(100 * interval.high)}] n=120`;
  if (overall !== expected) fail(`summary "${overall}", expected "${expected}"`);
  if ((await summary.count()) !== 7) fail(`summary rows: ${await summary.count()} (expected all types + 6)`);
  await samples.locator('vscode-textfield#filter input').fill('failure');
  const failures = 120 - run.final['valid_seen']!.successes;
  await count.filter({ hasText: new RegExp(`^${failures} of 120 episodes$`) }).waitFor({ timeout: 10_000 });
  await samples.locator('th[data-key="length"]').click();
  await samples.locator('th[data-key="length"]').click();
  await samples.locator('th[data-key="length"][aria-sort="descending"]').waitFor({ timeout: 5_000 });
  await samples.locator('.summary-table tr[data-type="heat"]').click();
  const heat = ((await count.textContent()) ?? '').trim();
  await page.screenshot({ path: path.join(resultsDir, 'ui-eval-samples.png') });
  return [`${path.basename(run.dir)} valid_seen: ${overall}; ${failures} failures; type:heat → ${heat}`];
}

/** The linked train run's failed evaluation episodes and why each failed, read from its trajectory
 * (test/fixtures/runs/valid-eval-trained: rollout.max_steps 4). */
const WHY_FAILED: Record<string, string> = {
  'eval-valid_unseen-0002': 'ran out of steps (4/4) · 3 without effect · “take knife 1 from drawer 1” ×3',
  'eval-valid_unseen-0003': 'ran out of steps (4/4) · 1 malformed',
};

/** SEED: Open Evaluation Samples from the palette, for the linked train run (its title in the run picker). */
async function openPairSamples(page: Page): Promise<FrameLocator> {
  await palette(page, 'SEED: Open Evaluation Samples');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill('household-pair');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'household-pair · seed' }).first().click();
  return webview(page);
}

/** "Why it failed" (issue 54): each failed episode of the linked run's evaluation says how it ended, its steps, the
 * actions that had no effect, the one it looped on and its malformed turns; then a failed row opens its trajectory. */
async function whyItFailed(page: Page): Promise<string[]> {
  const samples = await openPairSamples(page);
  await samples.locator('.count', { hasText: /^4 of 4 episodes$/ }).waitFor({ timeout: 30_000 });
  const failed = samples.locator('tr.failure[data-trajectory]');
  const whys: Record<string, string> = {};
  for (const row of await failed.all()) whys[(await row.getAttribute('data-trajectory')) ?? ''] = ((await row.locator('td[data-key="why"]').textContent()) ?? '').trim();
  const sorted = (record: Record<string, string>): string => JSON.stringify(Object.entries(record).sort());
  if (sorted(whys) !== sorted(WHY_FAILED)) fail(`"why it failed" says ${JSON.stringify(whys)}, expected ${JSON.stringify(WHY_FAILED)}`);
  const won = (await samples.locator('tr.success td[data-key="why"]').allTextContents()).filter((text) => text.trim() !== '');
  if (won.length > 0) fail(`a won episode says why it failed: ${JSON.stringify(won)}`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-eval-samples-why.png') });
  await samples.locator('tr[data-trajectory="eval-valid_unseen-0002"]').click();
  const viewer = webview(page);
  await viewer.locator('.turn[data-turn="3"]').first().waitFor({ timeout: 30_000 });
  return Object.entries(whys).map(([id, why]) => `${id}: ${why}`).concat('eval-valid_unseen-0002 opened in the trajectory viewer (4 turns)');
}

/** Issue 54's per-task comparison of two evaluations: the linked run's evaluation "compared with" its base evaluation
 * pairs the four tasks (one gained, one lost, one failed and one won both times), says the flips each way, filters
 * to the lost one, and that pair opens both transcripts side by side in the diff viewer. */
async function compareEvaluations(page: Page): Promise<string[]> {
  const samples = await openPairSamples(page);
  await samples.locator('.count', { hasText: /^4 of 4 episodes$/ }).waitFor({ timeout: 30_000 });
  await samples.locator('vscode-single-select#compare').click();
  await samples.locator('vscode-single-select#compare [role="option"]', { hasText: 'base evaluation' }).click();
  const summary = samples.locator('[data-k="compare-summary"]');
  await summary.filter({ hasText: 'on 4 paired tasks: 1 gained, 1 lost' }).waitFor({ timeout: 15_000 });
  const summaryText = ((await summary.textContent()) ?? '').replace(/[\u2068\u2069]/g, '');
  if (!summaryText.includes('against A (valid_unseen · base evaluation (household-pair · eval valid_unseen))')) fail(`the comparison says "${summaryText}"`);
  const pairs = await samples.locator('tr.pair').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-task')} ${row.getAttribute('data-change')}`));
  const expected = ['household/heat-mug-3 gained', 'household/clean-knife-1 lost', 'household/heat-mug-3 both failed', 'household/clean-knife-1 both won'];
  if ([...pairs].sort().join() !== [...expected].sort().join()) fail(`paired rows: ${pairs.join(', ')}`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-eval-compare.png') });
  await samples.locator('vscode-textfield#filter input').fill('lost');
  await samples.locator('.count', { hasText: /^1 of 4 tasks$/ }).waitFor({ timeout: 10_000 });
  const lost = samples.locator('tr.pair[data-change="lost"]');
  const lostWhy = ((await lost.locator('td').last().textContent()) ?? '').trim();
  if (lostWhy !== WHY_FAILED['eval-valid_unseen-0002']) fail(`the lost task's "why B failed" says "${lostWhy}"`);
  await lost.click();
  // The diff viewer: A the base evaluation's episode (won), B the trained run's (lost), side by side.
  const diff = webview(page);
  await diff.locator('.side-header.side-b .outcome.failure').waitFor({ timeout: 30_000 });
  const side = async (which: 'a' | 'b'): Promise<string> => ((await diff.locator(`.side-header.side-${which}`).textContent()) ?? '').replace(/[\u2068\u2069]/g, '');
  const [a, b] = [await side('a'), await side('b')];
  if (!a.includes('eval-valid_unseen-0002') || !a.includes('success') || !a.includes('run valid-eval-base')) fail(`side A: ${a}`);
  if (!b.includes('eval-valid_unseen-0002') || !b.includes('failure') || !b.includes('run valid-eval-trained')) fail(`side B: ${b}`);
  await diff.locator('[data-k="counts"]').waitFor({ timeout: 10_000 });
  const counts = ((await diff.locator('[data-k="counts"]').textContent()) ?? '').trim();
  await page.screenshot({ path: path.join(resultsDir, 'ui-eval-compare-diff.png') });
  return [summaryText, `pairs: ${pairs.join(', ')}`, `lost: ${lostWhy}`, `diff: ${a.slice(0, 80)}… | ${b.slice(0, 80)}…; ${counts}`];
}

function main(): void {
  runnerPrerequisites(LABEL, 'dist/webview/runsTable.js', 'dist/webview/evalSamples.js', 'dist/webview/dashboard.js', 'dist/webview/trajectory.js', 'dist/webview/diff.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-runs-tables', timeoutSeconds: 300, session: { label: 'ui-tables', installExtension: true } },
    async (session) => {
      mkdirSync(resultsDir, { recursive: true });
      const runs = writeBenchmarkRuns(session.workspace, repoRoot);
      cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), path.join(session.workspace, 'runs', FIXTURE_RUN), { recursive: true });
      // An evaluation of the starting policy and the train run linked to it, both with their episodes' trajectories.
      for (const name of PAIR_RUNS) cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', name), path.join(session.workspace, 'runs', name), { recursive: true });
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      return runUiSteps(page, LABEL, 'ui-runs-tables', [
        ['the Runs tree at the default sidebar width: every run\'s label and description whole, and a before → after row', () => runsTreeLabels(page)],
        ['runs table: 19 benchmark runs, sort, filter, tag, pinned baseline with the paired Δ', () => runsTable(page, session, runs)],
        ['runs table: CSV export', () => exportCsv(page, session, runs)],
        ['runs table: two selected runs open in the dashboard', () => openInDashboard(page, runs)],
        ['evaluation samples: summary per type with Wilson intervals, filter, sort', () => evalSamples(page, runs)],
        ['evaluation samples: "why it failed" of each failed episode; a row opens its trajectory', () => whyItFailed(page)],
        ['evaluation samples: compared with the base evaluation task by task, flips each way, a pair opens in the diff viewer', () => compareEvaluations(page)],
      ]);
    },
  );
}

main();
