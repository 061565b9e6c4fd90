// End to end in code-server, like a user: a fixture run in the workspace, the SEED runs tree → a trajectory → the
// viewer's gate heatmap (colours checked against the fixture's values, hover card read); then skills.jsonl opened from
// Quick Open in the skill review → Accept → save → the file on disk has the decision and nothing else changed; the
// status bar counts follow. Last, a run with `opd.estimator: baseline`: its trajectory from the palette, coloured by
// g − b(s) (the update's weight), legend and hover card naming the estimator. Then issue 54's items 6 and 7 on an
// edited copy of the fixture run (reviewChecks.ts): a skill about another episode flagged in the viewer and the
// review, and the diff of a mixed group opened from the Runs tree.
//
//   npm run build && node out/test/ui/trajectoryReview.js
//
// Writes test-results/ui-trajectory-heatmap.png, ui-skill-review.png, ui-trajectory-gate-baseline.png,
// ui-skill-mismatch-viewer.png, ui-skill-mismatch-review.png and ui-diff-labels.png.
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { RunReader, RunSchemas, decodeTokenArrays, findSchemasDir } from '../../src/runs/core';
import { colorOf, fittedScale } from '../../src/trajectory/shared/colorScale';
import { formatNumber } from '../../src/trajectory/shared/format';
import { gateMinusBaseline } from '../../src/runs/shared/opdEstimator';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { fail, palette, runUiSteps, treeRow, webview } from './workbench';
import { diffLabels, mismatchInReview, mismatchInViewer, pick, prepareCheckRun, quickOpen } from './reviewChecks';

const LABEL = 'trajectory & review ui (code-server)';
const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
const baselineRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid-baseline');

async function heatmapFromTree(page: Page): Promise<string[]> {
  const notes: string[] = [];
  const reader = new RunReader(fixtureRun, RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot })));
  const trajectory = await reader.findTrajectory('it-000001-0001');
  const arrays = decodeTokenArrays(trajectory.steps[0]!.tokens!);

  await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  await treeRow(page, /household-seed(?!-baseline)/);
  await treeRow(page, 'Update 1');
  await treeRow(page, 'heat');
  await treeRow(page, '#0 success');

  const frame = webview(page);
  const tokens = frame.locator('.turn[data-turn="0"] .tok');
  await tokens.nth(arrays.count - 1).waitFor({ state: 'visible', timeout: 30_000 });
  const seen = await tokens.evaluateAll((spans) => spans.map((s) => [Number(s.getAttribute('data-i')), s.ownerDocument.defaultView!.getComputedStyle(s).backgroundColor] as [number, string]));
  if (seen.length !== arrays.count) fail(`turn 1 has ${seen.length} token spans, the fixture ${arrays.count} tokens`);
  // The viewer's default scale: fitted to all the trajectory's gates.
  const scale = fittedScale('gate', trajectory.steps.map((step) => (step.tokens ? decodeTokenArrays(step.tokens).gate : undefined)));
  for (const [index, background] of seen) {
    const expected = colorOf('gate', arrays.gate![index]!, scale);
    if (background !== expected) fail(`token ${index}: background ${background}, expected ${expected} for g = ${arrays.gate![index]}`);
  }
  notes.push(`${seen.length} tokens of turn 1 coloured by g (${new Set(seen.map(([, b]) => b)).size} colours)`);
  await tokens.nth(4).hover();
  const gate = (await frame.locator('.token-card [data-k="gate"] .card-value').textContent())?.trim();
  if (gate !== formatNumber(arrays.gate![4])) fail(`hover shows g ${gate}, expected ${formatNumber(arrays.gate![4])}`);
  notes.push(`hover card shows g ${gate}`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-trajectory-heatmap.png') });
  return notes;
}

async function acceptFromReview(page: Page, session: CodeServerSession): Promise<string[]> {
  const file = path.join(session.workspace, 'runs', 'valid', 'skills.jsonl');
  const before = readFileSync(file, 'utf8').split('\n');
  await palette(page, 'View: Close All Editors');
  await quickOpen(page, 'runs/valid/skills.jsonl');

  const frame = webview(page);
  const card = frame.locator('.card[data-id="collect-000001-0001"]');
  await card.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await card.getAttribute('data-state')) !== 'pending') fail('the fixture record is not pending');
  await card.locator('[data-action="accept"]').click();
  await frame.locator('.card[data-id="collect-000001-0001"][data-state="accepted"]').waitFor({ timeout: 15_000 });
  const status = page.locator('.statusbar-item', { hasText: 'reviewed' }).first();
  await status.waitFor({ timeout: 10_000 });
  const statusText = ((await status.textContent()) ?? '').trim();
  if (!statusText.includes('4/4 reviewed') || !statusText.includes('0 pending')) fail(`status bar says "${statusText}"`);

  await page.keyboard.press('Control+S');
  let after = before;
  for (let waited = 0; waited < 10_000 && after[0] === before[0]; waited += 200) {
    if (waited === 4_000) await palette(page, 'File: Save'); // the webview did not forward Ctrl+S
    await new Promise((resolve) => setTimeout(resolve, 200));
    after = readFileSync(file, 'utf8').split('\n');
  }
  const record = JSON.parse(after[0]!) as { review?: { state?: string } };
  if (record.review?.state !== 'accepted') fail(`skills.jsonl line 1 on disk has review ${JSON.stringify(record.review)}`);
  if (after.length !== before.length || after.slice(1).some((line, i) => line !== before[i + 1])) fail('other lines of skills.jsonl changed');
  await page.screenshot({ path: path.join(resultsDir, 'ui-skill-review.png') });
  return [`Accept → saved: line 1 on disk is ${JSON.stringify(record.review)}; ${after.length - 2} other records byte-identical`, `status bar: ${statusText}`];
}

async function baselineWeights(page: Page): Promise<string[]> {
  const reader = new RunReader(baselineRun, RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot })));
  const trajectory = await reader.findTrajectory('it-000001-0001');
  const arrays = decodeTokenArrays(trajectory.steps[0]!.tokens!);
  const weight = gateMinusBaseline(arrays) ?? fail('the baseline fixture has no gate_baseline');
  await palette(page, 'View: Close All Editors');
  await palette(page, 'SEED: Open Trajectory');
  await pick(page, 'valid-baseline');
  await pick(page, 'it-000001-0001');

  const frame = webview(page);
  const estimator = frame.locator('.fact[data-fact="estimator"] .fact-value');
  await estimator.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await estimator.textContent()) !== 'baseline') fail(`the header says estimator ${await estimator.textContent()}`);
  const button = frame.locator('.mode[data-mode="weight"]');
  if ((await button.textContent()) !== 'g − b(s)' || (await button.isDisabled())) fail(`the g − b button reads "${await button.textContent()}"`);
  await button.click();
  await frame.locator('.legend[data-mode="weight"]').waitFor({ timeout: 10_000 });
  const title = (await frame.locator('.legend-title').textContent()) ?? '';
  const note = (await frame.locator('.legend [data-k="estimator-note"]').textContent()) ?? '';
  if (!title.startsWith('update weight g − b(s)') || !note.startsWith('opd.estimator: baseline') || !note.includes('b(s) = Σ_v π_old(v|s)·g(v)')) fail(`legend "${title}" / "${note}"`);

  const tokens = frame.locator('.turn[data-turn="0"] .tok');
  await tokens.nth(arrays.count - 1).waitFor({ state: 'visible', timeout: 30_000 });
  const seen = await tokens.evaluateAll((spans) => spans.map((s) => [Number(s.getAttribute('data-i')), s.ownerDocument.defaultView!.getComputedStyle(s).backgroundColor] as [number, string]));
  // The default scale is fitted to every turn's g − b (diverging around 0).
  const scale = fittedScale('weight', trajectory.steps.map((step) => (step.tokens ? gateMinusBaseline(decodeTokenArrays(step.tokens)) : undefined)));
  for (const [index, background] of seen) {
    const expected = colorOf('weight', weight[index]!, scale);
    if (background !== expected) fail(`token ${index}: background ${background}, expected ${expected} for g − b = ${weight[index]}`);
  }
  await tokens.nth(4).hover();
  const card = async (key: string) => ((await frame.locator(`.token-card [data-k="${key}"] .card-value`).textContent()) ?? '').trim();
  const shown = { b: await card('baseline'), weight: await card('weight') };
  if (shown.b !== formatNumber(arrays.gateBaseline![4]) || shown.weight !== formatNumber(weight[4])) fail(`hover shows b ${shown.b}, g − b ${shown.weight}`);
  const label = ((await frame.locator('.token-card [data-k="weight"] .card-label').textContent()) ?? '').trim();
  if (!label.startsWith('g − b(s)')) fail(`hover labels g − b as "${label}"`);
  await page.screenshot({ path: path.join(resultsDir, 'ui-trajectory-gate-baseline.png') });
  return [
    `${seen.length} tokens of turn 1 coloured by g − b(s) (${new Set(seen.map(([, b]) => b)).size} colours, domain ±${scale.high.toFixed(3)})`,
    `hover card: b(s) ${shown.b}, g − b(s) ${shown.weight}; legend: ${title}`,
  ];
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/trajectory.js', 'dist/webview/review.js');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-trajectory-review', timeoutSeconds: 210, session: { label: 'ui-trajectory', env: { SEED_PYTHON: python }, installExtension: true } },
    async (session) => {
      cpSync(fixtureRun, path.join(session.workspace, 'runs', 'valid'), { recursive: true });
      cpSync(baselineRun, path.join(session.workspace, 'runs', 'valid-baseline'), { recursive: true });
      prepareCheckRun(session);
      mkdirSync(resultsDir, { recursive: true });
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      return runUiSteps(page, LABEL, 'ui-trajectory-review', [
        ['runs tree → trajectory → gate heatmap', () => heatmapFromTree(page)],
        ['skill review → Accept → save → skills.jsonl on disk', () => acceptFromReview(page, session)],
        ['baseline run → trajectory → colour by g − b(s)', () => baselineWeights(page)],
        ['a skill about another episode flagged in the viewer; one about its own task not', () => mismatchInViewer(page)],
        ['the same skills in the skill review: the same flag on the same card only', () => mismatchInReview(page)],
        ['Runs tree → a mixed group → Compare Trajectories: badges, score title, episode deltas once, Δg 0.000', () => diffLabels(page)],
      ]);
    },
  );
}

main();
