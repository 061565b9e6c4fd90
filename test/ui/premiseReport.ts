// SEED: Show Premise Report end to end in code-server, like a user: a premise report in the workspace is opened from
// the explorer's context menu (offered on files named *premise*.json) and the panel says the verdict of each contrast
// in words, shows the tables, and shows a skill that is markup as text; the command from the palette asks for a file
// in the open dialog, and an invalid report is shown as a located error (file, field, message) whose button opens the
// JSON; once the file is written again as a valid report, the panel reads it by itself.
//
//   npm run build && node out/test/ui/premiseReport.js
//
// Writes test-results/ui-premise-report.png and ui-premise-invalid.png.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { contrastVerdict } from '../../src/premise/shared/premiseView';
import type { ExpertSection, PremiseReport } from '../../src/runs/shared/generated/premise';
import { type CodeServerSession, repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { contextMenuItem, fail, palette, runUiSteps, webview } from './workbench';

const LABEL = 'premise report ui (code-server)';
const FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'premise');
const REPORT = 'premise-report.json';
const INVALID = 'premise-invalid.json';
const IMG_SKILL = '<img src=x onerror=alert(1)>';

const clean = (text: string | null): string => (text ?? '').replace(/[\u2068\u2069]/g, '').trim();

async function fromExplorer(page: Page): Promise<string[]> {
  const report = JSON.parse(readFileSync(path.join(FIXTURES, 'report.json'), 'utf8')) as PremiseReport;
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: REPORT }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await contextMenuItem(page, row, 'Show Premise Report', `the explorer's row of ${REPORT}`);
  const frame = webview(page);
  const verdicts = frame.locator('[data-section="expert"] li.verdict');
  await verdicts.first().waitFor({ timeout: 60_000 });
  const shown = (await verdicts.allTextContents()).map(clean);
  const expected = (report.expert_vs_mistake as ExpertSection).contrasts.map((c) => contrastVerdict(c, 'expert').text);
  if (JSON.stringify(shown) !== JSON.stringify(expected)) fail(`verdicts: ${JSON.stringify(shown)}, expected ${JSON.stringify(expected)}`);
  const ownSkill = frame.locator('table[data-table="examples"] tbody tr').nth(1).locator('td').nth(2);
  if (clean(await ownSkill.textContent()) !== IMG_SKILL) fail(`the own skill shows "${await ownSkill.textContent()}"`);
  if ((await frame.locator('img').count()) !== 0) fail('an <img> element is on the page');
  const na = clean(await frame.locator('table[data-table="run"] tr[data-key="recorded"] td.na-reason').textContent());
  if (na !== 'n/a: no task with a skill') fail(`the recorded source of the first run says "${na}"`);
  const tab = clean(await page.locator('.tab.active').first().textContent());
  if (!tab.includes(`Premise · ${REPORT}`)) fail(`the active tab is "${tab}"`);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(resultsDir, 'ui-premise-report.png') });
  return [`${REPORT} from the explorer's context menu: ${shown.length} verdicts; "${shown[1]}"`];
}

async function invalidFromPalette(page: Page, session: CodeServerSession): Promise<string[]> {
  await palette(page, 'SEED: Show Premise Report');
  // code-server's open dialog is a quick input holding a path.
  const dialog = page.locator('.quick-input-widget', { has: page.locator('.quick-input-title', { hasText: 'the premise report to show' }) });
  const input = dialog.locator('.quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog lists its starting folder after it opens, and writes that folder's path into the input as it does: a
  // path typed before is overwritten. The listed files say it has.
  await dialog.locator('.monaco-list-row', { hasText: INVALID }).first().waitFor({ state: 'visible', timeout: 15_000 });
  const file = path.join(session.workspace, INVALID);
  await input.fill(file);
  if ((await input.inputValue()) !== file) fail(`the open dialog holds "${await input.inputValue()}"`);
  await input.press('Enter');
  const frame = webview(page);
  const field = frame.locator('[role="alert"] [data-k="field"]');
  await field.waitFor({ timeout: 60_000 });
  const parts = [clean(await frame.locator('[role="alert"] [data-k="file"]').textContent()), clean(await field.textContent()), clean(await frame.locator('[role="alert"] [data-k="message"]').textContent())];
  const expected = [file, 'expert_vs_mistake.sources.own.win_rate', 'must be <= 1'];
  if (JSON.stringify(parts) !== JSON.stringify(expected)) fail(`the error says ${JSON.stringify(parts)}, expected ${JSON.stringify(expected)}`);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(resultsDir, 'ui-premise-invalid.png') });
  // "Open the file": the JSON in an editor beside the panel.
  await frame.locator('vscode-button[data-action="open-at"]').click();
  await page.locator(`.tab[data-resource-name="${INVALID}"]`).first().waitFor({ timeout: 15_000 });
  return [`${INVALID} from the palette's open dialog: ${parts.join(' · ')}; the JSON opened in an editor`];
}

async function reloadsWhenWritten(page: Page, session: CodeServerSession): Promise<string[]> {
  const file = path.join(session.workspace, INVALID);
  copyFileSync(path.join(FIXTURES, 'report.json'), file);
  // The panel is in the first group; the JSON editor beside it took the focus.
  const frame = webview(page);
  await frame.locator('h1 .file', { hasText: INVALID }).waitFor({ timeout: 30_000 });
  await frame.locator('[data-section="expert"] li.verdict').first().waitFor({ timeout: 5_000 });
  if ((await frame.locator('[role="alert"]').count()) !== 0) fail('the error is still shown after the file became valid');
  return [`${INVALID} rewritten as a valid report: the panel shows it`];
}

function main(): void {
  runnerPrerequisites(LABEL, 'dist/webview/premise.js', 'dist/features.js');
  runCodeServerTest({ label: LABEL, artifactName: 'ui-premise', timeoutSeconds: 180, session: { label: 'ui-premise', installExtension: true } }, async (session) => {
    mkdirSync(resultsDir, { recursive: true });
    copyFileSync(path.join(FIXTURES, 'report.json'), path.join(session.workspace, REPORT));
    copyFileSync(path.join(FIXTURES, 'invalid.json'), path.join(session.workspace, INVALID));
    const page = await session.openBrowser();
    await page.goto(session.workbenchUrl());
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The extension's activity-bar entry: the workbench has its contributions (commands and menus).
    await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().waitFor({ timeout: 60_000 });
    return runUiSteps(page, LABEL, 'ui-premise', [
      ['a report from the explorer\'s context menu: verdicts, tables, a markup skill as text', () => fromExplorer(page)],
      ['an invalid report from the palette\'s open dialog: file, field, message; the JSON opens', () => invalidFromPalette(page, session)],
      ['the file written again as a valid report: the panel reads it by itself', () => reloadsWhenWritten(page, session)],
    ]);
  });
}

main();
