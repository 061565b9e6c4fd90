// What the code-server UI tests do in the workbench, as a user would: run a command from the palette, click a row of
// a tree, reach the content frame of the visible webview.
import type { FrameLocator, Page } from 'playwright-core';

export function fail(message: string): never {
  throw new Error(message);
}

/** F1, the command's title, its row; reopened while the extension's commands are not in the palette yet. */
export async function palette(page: Page, title: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    if (await widget.isVisible()) await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(`>${title}`);
    const row = widget.locator('.monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 5_000 });
    } catch {
      continue; // the palette opened before the extension's commands were known: reopen it
    }
    await row.click();
    return;
  }
  fail(`"${title}" never appeared in the command palette`);
}

/** The content frame of the visible webview (VS Code nests it: iframe.webview → #active-frame). */
export function webview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('#active-frame');
}

export async function treeRow(page: Page, text: string, modifiers: Array<'Control'> = []): Promise<void> {
  const row = page.locator('.monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.click({ modifiers });
}
