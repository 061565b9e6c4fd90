// What the code-server UI tests do in the workbench, as a user would: run a command from the palette, click a row of
// a tree, reach the content frame of the visible webview; and the loop that runs a test's steps.
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { resultsDir } from '../integration/codeServerSession';

export function fail(message: string): never {
  throw new Error(message);
}

export const PALETTE_ATTEMPTS = 5;

/**
 * F1, the command's title, its row. Right after start the palette can open before the extension's commands are
 * known and then never refreshes, so a missing row means: Escape, reopen, retype. A palette can also close as it
 * opens, when a webview that just loaded or an editor takes the focus: the same again. Returns the tries it took.
 */
export async function palette(page: Page, title: string, log?: (message: string) => void): Promise<number> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  // The row whose label is the title itself ("SEED: Train" must not pick a longer title that contains it).
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = widget.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  for (let attempt = 1; attempt <= PALETTE_ATTEMPTS; attempt += 1) {
    try {
      if (await widget.isVisible()) {
        await page.keyboard.press('Escape');
        await widget.waitFor({ state: 'hidden', timeout: 5_000 });
      }
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      await row.waitFor({ state: 'visible', timeout: 5_000 });
      await row.click({ timeout: 5_000 });
      return attempt;
    } catch (error) {
      log?.(`"${title}" from the palette, try ${attempt} of ${PALETTE_ATTEMPTS} failed (${firstLine(error)})`);
    }
  }
  fail(`"${title}" could not be run from the command palette (${PALETTE_ATTEMPTS} tries)`);
}

/** An error's first line (Playwright's messages go on with their call log). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Runs the named steps of a UI test in order, each on its own: a failure is printed with a screenshot
 * (`<artifact>-failure-<n>.png`) and the next step still runs. Each step returns notes to print.
 */
export async function runUiSteps(page: Page, label: string, artifact: string, steps: ReadonlyArray<readonly [string, () => Promise<string[]>]>): Promise<{ passed: boolean }> {
  let passed = 0;
  let failed = 0;
  for (const [name, step] of steps) {
    const started = Date.now();
    try {
      const notes = await step();
      passed += 1;
      console.log(`${label}: ✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      for (const note of notes) console.log(`    ${note}`);
    } catch (error) {
      failed += 1;
      console.error(`${label}: ✗ ${name}: ${error instanceof Error ? error.message : String(error)}`);
      await page.screenshot({ path: path.join(resultsDir, `${artifact}-failure-${passed + failed}.png`) }).catch(() => undefined);
    }
  }
  console.log(`${label}: ${passed} passed, ${failed} failed`);
  return { passed: failed === 0 };
}

/** The content frame of the visible webview (VS Code nests it: iframe.webview → #active-frame). */
export function webview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('#active-frame');
}

export async function treeRow(page: Page, text: string | RegExp, modifiers: Array<'Control'> = []): Promise<void> {
  const row = page.locator('.monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.click({ modifiers });
}
