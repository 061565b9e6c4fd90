// Steps of the dashboard compare UI suite (dashboardCompare.ts) for issue 54: the dashboard's defaults (item 5: the
// evaluation drawn as a line from the base evaluation to the run's own, training success overall with the task types
// one click away), a run that writes skills but parsed none (item 3: its gate charts say so instead of vanishing), and
// a chart saved as PNG (item 9: at least 1200 px wide, then a notification naming the file with Open and Reveal).
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { DASHBOARD_CHARTS, NO_SKILL_DATA, chartOf } from '../../src/dashboard/shared/charts';
import { EXPORT_MIN_WIDTH } from '../../src/dashboard/shared/exportImage';
import { type CodeServerSession, repoRoot, resultsDir } from '../integration/codeServerSession';
import { fail, palette, webview } from './workbench';

const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
const NO_SKILLS = 'no-skills';

/** A SEED run whose analyzer parsed no skill in any update: `skill/parse_rate` 0 and none of the metrics drawn from
 * the teacher's scores or the skills (what the SmolLM2 template's first runs wrote). */
export function prepareNoSkillRun(session: CodeServerSession): void {
  const dir = path.join(session.workspace, 'runs', `20260305-120000-train-${NO_SKILLS}`);
  cpSync(fixtureRun, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...manifest, id: path.basename(dir), name: NO_SKILLS, started: '2026-03-05T12:00:00.000Z' }, null, 2));
  const metricsFile = path.join(dir, 'metrics.jsonl');
  const rows = readFileSync(metricsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const row of rows) {
    if (row.kind !== 'update') continue;
    for (const key of Object.keys(row)) if (chartOf(key)?.fromSkills || key.startsWith('gate/') || key.startsWith('delta/')) delete row[key];
    row['skill/parse_rate'] = 0;
  }
  writeFileSync(metricsFile, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
}

interface DrawnSeries {
  label: string;
  showLine: boolean;
  points: Array<[number, number]>;
}

/** The datasets a chart of the visible dashboard draws (from the page's chart registry). */
async function drawnSeries(page: Page, chart: string): Promise<DrawnSeries[]> {
  return webview(page)
    .locator(`.card[data-chart="${chart}"] canvas`)
    .evaluate((canvas) => {
      // runs in the page (this file is compiled without the DOM's types)
      const registry = (globalThis as unknown as { __seedCharts: Map<unknown, { data: { datasets: Array<{ label: string; showLine?: boolean; data: Array<{ x: number; y: number }> }> } }> }).__seedCharts;
      return (registry.get(canvas)?.data.datasets ?? []).map((d) => ({ label: d.label, showLine: d.showLine === true, points: d.data.map((p) => [p.x, p.y] as [number, number]) }));
    });
}

const legendOf = async (page: Page, chart: string): Promise<string[]> => (await webview(page).locator(`.card[data-chart="${chart}"] .legend-item`).allTextContents()).map((text) => text.trim());

/** The open dashboard of the run linked to its base evaluation: the evaluation a line from the base (update 0) to the
 * run's own; training success overall only, until "Per task type" adds the task types. */
export async function dashboardDefaults(page: Page): Promise<string[]> {
  const frame = webview(page);
  const evaluation = (await drawnSeries(page, 'eval')).filter((series) => !series.label.endsWith('(raw)'));
  const overall = evaluation.find((series) => series.label.endsWith('overall'));
  if (!overall?.showLine || overall.points.length !== 2 || overall.points[0]?.[0] !== 0) fail(`the evaluation is not drawn as a line from update 0: ${JSON.stringify(evaluation)}`);
  if (evaluation.length !== 1) fail(`the evaluation chart draws ${evaluation.length} series by default: ${evaluation.map((s) => s.label).join(', ')}`);
  const success = await legendOf(page, 'success');
  if (success.length !== 1 || !success[0]!.endsWith('overall')) fail(`the training success legend by default: ${success.join(' | ')}`);
  if ((await frame.locator('#per-task-type').getAttribute('aria-checked')) === 'true') fail('"Per task type" is on by default');
  await frame.locator('.card[data-chart="success"]').scrollIntoViewIfNeeded();
  await page.mouse.move(1000, 880);
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-defaults.png') });

  await frame.locator('#per-task-type').click();
  const wanted = ['overall', 'heat', 'clean'];
  let perType: string[] = [];
  for (let i = 0; i < 40 && perType.length < wanted.length; i += 1, await page.waitForTimeout(250)) perType = await legendOf(page, 'success');
  if (!wanted.every((type) => perType.some((label) => label.endsWith(type)))) fail(`"Per task type" on: the success legend is ${perType.join(' | ')}`);
  const evalPerType = (await drawnSeries(page, 'eval')).filter((series) => !series.label.endsWith('(raw)')).map((series) => series.label);
  await frame.locator('#per-task-type').click(); // back to the default, as saved in the panel's state
  return [
    `evaluation: ${overall.label} drawn as a line through ${JSON.stringify(overall.points)}`,
    `training success by default: ${success.join(', ')}; with "Per task type": ${perType.join(', ')}`,
    `evaluation series with "Per task type": ${evalPerType.join(', ')}`,
  ];
}

/** The dashboard of the run that parsed no skill: each chart drawn from the skills is shown with its "No data yet"
 * note and no canvas; the parse rate has its points. */
export async function noSkillData(page: Page): Promise<string[]> {
  await palette(page, 'View: Close All Editors');
  const row = page.locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: `${NO_SKILLS} · seed` }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.hover();
  await row.locator('.action-label[aria-label="Open Dashboard"]').click();
  const frame = webview(page);
  await frame.locator('.card[data-chart="parse"]:not([hidden]) canvas').waitFor({ timeout: 30_000 });
  const fromSkills = DASHBOARD_CHARTS.filter((spec) => spec.fromSkills).map((spec) => spec.id);
  const notes: string[] = [];
  for (const chart of fromSkills) {
    const card = frame.locator(`.card[data-chart="${chart}"]`);
    const note = ((await card.locator('.no-data').textContent()) ?? '').trim();
    if ((await card.isHidden()) || note !== NO_SKILL_DATA) fail(`chart ${chart}: ${(await card.isHidden()) ? 'hidden' : `says "${note}"`}`);
    if (!(await card.locator('.canvas-holder').isHidden())) fail(`chart ${chart} draws an empty canvas beside its note`);
    notes.push(chart);
  }
  if (!(await frame.locator('.card[data-chart="parse"] .no-data').isHidden())) fail('the parse-rate chart says it has no data');
  const parse = await drawnSeries(page, 'parse');
  if (!parse.some((series) => series.points.length === 2 && series.points.every(([, y]) => y === 0))) fail(`the parse rate is not drawn at 0: ${JSON.stringify(parse)}`);
  await frame.locator('.card[data-chart="gate"]').scrollIntoViewIfNeeded();
  await page.mouse.move(1000, 880);
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-no-skill-data.png') });
  return [`"${NO_SKILL_DATA}" in ${notes.join(', ')}; the parse rate drawn at 0 over 2 updates`];
}

/** A PNG file's pixel size, from its IHDR chunk (the first, right after the 8-byte signature). */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  if (bytes.length < 24 || bytes.toString('latin1', 1, 4) !== 'PNG' || bytes.toString('latin1', 12, 16) !== 'IHDR') fail(`${file} is not a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The open dashboard's parse-rate chart → its PNG button → code-server's save dialog (a quick input holding the
 * path: the user types where) → the file on disk at least EXPORT_MIN_WIDTH px wide, and "SEED: saved parse.png" with
 * Open and Reveal; Open shows it in an editor. */
export async function pngExportSaved(page: Page, session: CodeServerSession): Promise<string[]> {
  const frame = webview(page);
  const card = frame.locator('.card[data-chart="parse"]');
  await card.locator('canvas').waitFor({ state: 'visible', timeout: 30_000 });
  await card.locator('button[data-action="png"]').click();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog writes its folder's path into the input once it has listed it: a path typed before is overwritten.
  await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
  const proposed = await input.inputValue();
  const target = path.join(session.workspace, 'parse-rate.png');
  await input.fill(target);
  await page.keyboard.press('Enter');
  // Under load the dialog can take the Enter while it lists the folder again and stay open: confirm again.
  for (let tries = 0; tries < 5 && !existsSync(target); tries += 1) {
    await page.waitForTimeout(2_000);
    if (!existsSync(target) && (await input.isVisible())) {
      if ((await input.inputValue()) !== target) await input.fill(target);
      await input.focus();
      await page.keyboard.press('Enter');
    }
  }
  const notice = page.locator('.notifications-toasts .notification-list-item', { hasText: 'SEED: saved parse-rate.png' }).first();
  await notice.waitFor({ state: 'visible', timeout: 30_000 });
  const text = ((await notice.locator('.notification-list-item-message').textContent()) ?? '').trim();
  const buttons = (await notice.locator('.notification-list-item-buttons-container .monaco-button').allTextContents()).map((b) => b.trim());
  if (text !== 'SEED: saved parse-rate.png' || buttons.join(',') !== 'Open,Reveal') fail(`the saved notice: "${text}" [${buttons.join(', ')}]`);
  if (!existsSync(target)) fail(`${target} was not written`);
  const size = pngSize(target);
  if (size.width < EXPORT_MIN_WIDTH) fail(`the exported PNG is ${size.width} px wide, under ${EXPORT_MIN_WIDTH}`);
  await page.mouse.move(1000, 400);
  await page.screenshot({ path: path.join(resultsDir, 'ui-dashboard-export-saved.png') });
  await notice.locator('.monaco-button', { hasText: /^Open$/ }).click();
  await page.locator('.tabs-container .tab', { hasText: 'parse-rate.png' }).first().waitFor({ state: 'visible', timeout: 15_000 });
  return [`the dialog proposed ${path.basename(proposed)}; saved ${path.relative(session.workspace, target)} ${size.width}×${size.height} px`, `notice: "${text}" [${buttons.join(', ')}]; Open showed it in an editor`];
}
