// A check of the UI smoke suite (smoke.ts) for issue 54 item 8, in the editor as a user meets it: an experiment with a
// misspelt key, a misspelt enum value and an absurd group size. Ctrl+. on the key lists the quick fix "Change to
// `mini_batch_size`", which rewrites it; the one on `sead` rewrites it to `seed`; the mouse over 4000000 shows the
// warning that one update would play 16,000,000 episodes, the field's bound read as "integer ≥ 1".
// Writes test-results/ui-experiment-quickfix.png (the quick fix list) and ui-experiment-warning-hover.png.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type CodeServerSession, resultsDir } from '../integration/codeServerSession';
import { fail } from './workbench';

const FILE = 'typos-ui.seed.yaml';
const TEXT = 'name: typos\nalgorithm: sead\nmodel:\n  path: m\nrollout:\n  tasks_per_update: 4\n  group_size: 4000000\nrl:\n  mini_bach_size: 8\n';

/** Writes the experiment into the workspace (before the workbench opens, as the suite's other files). */
export function writeTyposExperiment(session: CodeServerSession): void {
  writeFileSync(path.join(session.workspace, FILE), TEXT);
}

/** The editor's cursor to line:column (1-based) with Go to Line. */
async function goTo(page: Page, line: number, column: number): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 5_000 });
}

/** Ctrl+. at line:column, then the quick fix titled `title`; returns the titles the list offered. */
async function quickFix(page: Page, line: number, column: number, title: string, screenshot?: string): Promise<string[]> {
  await goTo(page, line, column);
  await page.keyboard.press('Control+.');
  const rows = page.locator('.action-widget .monaco-list-row');
  await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
  const titles = (await rows.allTextContents()).map((text) => text.trim());
  if (screenshot) await page.screenshot({ path: path.join(resultsDir, screenshot) });
  const index = titles.indexOf(title);
  if (index < 0) fail(`Ctrl+. on line ${line} offers ${JSON.stringify(titles)}, not "${title}"`);
  // By keyboard, as the list's own hint says ("Enter to Apply"): the widget lays a pointer block over the page while
  // it opens, which takes a click.
  await page.keyboard.press('Home');
  for (let down = 0; down < index; down += 1) await page.keyboard.press('ArrowDown');
  await page.locator('.action-widget .monaco-list-row.focused', { hasText: title }).waitFor({ timeout: 5_000 });
  await page.keyboard.press('Enter');
  await rows.first().waitFor({ state: 'hidden', timeout: 10_000 });
  return titles;
}

export async function quickFixesAndWarning(page: Page): Promise<string[]> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  const open = page.locator('.quick-input-widget .quick-input-box input');
  await open.waitFor({ state: 'visible', timeout: 15_000 });
  await open.fill(FILE);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: FILE }).first().click();
  await page.locator('.tabs-container .tab.active', { hasText: FILE }).waitFor({ state: 'visible', timeout: 30_000 });
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.squiggly-error').nth(1).waitFor({ timeout: 30_000 });

  const keyFixes = await quickFix(page, 9, 5, 'Change to `mini_batch_size`', 'ui-experiment-quickfix.png');
  const valueFixes = await quickFix(page, 2, 13, 'Change to `seed`');
  const lines = editor.locator('.view-lines');
  await lines.filter({ hasText: 'mini_batch_size: 8' }).filter({ hasText: 'algorithm: seed' }).waitFor({ timeout: 10_000 });

  // The warning of the absurd group size, under the mouse.
  const warning = editor.locator('.squiggly-warning').first();
  await warning.waitFor({ timeout: 15_000 });
  const box = (await warning.boundingBox()) ?? fail('the group_size warning has no squiggle on screen');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 3);
  const hover = page.locator('.monaco-hover', { hasText: 'rollout.group_size: 4,000,000' }).first();
  await hover.waitFor({ state: 'visible', timeout: 15_000 });
  const hoverText = ((await hover.textContent()) ?? '').trim();
  if (!/one update would play 16,000,000 episodes/.test(hoverText)) fail(`the hover says "${hoverText}"`);
  // The field's bound as written, not JavaScript's largest safe integer (issue 54 item 8).
  if (!/integer\s≥\s1(?!\d)/.test(hoverText) || hoverText.includes('9007199254740991')) fail(`the hover states the bound as "${hoverText}"`);
  await page.waitForTimeout(500); // the hover's fade-in
  await page.screenshot({ path: path.join(resultsDir, 'ui-experiment-warning-hover.png') });
  return [`Ctrl+. on mini_bach_size: ${keyFixes.join(' | ')}`, `Ctrl+. on sead: ${valueFixes.join(' | ')}`, `hover: ${hoverText.slice(0, 160)}`];
}
