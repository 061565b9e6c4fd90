// What the code-server UI tests do in the workbench, as a user would: run a command from the palette, click a row of
// a tree, reach the content frame of the visible webview; and the loop that runs a test's steps.
import path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { noteProgress, resultsDir } from '../integration/codeServerSession';

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
/** Right-clicks `row` until its context menu holds `label` (a menu opened before the extension's contributions are
 * known lacks the item and is not refreshed: close, reopen), then runs the item. The menu closes once the item runs;
 * a click that lands while a loaded machine still lays the menu out leaves it open and runs nothing, so the menu's
 * closing is what is waited on, and the item is run again (by keyboard: it has the focus) while it stays open.
 * `where` names the row in the failure. */
export async function contextMenuItem(page: Page, row: Locator, label: string, where: string): Promise<void> {
  const item = page.locator('.monaco-menu .action-item', { hasText: label }).first();
  for (let attempt = 1; ; attempt += 1) {
    await row.click({ button: 'right' });
    try {
      await item.waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (error) {
      await page.keyboard.press('Escape');
      if (attempt === PALETTE_ATTEMPTS) fail(`${where} has no "${label}" in its context menu (${attempt} tries): ${firstLine(error)}`);
    }
  }
  await item.click();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await item.waitFor({ state: 'hidden', timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === PALETTE_ATTEMPTS) fail(`the context menu of ${where} stayed open after "${label}" was chosen (${attempt} tries): ${firstLine(error)}`);
      await item.hover();
      await page.keyboard.press('Enter');
    }
  }
}

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
      noteProgress();
      passed += 1;
      console.log(`${label}: ✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      for (const note of notes) console.log(`    ${note}`);
    } catch (error) {
      failed += 1;
      noteProgress();
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

/**
 * Clicks the first tree row showing `text`. A plain click on a collapsed row must open it: a click that lands while the
 * tree redraws that row (a run's description changes as its reads arrive) can select it without toggling it, so the
 * row's aria-expanded is awaited and the click repeated (said on stderr) when it did not take. An open row is left open.
 */
export async function treeRow(page: Page, text: string | RegExp, modifiers: Array<'Control'> = []): Promise<void> {
  const row = page.locator('.monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  const expandable = modifiers.length === 0 && (await row.getAttribute('aria-expanded')) !== null;
  if (!expandable) {
    await row.click({ modifiers });
    return;
  }
  if ((await row.getAttribute('aria-expanded')) === 'true') return;
  for (let attempt = 1; attempt <= 3; attempt++) {
    await row.click();
    // Children still loading (the twistie spins) is a click that took: wait for them rather than click it shut.
    const open = page.locator('.monaco-list-row[aria-expanded="true"]', { hasText: text }).first();
    const opened = await open.waitFor({ state: 'attached', timeout: 10_000 }).then(() => true, () => false);
    if (opened) return;
    if (await row.locator('.monaco-tl-twistie.codicon-tree-item-loading').count()) {
      await open.waitFor({ state: 'attached', timeout: 30_000 });
      return;
    }
    console.error(`tree row ${String(text)}: click ${attempt} did not open it${attempt < 3 ? '; clicking again' : ''}`);
  }
  fail(`tree row ${String(text)} did not open after 3 clicks`);
}

/** A tree row as drawn: its level, label and description, the label's and the description's right edges against the
 * room its row gives them (px from the label's left), and whether each is cut. */
export interface DrawnLabel {
  level: number;
  /** The row's codicon (`arrow-both` for `codicon-arrow-both`); empty without one. */
  icon: string;
  label: string;
  description: string;
  width: number;
  /** Where the description ends (px from the label's left); 0 without one. */
  end: number;
  room: number;
  cut: boolean;
  descriptionCut: boolean;
}

/**
 * The rows of the sidebar pane titled `pane` at the given tree levels (1: top level), as drawn. The row's label box
 * clips label and description together (overflow hidden, an ellipsis where the text is cut): a text is whole when it
 * ends inside the box; a description cut after it gets its ellipsis after the label (`… · stopped…`).
 */
export async function drawnTreeLabels(page: Page, pane: string, levels: readonly number[] = [1]): Promise<DrawnLabel[]> {
  const body = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header .title', { hasText: new RegExp(`^${pane}$`, 'i') }) }).locator('.pane-body');
  const rows = await body.locator('.monaco-list-row').evaluateAll((all) =>
    all.map((row) => {
      const level = Number(row.getAttribute('aria-level'));
      const codicon = [...(row.querySelector('.custom-view-tree-node-item-icon')?.classList ?? [])].find((name) => name.startsWith('codicon-') && name !== 'codicon-modifier-spin');
      const icon = codicon?.slice('codicon-'.length) ?? '';
      const box = row.querySelector('.monaco-icon-label-container');
      const name = row.querySelector('.label-name');
      const described = row.querySelector('.label-description');
      const description = described?.textContent ?? '';
      if (!box || !name) return { level, icon, label: row.textContent ?? '', description, width: 0, end: 0, room: 0, cut: true, descriptionCut: true };
      const boxRect = box.getBoundingClientRect();
      const nameRect = name.getBoundingClientRect();
      const descriptionRight = description && described ? described.getBoundingClientRect().right : 0;
      // Half a pixel for sub-pixel rounding of the boxes.
      return {
        level,
        icon,
        label: name.textContent ?? '',
        description,
        width: nameRect.width,
        end: descriptionRight ? descriptionRight - nameRect.left : 0,
        room: boxRect.right - nameRect.left,
        cut: nameRect.right > boxRect.right + 0.5,
        descriptionCut: descriptionRight > boxRect.right + 0.5,
      };
    }),
  );
  return rows.filter((row) => levels.includes(row.level));
}

/** The sidebar's width in a fresh window: VS Code gives it Math.min(300, window width / 4) at first. */
const DEFAULT_SIDEBAR_PX = { min: 250, max: 310 };

/**
 * SEED's view container opened in the sidebar, which must have its default width; `check` runs there, and the
 * Explorer comes back after it (a later click on SEED's icon would otherwise close the sidebar).
 */
export async function inSeedSidebar<T>(page: Page, check: () => Promise<T>): Promise<T> {
  await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
  try {
    const width = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
    if (width < DEFAULT_SIDEBAR_PX.min || width > DEFAULT_SIDEBAR_PX.max) fail(`the sidebar is ${width} px wide, not the default width`);
    return await check();
  } finally {
    await page.locator('.part.activitybar a.action-label[aria-label^="Explorer"]').first().click();
  }
}

/** A drawn row for a message: its texts without the bidi isolates, their characters, where they end and the room. */
function drawnText(row: DrawnLabel): string {
  const clean = (text: string): string => text.replace(/[\u2068\u2069]/g, '');
  const label = clean(row.label);
  const description = clean(row.description);
  const drawn = description ? `"${label}" "${description}" (${Array.from(label).length} + ${Array.from(description).length} characters, ${row.end.toFixed(1)}` : `"${label}" (${Array.from(label).length} characters, ${row.width.toFixed(1)}`;
  return `${drawn} of ${row.room.toFixed(1)} px)`;
}

/** What must be drawn whole in one sidebar pane: the labels at `levels` (default: the top level), and the
 * descriptions of the rows `descriptions` picks among them (none by default: descriptions may be cut). */
export interface WholeRows {
  pane: string;
  levels?: readonly number[];
  descriptions?: (row: DrawnLabel) => boolean;
}

/**
 * The labels (and the descriptions asked for) of these sidebar panes, none hovered (a hovered row shows its inline
 * actions over the label): a screenshot to `screenshot`, then a failure naming each text that is cut. Returns notes,
 * the labels' texts and the rows as drawn.
 */
export async function wholeSidebarLabels(page: Page, panes: ReadonlyArray<string | WholeRows>, screenshot: string): Promise<{ notes: string[]; labels: string[]; rows: DrawnLabel[] }> {
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  await page.mouse.move((sidebar?.x ?? 0) + (sidebar?.width ?? 0) + 200, 400);
  const drawn = new Map<string, DrawnLabel[]>();
  const cut: DrawnLabel[] = [];
  for (const wanted of panes) {
    const { pane, levels, descriptions } = typeof wanted === 'string' ? { pane: wanted } : wanted;
    const rows = await drawnTreeLabels(page, pane, levels);
    drawn.set(pane, rows);
    cut.push(...rows.filter((row) => row.cut || (descriptions?.(row) === true && row.descriptionCut)));
  }
  await page.screenshot({ path: screenshot });
  if (cut.length > 0) fail(`cut at the default sidebar width (${sidebar?.width} px): ${cut.map(drawnText).join(', ')}`);
  const notes = [...drawn].map(([pane, rows]) => `${pane} at ${sidebar?.width} px: ${rows.map(drawnText).join(', ')}`);
  const rows = [...drawn.values()].flat();
  return { notes, labels: rows.map((row) => row.label), rows };
}
