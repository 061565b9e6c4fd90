// A step of test/ui/dashboardCompare.ts (issue 54: runs grouped by seed, as W&B does): two arms × three seeds of one
// experiment appear in the workspace (copies of the fixture run, SEED and GRPO, seeds 0–2, each with its own
// successes); the six are selected in the Runs tree, opened in one dashboard, "Group by: all but seed" is picked there,
// and the success chart draws one mean per arm — its legend says "mean of 3 seeds" — with the seeds one click away.
// Screenshot: test-results/ui-dashboard-groups.png.
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type CodeServerSession, repoRoot, resultsDir } from '../integration/codeServerSession';
import { fail, webview } from './workbench';

const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');

/** The arms' runs: training success at update s is base + s/10 (the fixture's two updates), so at update 1 the SEED
 * arm's mean is 0.55 + 0.1 = 0.65 and the GRPO arm's 0.25 + 0.1 = 0.35. */
const ARMS = [
  { algorithm: 'seed', seed: 0, base: 0.5 },
  { algorithm: 'seed', seed: 1, base: 0.55 },
  { algorithm: 'seed', seed: 2, base: 0.6 },
  { algorithm: 'grpo', seed: 0, base: 0.2 },
  { algorithm: 'grpo', seed: 1, base: 0.25 },
  { algorithm: 'grpo', seed: 2, base: 0.3 },
];

/** Writes the six runs next to the workspace, then moves each into runs/ whole (no half-written run is listed). */
export function prepareArmRuns(session: CodeServerSession): void {
  const staging = path.join(session.workspace, '..', 'arm-runs');
  mkdirSync(staging, { recursive: true });
  ARMS.forEach(({ algorithm, seed, base }, i) => {
    const name = `2026031${i}-120000-train-arms`;
    const dir = path.join(staging, name);
    cpSync(fixtureRun, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as Record<string, unknown> & { config: Record<string, unknown> };
    const started = `2026-03-1${i}T12:00:00.000Z`;
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...manifest, id: name, name: 'arms', algorithm, status: 'completed', started, config: { ...manifest.config, name: 'arms', algorithm, seed } }, null, 2));
    const metricsFile = path.join(dir, 'metrics.jsonl');
    const rows = readFileSync(metricsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const row of rows) if (row.kind === 'update') row['success/overall'] = base + (row.step as number) / 10;
    writeFileSync(metricsFile, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    renameSync(dir, path.join(session.workspace, 'runs', name));
  });
}

/** The six runs selected in the Runs tree → one dashboard → "Group by: all but seed" → a mean per arm, n = 3. */
export async function dashboardGroupedBySeed(page: Page, session: CodeServerSession): Promise<string[]> {
  await page.keyboard.press('Escape');
  const collapse = page.locator('.pane-header .action-label[aria-label="Collapse All"]').first();
  await collapse.locator('xpath=ancestor::div[contains(@class,"pane-header")]').hover().catch(() => undefined);
  await collapse.click({ timeout: 5_000 }).catch(() => undefined);
  prepareArmRuns(session);
  // Runs moved in whole may reach the Runs view's watcher late: Refresh Runs, as a user would.
  const refresh = page.locator('.pane-header .action-label[aria-label="Refresh Runs"]').first();
  await refresh.locator('xpath=ancestor::div[contains(@class,"pane-header")]').hover();
  await refresh.click();
  const rows = page.locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: /arms · (seed|grpo)/ });
  for (let i = 0; i < 60 && (await rows.count()) < ARMS.length; i += 1) await page.waitForTimeout(500);
  if ((await rows.count()) !== ARMS.length) fail(`the Runs tree lists ${await rows.count()} runs of "arms", not ${ARMS.length}: ${(await rows.allTextContents()).join(' | ')}`);
  // Nothing selected, then each run added with Ctrl (a plain click would open a run instead of adding it).
  await rows.first().click({ modifiers: ['Control'] });
  await page.keyboard.press('Escape');
  for (let i = 0; i < ARMS.length; i += 1) await rows.nth(i).click({ modifiers: ['Control'] });
  const selected = await page.locator('.part.sidebar .monaco-list-row.selected').count();
  if (selected !== ARMS.length) fail(`${selected} rows selected, not the ${ARMS.length} runs`);
  await rows.last().hover();
  await rows.last().locator('.action-label[aria-label="Open Dashboard"]').click();

  const frame = webview(page);
  const heads = frame.locator('.comparison-panel thead tr:last-child th');
  await frame.locator('.comparison-panel thead th', { hasText: 'arms · grpo' }).first().waitFor({ timeout: 30_000 });
  for (let i = 0; i < 30 && (await heads.count()) !== ARMS.length + 1; i += 1) await page.waitForTimeout(500);
  if ((await heads.count()) !== ARMS.length + 1) fail(`the dashboard compares ${(await heads.count()) - 1} runs, not ${ARMS.length}: ${(await heads.allTextContents()).join(' | ')}`);
  await frame.locator('.card[data-chart="success"]:not([hidden]) canvas').waitFor({ timeout: 15_000 });
  // "Group by" in the toolbar, as a user picks it.
  await frame.locator('vscode-single-select#group-by').click();
  await frame.locator('vscode-single-select#group-by [role="option"]', { hasText: /^\s*all but seed\s*$/ }).click();
  const card = frame.locator('.card[data-chart="success"]');
  await card.locator('.legend-expand').nth(1).waitFor({ timeout: 15_000 });
  const strip = (text: string): string => text.replace(/[\u2068\u2069]/g, '').replace(/\s+/g, ' ').trim();
  const legend = (await card.locator('.legend-item').allTextContents()).map(strip);
  const expected = ['algorithm=grpo · overall — mean of 3 seeds, 95 % t-interval; steps all 3 reached', 'algorithm=seed · overall — mean of 3 seeds, 95 % t-interval; steps all 3 reached'];
  if (legend.join('\n') !== expected.join('\n')) fail(`grouped legend: ${legend.join(' | ')}`);
  const disclosures = (await card.locator('.legend-expand').allTextContents()).map(strip);
  if (disclosures.join() !== '▸ 3 seeds,▸ 3 seeds') fail(`group disclosures: ${disclosures.join(' | ')}`);
  // The means as drawn: at update 1 (each run's first point, which smoothing leaves as it is) 0.35 and 0.65.
  const means = await card.locator('canvas').evaluate((canvas) => {
    // runs in the page (this file is compiled without the DOM's types)
    const registry = (globalThis as unknown as { __seedCharts: Map<unknown, { data: { datasets: Array<{ label: string; data: Array<{ x: number; y: number }> }> } }> }).__seedCharts;
    return (registry.get(canvas)?.data.datasets ?? []).filter((d) => d.label.endsWith('steps all 3 reached')).map((d) => d.data.map((p) => [p.x, p.y]));
  });
  const near = (a: number | undefined, b: number): boolean => a !== undefined && Math.abs(a - b) < 1e-9;
  if (means.length !== 2 || !near(means[0]?.[0]?.[1], 0.35) || !near(means[1]?.[0]?.[1], 0.65) || means.some((m) => m.map((p) => p[0]).join() !== '1,2')) {
    fail(`the arms' mean lines: ${JSON.stringify(means)}`);
  }
  // The seeds one click away: the GRPO arm's three runs listed and drawn behind its mean.
  await card.locator('.legend-expand').first().click();
  await card.locator('.legend-item.member').nth(2).waitFor({ timeout: 10_000 });
  const members = (await card.locator('.legend-item.member').allTextContents()).map(strip);
  if (members.length !== 3 || !members.every((m) => /^arms · grpo.* · overall$/.test(m))) fail(`the GRPO arm's seeds: ${members.join(' | ')}`);
  const caption = strip((await card.locator('.chart-caption').textContent()) ?? '');
  await card.evaluate((element) => element.scrollIntoView({ block: 'center' })); // its title clear of the sticky toolbar
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-groups.png') });
  return [`success legend: ${legend.join(' | ')}`, `GRPO seeds: ${members.join(' | ')}`, `caption: ${caption}`];
}
